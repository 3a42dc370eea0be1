// PUT /api/auth/me/profile (docs/accounts.md, "Your account"): the signed-in user's name and phone number (E.164,
// the contacts' rule). Logged as `user.profile_updated` with the fields that changed (not their values: a phone
// number is the user's own business); an unchanged profile logs nothing.
import type { Me } from '../../domain/account.ts';
import type { DataContext } from '../context.ts';
import { describeMe } from './me.ts';
import { recordOwnEvent } from './security-log.ts';
import type { SessionClock, SessionPrincipal } from './sessions.ts';

export async function updateProfile(
  ctx: DataContext & SessionClock,
  input: {
    principal: SessionPrincipal;
    request: { fullName: string; phone: string | null };
    ipAddress: string;
  },
): Promise<Me> {
  const { user } = input.principal;
  const { fullName, phone } = input.request;
  const changed = [
    ...(user.fullName === fullName ? [] : ['fullName']),
    ...((user.phone ?? null) === phone ? [] : ['phone']),
  ];
  if (changed.length > 0) {
    user.fullName = fullName;
    user.phone = phone;
    recordOwnEvent(ctx, user, input.ipAddress, {
      type: 'user.profile_updated',
      subjectEmail: user.email,
      details: { changed },
    });
    await ctx.em.flush();
  }
  return describeMe(ctx, input.principal);
}

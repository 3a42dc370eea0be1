// POST /api/auth/logout: ends the session the cookie names, whatever its state (also one waiting for its
// second step), and records `user.signed_out`. Without a session there is nothing to end.
import type { DataContext } from '../context.ts';
import { recordSecurityEvent } from './security-log.ts';
import { endSession, type SessionClock, type SessionPrincipal } from './sessions.ts';

export async function logout(
  ctx: DataContext & SessionClock,
  principal: SessionPrincipal | null,
  meta: { ipAddress: string | null },
): Promise<void> {
  if (!principal || principal.session.endedAt) return;
  recordSecurityEvent(ctx, {
    organizationId: principal.user.organizationId,
    type: 'user.signed_out',
    actorUserId: principal.user.id,
    subjectEmail: principal.user.email,
    ipAddress: meta.ipAddress,
  });
  await endSession(ctx, principal.session, 'signed_out');
}

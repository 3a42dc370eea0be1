// POST /api/users/invite: a new user of the organization, `invited` until they accept. The user row (no
// password), a single-use invitation token (7 days) and the security event are written in one transaction
// under the organization's lock (so the plan's user limit holds under concurrent invitations); the email
// with the link `/app/accept-invite?token=…` goes out after it commits.
import { randomUUID } from 'node:crypto';
import { AppUser } from '../../../db/entities/index.ts';
import { InviteUserRequest } from '../../../domain/account.ts';
import { SUPPORTED_LANGUAGES, type SupportedLanguage } from '../../../domain/vocabulary.ts';
import { Conflict } from '../../errors.ts';
import { type AccountEmailOutcome, accountLink, sendAccountEmail } from '../accounts/account-emails.ts';
import { issueAccountToken } from '../accounts/account-tokens.ts';
import { recordSecurityEvent } from '../accounts/security-log.ts';
import { nowOf, permissionsOf } from '../accounts/sessions.ts';
import type { ServiceContext } from '../context.ts';
import { parseInput } from '../validation.ts';
import {
  type Actor,
  checkMayGrant,
  isUniqueViolation,
  lockOrganization,
  planLimitReached,
  planOf,
  roleNamedIn,
  SEATED_USER_STATUSES,
  teamNamedIn,
} from './administration.ts';
import { type UserView, userView } from './views.ts';

export type AdministrationContext = Pick<ServiceContext, 'em' | 'config' | 'clock'>;

export interface InvitedUser {
  user: UserView;
  /** Whether the invitation email went out (a failed one can be sent again: resend-invitation). */
  email: AccountEmailOutcome;
}

export function emailTaken(email: string) {
  return new Conflict(
    `${email} already has a Sigil account (an address belongs to one user, in one organization).`,
    [{ field: 'body.email', message: 'already used by a user' }],
    'email_taken',
  );
}

/** The language of an invited user's emails until they choose one: the organization's default. */
export function invitationLanguage(defaultLanguage: string): SupportedLanguage {
  return (SUPPORTED_LANGUAGES as readonly string[]).includes(defaultLanguage)
    ? (defaultLanguage as SupportedLanguage)
    : 'en';
}

export async function inviteUser(
  ctx: AdministrationContext,
  actor: Actor,
  input: unknown,
): Promise<InvitedUser> {
  const data = parseInput(InviteUserRequest, input, 'invitation');
  const { organization } = actor;
  const now = nowOf(ctx);
  const created = await ctx.em
    .transactional(async (tx) => {
      await lockOrganization(tx, organization.id);
      const role = await roleNamedIn(tx, organization.id, data.roleId);
      const team = data.teamId ? await teamNamedIn(tx, organization.id, data.teamId) : null;
      checkMayGrant(actor, role, permissionsOf(role));
      if (await tx.count(AppUser, { email: data.email, status: { $ne: 'deleted' } })) {
        throw emailTaken(data.email);
      }
      const plan = await planOf(tx, organization);
      const limit = plan.userLimit;
      if (limit != null) {
        const seated = await tx.count(AppUser, {
          organizationId: organization.id,
          status: { $in: [...SEATED_USER_STATUSES] },
        });
        if (seated >= limit) throw planLimitReached(plan, 'users', limit, seated);
      }
      const user = tx.create(AppUser, {
        id: randomUUID(),
        organizationId: organization.id,
        email: data.email,
        fullName: data.fullName,
        passwordHash: null,
        status: 'invited',
        emailVerifiedAt: null,
        roleId: role.id,
        teamId: team?.id ?? null,
        language: invitationLanguage(organization.defaultLanguage),
        totpSecretEncrypted: null,
        totpPendingSecretEncrypted: null,
        totpEnabledAt: null,
        invitedAt: now,
        invitedBy: actor.user.id,
        lastLoginAt: null,
        deletedAt: null,
        createdAt: now,
      });
      // The token and the event reference the user: it is written first (the keys are not deferrable).
      await tx.flush();
      const token = await issueAccountToken({ ...ctx, em: tx }, user.id, 'invite');
      recordSecurityEvent(
        { ...ctx, em: tx },
        {
          organizationId: organization.id,
          type: 'user.invited',
          actorUserId: actor.user.id,
          subjectUserId: user.id,
          subjectEmail: user.email,
          ipAddress: actor.ipAddress ?? null,
          details: { role: role.name, team: team?.name ?? null },
        },
      );
      await tx.flush();
      return { user, role, team, token };
    })
    .catch((error: unknown) => {
      // Another request took the address between the check and the insert.
      if (isUniqueViolation(error)) throw emailTaken(data.email);
      throw error;
    });
  const email = await sendAccountEmail(ctx, {
    kind: 'invite',
    to: created.user.email,
    fullName: created.user.fullName,
    language: invitationLanguage(created.user.language),
    organization,
    link: accountLink(ctx.config, 'accept-invite', created.token),
    invitedBy: actor.user.fullName,
  });
  // A new invitation: no passkey yet.
  return { user: userView(created.user, created.role, created.team, false), email };
}

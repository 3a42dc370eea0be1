// POST /api/users/invite: a new user of the organization, `invited` until they accept. The user row (no
// password), a single-use invitation token (7 days) and the security event are written in one transaction
// under the organization's lock (so the plan's user limit holds under concurrent invitations); the email
// with the link `/app/accept-invite?token=…` goes out after the answer.
//
// The answer never tells whether the address has an account elsewhere (docs/administration.md,
// "Invitations"; issue 30): an address that belongs to a user of another organization is invited like any
// other — same answer, a pending invitation in the list — but the row is marked `emailHeldElsewhere` and gets no
// link; the address's holder is emailed instead that this organization tried to invite them
// (`invitation_attempt`, at most one a minute per address). Only this organization's own users (invited ones
// included) are refused, 409 `email_taken`: the inviter may see them anyway.
import { randomUUID } from 'node:crypto';
import { AppUser, type Organization } from '../../db/entities/index.ts';
import { InviteUserRequest } from '../../domain/account.ts';
import { SUPPORTED_LANGUAGES, type SupportedLanguage } from '../../domain/vocabulary.ts';
import { type AccountEmail, accountLink } from '../accounts/account-emails.ts';
import { issueAccountToken } from '../accounts/account-tokens.ts';
import { findUserByEmail } from '../accounts/account-users.ts';
import { takeEmailSlot } from '../accounts/login-throttle.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { nowOf, permissionsOf } from '../accounts/sessions.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { parseInput } from '../validation.ts';
import {
  type Actor,
  checkMayGrant,
  isUniqueViolation,
  lockOrganization,
  requirePlanRoom,
  roleNamedIn,
  teamNamedIn,
} from './administration.ts';
import { type UserView, userView } from './views.ts';

export type AdministrationContext = Pick<ServiceContext, 'em' | 'config' | 'clock'>;

export interface InvitedUser {
  user: UserView;
  /**
   * The email to send after answering (`sendAccountEmailLater`: its time must not tell which one it is): the
   * invitation, or the notice to the address's holder in another organization; null: none (a notice sent
   * within the minute, or a holder who is not active).
   */
  email: AccountEmail | null;
}

/** 409 `email_taken`: the address is already one of this organization's users (invited ones included). */
export function emailTaken(email: string) {
  return new Conflict(
    `${email} is already a user of this organization (invited or signed up).`,
    [{ field: 'body.email', message: 'already a user of this organization' }],
    'email_taken',
  );
}

/**
 * The email an invitation sends: its link when it has a token, else (the address belongs to `holder`, a user of
 * another organization) the notice to the holder, at most one a minute per address and only to an active one.
 */
export async function invitationEmail(
  ctx: AdministrationContext,
  invitation: { user: AppUser; token: string | null; holder: AppUser | null },
  organization: Organization,
  inviter: string,
): Promise<AccountEmail | null> {
  const { user, token, holder } = invitation;
  if (token) {
    return {
      kind: 'invite',
      to: user.email,
      fullName: user.fullName,
      language: invitationLanguage(user.language),
      organization,
      link: accountLink(ctx.config, 'accept-invite', token),
      invitedBy: inviter,
    };
  }
  if (holder?.status !== 'active') return null;
  if (!(await takeEmailSlot(ctx, 'invitation_attempt', holder.email))) return null;
  return {
    kind: 'invitation_attempt',
    to: holder.email,
    fullName: holder.fullName,
    language: holder.language === 'he' ? 'he' : 'en',
    organization,
    link: accountLink(ctx.config, 'sign-in'),
    invitedBy: inviter,
  };
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
  const invite = () =>
    ctx.em.transactional(async (tx) => {
      await lockOrganization(tx, organization.id);
      const role = await roleNamedIn(tx, organization.id, data.roleId);
      const team = data.teamId ? await teamNamedIn(tx, organization.id, data.teamId) : null;
      checkMayGrant(actor, role, permissionsOf(role));
      const txCtx = { ...ctx, em: tx };
      if (
        await tx.count(AppUser, {
          email: data.email,
          organizationId: organization.id,
          status: { $ne: 'deleted' },
        })
      ) {
        throw emailTaken(data.email);
      }
      // The address's account in another organization, if any: the invitation is made all the same.
      const holder = await findUserByEmail(txCtx, data.email);
      await requirePlanRoom(tx, organization, 'users');
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
        emailHeldElsewhere: holder !== null,
        lastLoginAt: null,
        deletedAt: null,
        createdAt: now,
      });
      // The token and the event reference the user: it is written first (the keys are not deferrable).
      await tx.flush();
      // No link for an address held elsewhere: it could never be accepted (the address is the holder's).
      const token = holder ? null : await issueAccountToken(txCtx, user.id, 'invite');
      recordActorEvent(txCtx, actor, {
        type: 'user.invited',
        subjectUserId: user.id,
        subjectEmail: user.email,
        details: { role: role.name, team: team?.name ?? null },
      });
      await tx.flush();
      return { user, role, team, token, holder };
    });
  // This organization's invitations are serialized by its lock, so a unique violation means another
  // organization's user took the address between the check and the insert: once more, it is held elsewhere now.
  const created = await invite().catch((error: unknown) => {
    if (isUniqueViolation(error)) return invite();
    throw error;
  });
  const email = await invitationEmail(ctx, created, organization, actor.user.fullName);
  // A new invitation: no passkey yet.
  return { user: userView(created.user, created.role, created.team, false), email };
}

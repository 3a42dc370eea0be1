// An organization's users in the backoffice (docs/backoffice.md, "Users of an organization"): the list (search by
// name or email, status filter, pages by name) with whether each address is verified and until when its sign-in is
// locked, and the actions platform staff take for a customer — unlock a locked sign-in, resend the verification
// email, deactivate — each with a reason, recorded in one transaction with the change in both the organization's
// security log (the staff member's address and reason in its details; no organization user acted) and the
// backoffice audit log. Resetting two-step verification and resending an invitation are the accounts' own use
// cases (services/accounts/reset-mfa.ts, resend-invitation.ts), called with a platform-staff actor.
import { AppUser, Role, Team } from '../../db/entities/index.ts';
import type { BackofficeOrganizationUser } from '../../domain/backoffice-users.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import { type AccountEmail, accountEmailTo, accountLink } from '../accounts/account-emails.ts';
import { issueAccountToken } from '../accounts/account-tokens.ts';
import { accountKey, clearLoginThrottle } from '../accounts/login-throttle.ts';
import { recordSecurityEvent } from '../accounts/security-log.ts';
import { endUserSessions, nowOf, type SessionClock } from '../accounts/sessions.ts';
import {
  countActiveOwners,
  findUserOf,
  isOwnerRole,
  LIVE_USER_STATUSES,
  lastOwner,
  lockOrganization,
} from '../administration/administration.ts';
import { usersWithPasskeys } from '../administration/list-users.ts';
import { userView } from '../administration/views.ts';
import type { DataContext, ServiceContext } from '../context.ts';
import { Conflict, InvalidRequest, NotFound } from '../errors.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { type BackofficeActor, recordBackofficeEvent } from './audit-log.ts';
import { recordStaffAccess, type StaffActor } from './staff-access.ts';

export type StaffContext = Pick<ServiceContext, 'em' | 'config' | 'clock'>;

/** Platform staff acting on a user of an organization, for a reason. */
export interface StaffAction {
  actor: Extract<BackofficeActor, { kind: 'platform_admin' }>;
  organizationId: string;
  userId: string;
  reason: string;
}

export interface StaffActionResult {
  user: BackofficeOrganizationUser;
  /** The email to send after the commit (the verification link), if any. */
  email: AccountEmail | null;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

function encodeCursor(user: AppUser): string {
  return Buffer.from(JSON.stringify([user.fullName, user.email, user.id]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { fullName: string; email: string; id: string } {
  try {
    const [fullName, email, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (
      typeof fullName === 'string' &&
      typeof email === 'string' &&
      typeof id === 'string' &&
      UUID_PATTERN.test(id)
    ) {
      return { fullName, email, id };
    }
  } catch {
    // answered below
  }
  throw new InvalidRequest('cursor is not the nextCursor of a previous page.', [
    { field: 'querystring.cursor', message: 'not the nextCursor of a previous page' },
  ]);
}

/** Until when each address's sign-in is locked (only those locked now). */
async function lockedUntilByEmail(
  ctx: DataContext & SessionClock,
  emails: string[],
): Promise<Map<string, Date>> {
  if (emails.length === 0) return new Map();
  const rows = await ctx.em.execute<{ key: string; locked_until: Date | string }[]>(
    'select key, locked_until from login_throttle where key in (?) and locked_until > ?',
    [emails.map((email) => accountKey(email)), nowOf(ctx)],
  );
  const byKey = new Map(rows.map((row) => [row.key, new Date(row.locked_until)]));
  const locked = new Map<string, Date>();
  for (const email of emails) {
    const until = byKey.get(accountKey(email));
    if (until) locked.set(email, until);
  }
  return locked;
}

async function viewsOf(
  ctx: DataContext & SessionClock,
  organizationId: string,
  users: AppUser[],
): Promise<BackofficeOrganizationUser[]> {
  const [roles, teams, withPasskeys, locked] = await Promise.all([
    ctx.em.find(Role, { organizationId }),
    ctx.em.find(Team, { organizationId }),
    usersWithPasskeys(ctx, organizationId),
    lockedUntilByEmail(
      ctx,
      users.map((user) => user.email),
    ),
  ]);
  const roleById = new Map(roles.map((role) => [role.id, role]));
  const teamById = new Map(teams.map((team) => [team.id, team]));
  return users.map((user) => ({
    ...userView(
      user,
      roleById.get(user.roleId) ?? { id: user.roleId, name: '' },
      user.teamId ? (teamById.get(user.teamId) ?? null) : null,
      withPasskeys.has(user.id),
    ),
    emailVerified: user.emailVerifiedAt != null,
    lockedUntil: locked.get(user.email)?.toISOString() ?? null,
  }));
}

/**
 * A page of the organization's users (deleted ones left out), by name; 404 for an unknown organization. Each
 * view is recorded as staff access (both logs).
 */
export async function listOrganizationUsers(
  ctx: DataContext & SessionClock,
  actor: StaffActor,
  organizationId: string,
  input: {
    search?: string | undefined;
    status?: string | undefined;
    limit: number;
    cursor?: string | undefined;
  },
): Promise<{ users: BackofficeOrganizationUser[]; nextCursor: string | null }> {
  const organization = await findOrganization(ctx, organizationId);
  const after = input.cursor ? decodeCursor(input.cursor) : null;
  const pattern = input.search ? `%${escapeLike(input.search)}%` : null;
  const users = await ctx.em.find(
    AppUser,
    {
      organizationId: organization.id,
      status: input.status ? input.status : { $in: [...LIVE_USER_STATUSES] },
      ...(pattern ? { $or: [{ fullName: { $ilike: pattern } }, { email: { $ilike: pattern } }] } : {}),
      ...(after
        ? {
            $and: [
              {
                $or: [
                  { fullName: { $gt: after.fullName } },
                  { fullName: after.fullName, email: { $gt: after.email } },
                  { fullName: after.fullName, email: after.email, id: { $gt: after.id } },
                ],
              },
            ],
          }
        : {}),
    },
    { orderBy: [{ fullName: 'asc' }, { email: 'asc' }, { id: 'asc' }], limit: input.limit + 1 },
  );
  const page = users.slice(0, input.limit);
  // Who of the staff looked at the organization's users (docs/backoffice.md, "Support access recorded").
  recordStaffAccess(ctx, actor, {
    organizationId: organization.id,
    action: 'organization.users_viewed',
    targetId: organization.id,
    reason: null,
    details: { shown: page.length, ...(input.search ? { search: input.search } : {}) },
  });
  await ctx.em.flush();
  return {
    users: await viewsOf(ctx, organization.id, page),
    nextCursor: users.length > input.limit && page.length > 0 ? encodeCursor(page.at(-1) as AppUser) : null,
  };
}

/**
 * 404 unless the organization exists and is not deleted: the accounts' use cases the backoffice calls with a
 * platform-staff actor (reset-mfa, resend-invitation) find the user by organization, deleted or not.
 */
export async function requireLiveOrganization(ctx: DataContext, organizationId: string): Promise<void> {
  const organization = await findOrganization(ctx, organizationId);
  if (organization.deletedAt) throw new NotFound(`Organization ${organizationId} was not found.`);
}

/** The organization (not deleted) and its user, under the organization's lock; 404 for either unknown. */
async function lockedTarget(tx: StaffContext['em'], action: StaffAction) {
  const organization = await findOrganization({ em: tx }, action.organizationId);
  if (organization.deletedAt) throw new NotFound(`Organization ${action.organizationId} was not found.`);
  await lockOrganization(tx, organization.id);
  const user = await findUserOf(tx, organization.id, action.userId);
  return { organization, user };
}

/** Records the action in both logs (the caller's transaction writes them with the change). */
function recordStaffAction(
  ctx: StaffContext & SessionClock,
  action: StaffAction,
  user: AppUser,
  type: 'user.unlocked' | 'user.verification_resent' | 'user.deactivated',
  details: Record<string, unknown> = {},
) {
  recordSecurityEvent(ctx, {
    organizationId: action.organizationId,
    type,
    actorUserId: null,
    subjectUserId: user.id,
    subjectEmail: user.email,
    ipAddress: action.actor.ipAddress,
    details: { ...details, byPlatformStaff: action.actor.admin.email, reason: action.reason },
  });
  recordBackofficeEvent(ctx, action.actor, {
    action: type,
    targetId: user.id,
    details: { ...details, organizationId: action.organizationId, email: user.email, reason: action.reason },
  });
}

/** The user as the list shows them now, read after the action committed, with the email to send. */
export async function resultOf(
  ctx: StaffContext,
  action: Pick<StaffAction, 'organizationId' | 'userId'>,
  email: AccountEmail | null,
): Promise<StaffActionResult> {
  const user = await ctx.em.fork().findOneOrFail(AppUser, { id: action.userId });
  const [view] = await viewsOf({ ...ctx, em: ctx.em.fork() }, action.organizationId, [user]);
  return { user: view as BackofficeOrganizationUser, email };
}

/**
 * Ends the lock of the user's sign-in after too many failed attempts (and forgets the failures); the user is
 * emailed (`account_unlocked`). 409 `not_locked`.
 */
export async function unlockUser(ctx: StaffContext, action: StaffAction): Promise<StaffActionResult> {
  const email = await ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    const { user } = await lockedTarget(tx, action);
    const locked = await lockedUntilByEmail(txCtx, [user.email]);
    const until = locked.get(user.email);
    if (!until) {
      throw new Conflict(
        `${user.email}'s sign-in is not locked: there is nothing to unlock.`,
        [{ field: 'params.userId', message: 'not locked' }],
        'not_locked',
      );
    }
    await clearLoginThrottle(txCtx, user.email);
    recordStaffAction(txCtx, action, user, 'user.unlocked', { lockedUntil: until.toISOString() });
    await tx.flush();
    // The user is told they can sign in again (account_unlocked, in their language).
    return accountEmailTo(tx, user, 'account_unlocked', accountLink(ctx.config, 'sign-in'));
  });
  return resultOf(ctx, action, email);
}

/**
 * A new verification link for an active user whose address is not verified (earlier links stop working). 409
 * `not_unverified` for an invited or deactivated user or a verified address.
 */
export async function resendUserVerification(
  ctx: StaffContext,
  action: StaffAction,
): Promise<StaffActionResult> {
  const email = await ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    const { user } = await lockedTarget(tx, action);
    if (user.status !== 'active' || user.emailVerifiedAt) {
      throw new Conflict(
        user.status !== 'active'
          ? `${user.email} is ${user.status}: only an active user's address is verified by email.`
          : `${user.email} is already verified: there is nothing to resend.`,
        [
          {
            field: 'params.userId',
            message: user.status !== 'active' ? `the user is ${user.status}` : 'already verified',
          },
        ],
        'not_unverified',
      );
    }
    const token = await issueAccountToken(txCtx, user.id, 'verify_email');
    recordStaffAction(txCtx, action, user, 'user.verification_resent');
    await tx.flush();
    return accountEmailTo(tx, user, 'verify_email', accountLink(ctx.config, 'verify-email', token));
  });
  return resultOf(ctx, action, email);
}

/**
 * Deactivates an active user (their sessions end, sign-in is refused) as the organization's administration does
 * (update-user.ts): not an invited user (409 `invitation_pending`), not the last active owner (409 `last_owner`),
 * not one already deactivated (409 `already_deactivated`).
 */
export async function deactivateUser(ctx: StaffContext, action: StaffAction): Promise<StaffActionResult> {
  await ctx.em.transactional(async (tx) => {
    const txCtx = { ...ctx, em: tx };
    const { user } = await lockedTarget(tx, action);
    if (user.status === 'invited') {
      throw new Conflict(
        `${user.email} has not accepted the invitation yet, so there is no account to deactivate.`,
        [{ field: 'params.userId', message: 'the user is invited' }],
        'invitation_pending',
      );
    }
    if (user.status === 'deactivated') {
      throw new Conflict(
        `${user.email} is already deactivated.`,
        [{ field: 'params.userId', message: 'already deactivated' }],
        'already_deactivated',
      );
    }
    const role = await tx.findOneOrFail(Role, { id: user.roleId });
    if (isOwnerRole(role) && (await countActiveOwners(tx, action.organizationId, role.id)) <= 1) {
      throw lastOwner('deactivate this one');
    }
    user.status = 'deactivated';
    recordStaffAction(txCtx, action, user, 'user.deactivated');
    await tx.flush();
    await endUserSessions(txCtx, user.id, 'deactivated');
  });
  return resultOf(ctx, action, null);
}

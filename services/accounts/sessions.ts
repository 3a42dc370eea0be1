// Browser sessions of organization users (docs/accounts.md, "Sessions"): an opaque random token in an HttpOnly
// cookie, of which only the SHA-256 is stored; an idle timeout from the organization's setting and an
// absolute lifetime; a new token at every sign-in step and privilege change (the old session ends).
import { randomUUID } from 'node:crypto';
import { AppUser, Organization, Passkey, Role, Team, UserSession } from '../../db/entities/index.ts';
import {
  BUILT_IN_ROLE_PERMISSIONS,
  type BuiltInRole,
  isPermission,
  type Permission,
} from '../../domain/permissions.ts';
import type { DataContext } from '../context.ts';
import { organizationRefusal } from '../organizations/organization-standing.ts';
import { randomToken, sha256Hex } from '../security/secrets.ts';

export const SESSION_COOKIE = 'sigil_session';
/** However active, a session ends this long after sign-in. */
export const SESSION_ABSOLUTE_LIFETIME_MS = 12 * 60 * 60 * 1000;
/** A pending second step (`mfa_pending`) must be finished within this time. */
export const MFA_PENDING_LIFETIME_MS = 10 * 60 * 1000;
/** `last_seen_at` is written at most this often (idle timeouts are in minutes). */
const TOUCH_INTERVAL_MS = 30 * 1000;

export type SessionState = 'mfa_pending' | 'mfa_enrolment_required' | 'active';

/** Who is signed in: what every application route's access check and the services read. */
export interface SessionPrincipal {
  session: UserSession;
  user: AppUser;
  organization: Organization;
  role: Role;
  team: Team | null;
  permissions: Permission[];
}

export interface SessionClock {
  /** The current time; tests inject one to pass idle timeouts without sleeping. */
  clock?: () => Date;
}

export const nowOf = (ctx: SessionClock): Date => ctx.clock?.() ?? new Date();

export function permissionsOf(role: Pick<Role, 'builtIn' | 'permissions'>): Permission[] {
  if (role.builtIn) return [...(BUILT_IN_ROLE_PERMISSIONS[role.builtIn as BuiltInRole] ?? [])];
  return role.permissions.filter(isPermission);
}

export interface StartedSession {
  /** The cookie value: shown to the browser once, never stored. */
  token: string;
  session: UserSession;
}

/** A new session (its token is new too); `replaces` ends the session it takes over (rotation). */
export async function startSession(
  ctx: DataContext & SessionClock,
  input: {
    user: AppUser;
    state: SessionState;
    ipAddress?: string | null;
    userAgent?: string | null;
    replaces?: UserSession | null;
  },
): Promise<StartedSession> {
  const now = nowOf(ctx);
  const token = randomToken(32);
  const lifetime = input.state === 'mfa_pending' ? MFA_PENDING_LIFETIME_MS : SESSION_ABSOLUTE_LIFETIME_MS;
  const session = ctx.em.create(UserSession, {
    id: randomUUID(),
    tokenHash: sha256Hex(token),
    userId: input.user.id,
    organizationId: input.user.organizationId,
    state: input.state,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + lifetime),
    endedAt: null,
    endedReason: null,
    ipAddress: input.ipAddress ?? null,
    userAgent: input.userAgent?.slice(0, 500) ?? null,
  });
  if (input.replaces && !input.replaces.endedAt) {
    input.replaces.endedAt = now;
    input.replaces.endedReason = 'rotated';
  }
  await ctx.em.flush();
  return { token, session };
}

/**
 * After a second factor was set up: when `sessionId` was waiting for that enrolment (the organization requires
 * one), the active session that replaces it; otherwise null (it is active already).
 */
export async function sessionAfterEnrolment(
  ctx: DataContext & SessionClock,
  sessionId: string,
  user: AppUser,
  request: { ipAddress?: string | null; userAgent?: string | null },
): Promise<StartedSession | null> {
  const session = await ctx.em.findOneOrFail(UserSession, { id: sessionId }, { refresh: true });
  if (session.state !== 'mfa_enrolment_required' || session.endedAt) return null;
  return startSession(ctx, {
    user,
    state: 'active',
    ipAddress: request.ipAddress,
    userAgent: request.userAgent,
    replaces: session,
  });
}

/**
 * The signed-in principal of a cookie token, or null (unknown, ended, expired, idle too long, its user can no
 * longer sign in, or its organization is suspended or deleted). A session found idle or expired is ended on the way;
 * a complete one whose organization has since come to require MFA, of a user without a second factor, is held
 * at enrolment on the way (`mfa_enrolment_required`, stored), as a sign-in would hold it now.
 */
export async function findSession(
  ctx: DataContext & SessionClock,
  token: string,
): Promise<SessionPrincipal | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const { em } = ctx;
  const session = await em.findOne(UserSession, { tokenHash: sha256Hex(token), endedAt: null });
  if (!session) return null;
  const now = nowOf(ctx);
  const [user, organization] = await Promise.all([
    em.findOne(AppUser, { id: session.userId }),
    em.findOne(Organization, { id: session.organizationId }),
  ]);
  const idleMs = (organization?.sessionTimeoutMinutes ?? 60) * 60 * 1000;
  const ended =
    user?.status !== 'active' || !organization
      ? 'user_inactive'
      : organizationRefusal(organization)
        ? // Suspended or deleted by a platform administrator (docs/backoffice.md): every session ends.
          'organization_suspended'
        : now >= session.expiresAt
          ? 'expired'
          : now.getTime() - session.lastSeenAt.getTime() > idleMs
            ? 'idle'
            : null;
  if (ended || !user || !organization) {
    session.endedAt = now;
    session.endedReason = ended;
    await em.flush();
    return null;
  }
  const role = await em.findOneOrFail(Role, { id: user.roleId });
  const team = user.teamId ? await em.findOne(Team, { id: user.teamId }) : null;
  let changed = false;
  if (now.getTime() - session.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
    session.lastSeenAt = now;
    changed = true;
  }
  if (await mustEnrolNow(ctx, session, user, organization)) {
    // The organization came to require MFA after this session began (issue 30): from this request on it is
    // held at enrolment exactly like a new sign-in's, and setting up a factor gives it a new token.
    session.state = 'mfa_enrolment_required';
    changed = true;
  }
  if (changed) await em.flush();
  return { session, user, organization, role, team, permissions: permissionsOf(role) };
}

/**
 * Whether a complete session must go back to MFA enrolment: its organization requires MFA (now: the setting is
 * read at every request, not only at sign-in) and its user has no second factor. The passkeys are counted only
 * in that case (a user with an authenticator app needs no query).
 */
async function mustEnrolNow(
  ctx: DataContext,
  session: UserSession,
  user: AppUser,
  organization: Organization,
): Promise<boolean> {
  if (session.state !== 'active' || !organization.mfaRequired || user.totpEnabledAt) return false;
  return (await ctx.em.count(Passkey, { userId: user.id })) === 0;
}

/** Ends one session (sign-out). */
export async function endSession(ctx: DataContext & SessionClock, session: UserSession, reason: string) {
  if (session.endedAt) return;
  session.endedAt = nowOf(ctx);
  session.endedReason = reason;
  await ctx.em.flush();
}

/** Ends every open session of a user, but `except` (password reset, deactivation, role change). */
export async function endUserSessions(
  ctx: DataContext & SessionClock,
  userId: string,
  reason: string,
  except?: string,
): Promise<number> {
  return ctx.em.nativeUpdate(
    UserSession,
    { userId, endedAt: null, ...(except ? { id: { $ne: except } } : {}) },
    { endedAt: nowOf(ctx), endedReason: reason },
  );
}

// What the organization's administration use cases share (docs/administration.md): who acts, the lock that
// serializes an organization's administrative changes, lookups scoped to the acting user's organization
// (another organization's id is "not found", exactly like an unknown one), the plan's limits, and the rules
// on granting roles.
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppUser, type Organization, Plan, Role, Team } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { Permission } from '../../domain/permissions.ts';
import type { SessionPrincipal } from '../accounts/sessions.ts';
import { Conflict, Forbidden, InvalidRequest, NotFound } from '../errors.ts';

/**
 * The signed-in user who acts (the application route's principal) and the address they act from (for the
 * security log). Every lookup is scoped to `organization`.
 */
export interface Actor extends Pick<SessionPrincipal, 'user' | 'organization' | 'role' | 'permissions'> {
  ipAddress?: string | null;
}

/** Users that count as the organization's users (the plan's limit, a role's or team's holders). */
export const LIVE_USER_STATUSES = ['invited', 'active', 'deactivated'] as const;
/** Users that take a seat of the plan's user limit. */
export const SEATED_USER_STATUSES = ['invited', 'active'] as const;

export const isOwnerRole = (role: Pick<Role, 'builtIn'>) => role.builtIn === 'owner';

/**
 * Serializes the organization's administrative changes (a transaction's row lock on the organization, held
 * until it ends): two concurrent invitations cannot both take the plan's last seat, and two owners demoting
 * each other cannot leave the organization without one. It is the one lock of the counted plan limits
 * (`db/usage-reservations.ts`), so a change here and a counted action elsewhere wait for each other.
 */
export { lockOrganization } from '../../db/usage-reservations.ts';

/** What an organization names uniquely (case-insensitively): its roles and its teams. */
type NamedKind = 'role' | 'team';

/** 409 `name_taken`: another role (or team) of the organization already has this name. */
export function nameTaken(kind: NamedKind, name: string) {
  return new Conflict(
    `This organization already has a ${kind} named "${name}".`,
    [{ field: 'body.name', message: `already the name of a ${kind}` }],
    'name_taken',
  );
}

/** Whether another role (or team) of the organization, but `except`, has this name, whatever its case. */
export async function nameInUse(
  em: Pick<EntityManager, 'execute'>,
  kind: NamedKind,
  organizationId: string,
  name: string,
  except?: string,
) {
  // `kind` is one of two literal table names, never input.
  const [row] = await em.execute<{ taken: boolean }[]>(
    `select exists (select 1 from ${kind} where organization_id = ? and lower(name) = lower(?)
                      and id is distinct from ?::uuid) as taken`,
    [organizationId, name, except ?? null],
  );
  return row?.taken === true;
}

/** The organization's user (not deleted); another organization's, a deleted one or a malformed id: 404. */
export async function findUserOf(
  em: EntityManager,
  organizationId: string,
  userId: string,
): Promise<AppUser> {
  const user = UUID_PATTERN.test(userId)
    ? await em.findOne(AppUser, { id: userId, organizationId, status: { $ne: 'deleted' } })
    : null;
  if (!user) throw new NotFound(`User ${userId} was not found.`);
  return user;
}

/** The organization's role; another organization's or an unknown id: 404. */
export async function findRoleOf(em: EntityManager, organizationId: string, roleId: string): Promise<Role> {
  const role = UUID_PATTERN.test(roleId) ? await em.findOne(Role, { id: roleId, organizationId }) : null;
  if (!role) throw new NotFound(`Role ${roleId} was not found.`);
  return role;
}

/** The organization's team; another organization's or an unknown id: 404. */
export async function findTeamOf(em: EntityManager, organizationId: string, teamId: string): Promise<Team> {
  const team = UUID_PATTERN.test(teamId) ? await em.findOne(Team, { id: teamId, organizationId }) : null;
  if (!team) throw new NotFound(`Team ${teamId} was not found.`);
  return team;
}

/**
 * A role or team named in a request body: it must be the organization's, else the request is refused (400)
 * naming the field (`body.roleId`, `body.teamId`), as the transport names fields its schema refuses.
 */
export async function roleNamedIn(em: EntityManager, organizationId: string, roleId: string): Promise<Role> {
  const role = await em.findOne(Role, { id: roleId, organizationId });
  if (!role) {
    throw new InvalidRequest(`Invalid request: body.roleId: ${roleId} is not a role of this organization.`, [
      { field: 'body.roleId', message: 'not a role of this organization' },
    ]);
  }
  return role;
}

export async function teamNamedIn(em: EntityManager, organizationId: string, teamId: string): Promise<Team> {
  const team = await em.findOne(Team, { id: teamId, organizationId });
  if (!team) {
    throw new InvalidRequest(`Invalid request: body.teamId: ${teamId} is not a team of this organization.`, [
      { field: 'body.teamId', message: 'not a team of this organization' },
    ]);
  }
  return team;
}

/**
 * Whether the actor may give someone this role: only an owner grants the owner role, and nobody grants a
 * role with a permission they do not hold themselves (an administrator cannot hand out `billing:manage`
 * through a custom role, and so cannot raise anyone, themselves included, above their own rights).
 */
export function checkMayGrant(actor: Actor, role: Role, permissionsOfRole: readonly Permission[]): void {
  if (isOwnerRole(role) && !isOwnerRole(actor.role)) {
    throw new Forbidden('Only an owner may give the owner role.', [
      { field: 'body.roleId', message: 'the owner role is granted by owners only' },
    ]);
  }
  checkHeldPermissions(actor, permissionsOfRole, 'body.roleId');
}

/** Refuses (403) permissions the actor does not hold: nobody hands out more than they have. */
export function checkHeldPermissions(actor: Actor, permissions: readonly Permission[], field: string): void {
  const lacking = permissions.filter((permission) => !actor.permissions.includes(permission));
  if (lacking.length > 0) {
    throw new Forbidden(
      `You cannot grant permissions your own role does not have: ${lacking.join(', ')}.`,
      lacking.map((permission) => ({ field, permission, message: `your role lacks ${permission}` })),
    );
  }
}

/**
 * Whether the actor may act on this user at all — change their role, team or status, delete them, resend their
 * invitation, or anything later added on another user (an MFA reset, ending their sessions): only when the
 * user holds no permission the actor lacks. Otherwise 403 `forbidden` naming the permissions (issue 30: a
 * role with only `users:manage` could deactivate or delete administrators although it could not demote them).
 * Owners keep their own rules and words (only an owner acts on an owner), checked before this one.
 */
export function checkMayActOn(
  actor: Actor,
  user: Pick<AppUser, 'email'>,
  permissionsOfUser: readonly Permission[],
): void {
  const lacking = permissionsOfUser.filter((permission) => !actor.permissions.includes(permission));
  if (lacking.length > 0) {
    throw new Forbidden(
      `${user.email} holds permissions your own role does not have (${lacking.join(', ')}): only someone ` +
        'who holds all of them may change, deactivate, delete or re-invite this user.',
      lacking.map((permission) => ({
        field: 'params.id',
        permission,
        message: `the user holds ${permission}, your role does not`,
      })),
    );
  }
}

/** The organization's plan. */
export async function planOf(em: EntityManager, organization: Pick<Organization, 'planName'>): Promise<Plan> {
  return em.findOneOrFail(Plan, { name: organization.planName });
}

/** 409 `plan_limit` naming the limit and the plan. */
export function planLimitReached(plan: Plan, what: 'users' | 'teams', limit: number, count: number) {
  const counted = what === 'users' ? 'active and invited users' : 'teams';
  return new Conflict(
    `The ${plan.name} plan allows ${limit} ${what === 'users' ? 'users' : 'teams'} and this organization ` +
      `has ${count} ${counted}: ${what === 'users' ? 'deactivate or delete a user' : 'delete a team'}, or ` +
      'move to a larger plan.',
    [{ field: what === 'users' ? 'userLimit' : 'teamLimit', message: `${plan.name}: ${limit}`, limit }],
    'plan_limit',
  );
}

/**
 * Refuses (409 `plan_limit`) one user more (a seat: active or invited) or one team more than the organization's
 * plan allows. The caller holds the organization's lock, so requests at once cannot pass the limit together.
 */
export async function requirePlanRoom(
  em: EntityManager,
  organization: Pick<Organization, 'id' | 'planName'>,
  what: 'users' | 'teams',
): Promise<void> {
  const plan = await planOf(em, organization);
  const limit = what === 'users' ? plan.userLimit : plan.teamLimit;
  if (limit == null) return;
  const count =
    what === 'users'
      ? await em.count(AppUser, {
          organizationId: organization.id,
          status: { $in: [...SEATED_USER_STATUSES] },
        })
      : await em.count(Team, { organizationId: organization.id });
  if (count >= limit) throw planLimitReached(plan, what, limit, count);
}

/** The organization's active owners (the last one cannot be demoted, deactivated or deleted). */
export function countActiveOwners(em: EntityManager, organizationId: string, ownerRoleId: string) {
  return em.count(AppUser, { organizationId, roleId: ownerRoleId, status: 'active' });
}

/** 409 `last_owner`. */
export function lastOwner(action: string) {
  return new Conflict(
    `This is the organization's last active owner: make another user an owner before you ${action}.`,
    [],
    'last_owner',
  );
}

/** Whether an error is PostgreSQL's unique violation (a name or an address taken meanwhile). */
export function isUniqueViolation(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as { code?: unknown }).code === '23505' ||
      (error as { name?: unknown }).name === 'UniqueConstraintViolationException')
  );
}

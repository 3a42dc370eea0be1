// GET /api/users (docs/administration.md, "The users list"): the organization's users that are not deleted,
// invited ones included (status `invited`), searched (every word in the name or the address), filtered by role,
// team and status (`locked`: an active user whose sign-in is locked now, login-throttle.ts), sorted (then by id,
// so pages never repeat or skip a user of equal key) and read a page at a time by offset, with the total.
// Two-step verification is on with an authenticator app or a passkey (one query for the page's users).
import { AppUser, Role, Team } from '../../db/entities/index.ts';
import { UserListQuery } from '../../domain/users-list.ts';
import { accountKey } from '../accounts/login-throttle.ts';
import { nowOf, type SessionClock } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import { parseInput } from '../validation.ts';
import { type Actor, LIVE_USER_STATUSES } from './administration.ts';
import { type UserView, userView } from './views.ts';

/** The organization's users who have a passkey, in one query (not one per user). */
export async function usersWithPasskeys(ctx: DataContext, organizationId: string): Promise<Set<string>> {
  const rows = await ctx.em.execute<{ user_id: string }[]>(
    `select distinct passkey.user_id from passkey
       join app_user on app_user.id = passkey.user_id
      where app_user.organization_id = ?`,
    [organizationId],
  );
  return new Set(rows.map((row) => row.user_id));
}

/** The column of each sort (literal SQL, never input); nulls (never signed in) last in either order. */
const SORT_COLUMNS = {
  name: 'lower(u.full_name)',
  email: 'u.email',
  lastLoginAt: 'u.last_login_at',
  createdAt: 'u.created_at',
} as const;

/** `%`, `_` and `\` of a search word match themselves. */
const likePattern = (word: string) => `%${word.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

/** The sign-in lock of an address now (login-throttle.ts keys it by the lowercase address). */
const LOCKED = `exists (select 1 from login_throttle t where t.key = ? || lower(u.email) and t.locked_until > ?)`;

export async function listUsers(
  ctx: DataContext & SessionClock,
  actor: Actor,
  input: unknown = {},
): Promise<{ users: UserView[]; total: number; nextOffset: number | null }> {
  const query = parseInput(UserListQuery, input, 'users list');
  const organizationId = actor.organization.id;
  const now = nowOf(ctx);
  // The statuses are the vocabulary's literals, never input.
  const live = LIVE_USER_STATUSES.map((status) => `'${status}'`).join(', ');
  const where = ['u.organization_id = ?', `u.status in (${live})`];
  const params: unknown[] = [organizationId];
  for (const word of (query.search ?? '').split(/\s+/).filter(Boolean)) {
    where.push(`(u.full_name ilike ? or u.email ilike ?)`);
    params.push(likePattern(word), likePattern(word));
  }
  if (query.roleId) {
    where.push('u.role_id = ?');
    params.push(query.roleId);
  }
  if (query.teamId === 'none') where.push('u.team_id is null');
  else if (query.teamId) {
    where.push('u.team_id = ?');
    params.push(query.teamId);
  }
  const lockPrefix = accountKey('');
  if (query.status === 'locked') {
    where.push(`u.status = 'active' and ${LOCKED}`);
    params.push(lockPrefix, now);
  } else if (query.status === 'active') {
    // An active user whose sign-in is locked is listed under `locked`, not `active`.
    where.push(`u.status = 'active' and not ${LOCKED}`);
    params.push(lockPrefix, now);
  } else if (query.status) {
    where.push('u.status = ?');
    params.push(query.status);
  }
  const direction = query.order === 'desc' ? 'desc' : 'asc';
  const rows = await ctx.em.execute<{ id: string; total: string | number }[]>(
    `select u.id, count(*) over () as total from app_user u
      where ${where.join(' and ')}
      order by ${SORT_COLUMNS[query.sort]} ${direction} nulls last, u.id ${direction}
      limit ? offset ?`,
    [...params, query.limit, query.offset],
  );
  const total =
    rows.length > 0 ? Number(rows[0]?.total) : query.offset > 0 ? await countMatching(ctx, where, params) : 0;
  const ids = rows.map((row) => row.id);
  const [users, roles, teams, withPasskeys] = await Promise.all([
    ids.length > 0 ? ctx.em.find(AppUser, { id: { $in: ids } }) : Promise.resolve([]),
    ctx.em.find(Role, { organizationId }),
    ctx.em.find(Team, { organizationId }),
    usersWithPasskeys(ctx, organizationId),
  ]);
  const byId = new Map(users.map((user) => [user.id, user]));
  const roleById = new Map(roles.map((role) => [role.id, role]));
  const teamById = new Map(teams.map((team) => [team.id, team]));
  const page = ids.flatMap((id) => {
    const user = byId.get(id);
    if (!user) return [];
    return [
      userView(
        user,
        roleById.get(user.roleId) ?? { id: user.roleId, name: '' },
        user.teamId ? (teamById.get(user.teamId) ?? null) : null,
        withPasskeys.has(user.id),
      ),
    ];
  });
  const next = query.offset + rows.length;
  return { users: page, total, nextOffset: next < total ? next : null };
}

/** The number of matches when the page is past the end (the window count had no row to ride on). */
async function countMatching(ctx: DataContext, where: string[], params: unknown[]): Promise<number> {
  const [row] = await ctx.em.execute<{ total: string | number }[]>(
    `select count(*) as total from app_user u where ${where.join(' and ')}`,
    params,
  );
  return Number(row?.total ?? 0);
}

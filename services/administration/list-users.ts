// GET /api/users: the organization's users that are not deleted, invited ones included (status `invited`),
// by name; two-step verification is on with an authenticator app or a passkey (one query for everyone's).
import { AppUser, Role, Team } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
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

export async function listUsers(ctx: DataContext, actor: Actor): Promise<{ users: UserView[] }> {
  const organizationId = actor.organization.id;
  const [users, roles, teams, withPasskeys] = await Promise.all([
    ctx.em.find(
      AppUser,
      { organizationId, status: { $in: [...LIVE_USER_STATUSES] } },
      { orderBy: [{ fullName: 'asc' }, { email: 'asc' }] },
    ),
    ctx.em.find(Role, { organizationId }),
    ctx.em.find(Team, { organizationId }),
    usersWithPasskeys(ctx, organizationId),
  ]);
  const roleById = new Map(roles.map((role) => [role.id, role]));
  const teamById = new Map(teams.map((team) => [team.id, team]));
  return {
    users: users.map((user) =>
      userView(
        user,
        roleById.get(user.roleId) ?? { id: user.roleId, name: '' },
        user.teamId ? (teamById.get(user.teamId) ?? null) : null,
        withPasskeys.has(user.id),
      ),
    ),
  };
}

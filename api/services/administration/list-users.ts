// GET /api/users: the organization's users that are not deleted, invited ones included (status `invited`),
// by name.
import { AppUser, Role, Team } from '../../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { type Actor, LIVE_USER_STATUSES } from './administration.ts';
import { type UserView, userView } from './views.ts';

export async function listUsers(ctx: DataContext, actor: Actor): Promise<{ users: UserView[] }> {
  const organizationId = actor.organization.id;
  const [users, roles, teams] = await Promise.all([
    ctx.em.find(
      AppUser,
      { organizationId, status: { $in: [...LIVE_USER_STATUSES] } },
      { orderBy: [{ fullName: 'asc' }, { email: 'asc' }] },
    ),
    ctx.em.find(Role, { organizationId }),
    ctx.em.find(Team, { organizationId }),
  ]);
  const roleById = new Map(roles.map((role) => [role.id, role]));
  const teamById = new Map(teams.map((team) => [team.id, team]));
  return {
    users: users.map((user) =>
      userView(
        user,
        roleById.get(user.roleId) ?? { id: user.roleId, name: '' },
        user.teamId ? (teamById.get(user.teamId) ?? null) : null,
      ),
    ),
  };
}

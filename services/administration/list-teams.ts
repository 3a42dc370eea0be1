// GET /api/teams: the organization's teams by name, with how many users (not deleted) are in each.
import { Team } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import type { Actor } from './administration.ts';
import { type TeamView, teamView } from './views.ts';

export async function membersByTeam(ctx: DataContext, organizationId: string): Promise<Map<string, number>> {
  const rows = await ctx.em.execute<{ team_id: string; count: string }[]>(
    `select team_id, count(*) as count from app_user
      where organization_id = ? and status <> 'deleted' and team_id is not null group by team_id`,
    [organizationId],
  );
  return new Map(rows.map((row) => [row.team_id, Number(row.count)]));
}

export async function listTeams(ctx: DataContext, actor: Actor): Promise<{ teams: TeamView[] }> {
  const organizationId = actor.organization.id;
  const teams = await ctx.em.find(Team, { organizationId }, { orderBy: { name: 'asc' } });
  const members = await membersByTeam(ctx, organizationId);
  return { teams: teams.map((team) => teamView(team, members.get(team.id) ?? 0)) };
}

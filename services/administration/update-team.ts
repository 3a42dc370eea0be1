// PUT /api/teams/{id}: renames a team.
import { UpdateTeamRequest } from '../../domain/account.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { parseInput } from '../validation.ts';
import {
  type Actor,
  findTeamOf,
  isUniqueViolation,
  lockOrganization,
  nameInUse,
  nameTaken,
} from './administration.ts';
import type { AdministrationContext } from './invite-user.ts';
import { membersByTeam } from './list-teams.ts';
import { type TeamView, teamView } from './views.ts';

export async function updateTeam(
  ctx: AdministrationContext,
  actor: Actor,
  teamId: string,
  input: unknown,
): Promise<TeamView> {
  const data = parseInput(UpdateTeamRequest, input, 'team');
  const { organization } = actor;
  return ctx.em
    .transactional(async (tx) => {
      await lockOrganization(tx, organization.id);
      const team = await findTeamOf(tx, organization.id, teamId);
      if (data.name !== team.name) {
        if (await nameInUse(tx, 'team', organization.id, data.name, team.id)) {
          throw nameTaken('team', data.name);
        }
        recordActorEvent({ ...ctx, em: tx }, actor, {
          type: 'team.updated',
          details: { team: data.name, name: { from: team.name, to: data.name } },
        });
        team.name = data.name;
        await tx.flush();
      }
      const members = await membersByTeam({ em: tx }, organization.id);
      return teamView(team, members.get(team.id) ?? 0);
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw nameTaken('team', data.name);
      throw error;
    });
}

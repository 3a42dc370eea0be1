// Teams: a user belongs to at most one (docs/administration.md).
import { CreateTeamRequest, Ok, TeamList, TeamView, UpdateTeamRequest } from '../../../domain/account.ts';
import { createTeam } from '../../../services/administration/create-team.ts';
import { deleteTeam } from '../../../services/administration/delete-team.ts';
import { listTeams } from '../../../services/administration/list-teams.ts';
import { updateTeam } from '../../../services/administration/update-team.ts';
import { areaRoute, procedure, router, thenOk } from '../init.ts';
import { actorOf, IdParams } from './administration-actor.ts';

const route = areaRoute('teams');

export const teamsRouter = router({
  list: procedure
    .meta(
      route('GET', '/api/teams', {
        summary: "The organization's teams",
        description: 'By name, each with how many users are in it.',
        access: 'teams:read',
      }),
    )
    .output(TeamList)
    .query(({ ctx }) => listTeams(ctx.services, actorOf(ctx))),

  create: procedure
    .meta(
      route('POST', '/api/teams', {
        summary: 'Create a team',
        access: 'teams:manage',
        errors: { 409: '`plan_limit`: the plan allows no more teams; `name_taken`' },
      }),
    )
    .input(CreateTeamRequest)
    .output(TeamView)
    .mutation(({ ctx, input }) => createTeam(ctx.services, actorOf(ctx), input)),

  update: procedure
    .meta(
      route('PUT', '/api/teams/{id}', {
        summary: 'Rename a team',
        access: 'teams:manage',
        errors: { 404: 'No such team in this organization', 409: '`name_taken`' },
      }),
    )
    .input(UpdateTeamRequest.extend(IdParams.shape))
    .output(TeamView)
    .mutation(({ ctx, input }) => {
      const { id, ...changes } = input;
      return updateTeam(ctx.services, actorOf(ctx), id, changes);
    }),

  delete: procedure
    .meta(
      route('DELETE', '/api/teams/{id}', {
        summary: 'Delete a team',
        description: 'Its members are left without a team.',
        access: 'teams:manage',
        errors: { 404: 'No such team in this organization' },
      }),
    )
    .input(IdParams)
    .output(Ok)
    .mutation(thenOk(({ ctx, input }) => deleteTeam(ctx.services, actorOf(ctx), input.id))),
});

// POST /api/teams: a team of the organization, within the plan's team limit; names are unique in the
// organization (case-insensitively).
import { randomUUID } from 'node:crypto';
import { Team } from '../../db/entities/index.ts';
import { CreateTeamRequest } from '../../domain/account.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { parseInput } from '../validation.ts';
import {
  type Actor,
  isUniqueViolation,
  lockOrganization,
  nameInUse,
  nameTaken,
  requirePlanRoom,
} from './administration.ts';
import type { AdministrationContext } from './invite-user.ts';
import { type TeamView, teamView } from './views.ts';

export async function createTeam(
  ctx: AdministrationContext,
  actor: Actor,
  input: unknown,
): Promise<TeamView> {
  const data = parseInput(CreateTeamRequest, input, 'team');
  const { organization } = actor;
  return ctx.em
    .transactional(async (tx) => {
      await lockOrganization(tx, organization.id);
      await requirePlanRoom(tx, organization, 'teams');
      if (await nameInUse(tx, 'team', organization.id, data.name)) throw nameTaken('team', data.name);
      const team = tx.create(Team, { id: randomUUID(), organizationId: organization.id, name: data.name });
      await tx.flush();
      recordActorEvent({ ...ctx, em: tx }, actor, { type: 'team.created', details: { team: team.name } });
      await tx.flush();
      return teamView(team, 0);
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw nameTaken('team', data.name);
      throw error;
    });
}

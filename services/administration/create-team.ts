// POST /api/teams: a team of the organization, within the plan's team limit; names are unique in the
// organization (case-insensitively).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Team } from '../../db/entities/index.ts';
import { CreateTeamRequest } from '../../domain/account.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { Conflict } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { type Actor, isUniqueViolation, lockOrganization, requirePlanRoom } from './administration.ts';
import type { AdministrationContext } from './invite-user.ts';
import { type TeamView, teamView } from './views.ts';

export function teamNameTaken(name: string) {
  return new Conflict(
    `This organization already has a team named "${name}".`,
    [{ field: 'body.name', message: 'already the name of a team' }],
    'name_taken',
  );
}

/** Whether another team of the organization has this name, whatever its case. */
export async function teamNameInUse(
  em: EntityManager,
  organizationId: string,
  name: string,
  except?: string,
) {
  const [row] = await em.execute<{ taken: boolean }[]>(
    `select exists (select 1 from team where organization_id = ? and lower(name) = lower(?)
                      and id is distinct from ?::uuid) as taken`,
    [organizationId, name, except ?? null],
  );
  return row?.taken === true;
}

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
      if (await teamNameInUse(tx, organization.id, data.name)) throw teamNameTaken(data.name);
      const team = tx.create(Team, { id: randomUUID(), organizationId: organization.id, name: data.name });
      await tx.flush();
      recordActorEvent({ ...ctx, em: tx }, actor, { type: 'team.created', details: { team: team.name } });
      await tx.flush();
      return teamView(team, 0);
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw teamNameTaken(data.name);
      throw error;
    });
}

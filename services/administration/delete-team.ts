// DELETE /api/teams/{id}: deletes a team; its members (deleted users too) are left without a team.
import { AppUser } from '../../db/entities/index.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { type Actor, findTeamOf, lockOrganization } from './administration.ts';
import type { AdministrationContext } from './invite-user.ts';

export async function deleteTeam(ctx: AdministrationContext, actor: Actor, teamId: string): Promise<void> {
  const { organization } = actor;
  await ctx.em.transactional(async (tx) => {
    await lockOrganization(tx, organization.id);
    const team = await findTeamOf(tx, organization.id, teamId);
    const members = await tx.nativeUpdate(
      AppUser,
      { organizationId: organization.id, teamId: team.id },
      { teamId: null },
    );
    recordActorEvent({ ...ctx, em: tx }, actor, {
      type: 'team.deleted',
      details: { team: team.name, membersUnassigned: members },
    });
    tx.remove(team);
    await tx.flush();
  });
}

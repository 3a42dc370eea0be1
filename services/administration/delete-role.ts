// DELETE /api/roles/{id}: a role of the organization's own that nobody holds. Built-in roles stay; a role
// held by users that are not deleted is refused, naming how many. Deleted users keep a role too (the column
// is required): theirs moves to the built-in member role, so their rows and history stay.
import { AppUser, Role } from '../../db/entities/index.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { Conflict } from '../errors.ts';
import { type Actor, findRoleOf, LIVE_USER_STATUSES, lockOrganization } from './administration.ts';
import type { AdministrationContext } from './invite-user.ts';
import { builtInRole } from './update-role.ts';

export async function deleteRole(ctx: AdministrationContext, actor: Actor, roleId: string): Promise<void> {
  const { organization } = actor;
  await ctx.em.transactional(async (tx) => {
    await lockOrganization(tx, organization.id);
    const role = await findRoleOf(tx, organization.id, roleId);
    if (role.builtIn) throw builtInRole(role.name);
    const holders = await tx.count(AppUser, {
      organizationId: organization.id,
      roleId: role.id,
      status: { $in: [...LIVE_USER_STATUSES] },
    });
    if (holders > 0) {
      throw new Conflict(
        `The role "${role.name}" is assigned to ${holders} user${holders === 1 ? '' : 's'}: give them another role first.`,
        [{ message: `${holders} user(s) hold the role`, userCount: holders }],
        'role_in_use',
      );
    }
    const member = await tx.findOneOrFail(Role, { organizationId: organization.id, builtIn: 'member' });
    await tx.nativeUpdate(
      AppUser,
      { organizationId: organization.id, roleId: role.id, status: 'deleted' },
      { roleId: member.id },
    );
    recordActorEvent({ ...ctx, em: tx }, actor, {
      type: 'role.deleted',
      details: { role: role.name, permissions: role.permissions },
    });
    tx.remove(role);
    await tx.flush();
  });
}

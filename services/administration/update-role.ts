// PUT /api/roles/{id}: a role's name and permissions. Built-in roles cannot be edited (their permissions come
// from code). Nobody adds a permission they do not hold. Sessions of the role's holders go on: permissions are
// read from the role at every request (services/accounts/sessions.ts, findSession), so a change applies
// from the holders' next request, with no stale copy to end.
import { UpdateRoleRequest } from '../../domain/account.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { permissionsOf } from '../accounts/sessions.ts';
import { Conflict } from '../errors.ts';
import { parseInput } from '../validation.ts';
import {
  type Actor,
  checkHeldPermissions,
  findRoleOf,
  isUniqueViolation,
  lockOrganization,
  nameInUse,
  nameTaken,
} from './administration.ts';
import type { AdministrationContext } from './invite-user.ts';
import { holdersByRole } from './list-roles.ts';
import { type RoleView, roleView } from './views.ts';

export function builtInRole(name: string) {
  return new Conflict(
    `${name} is a built-in role: it cannot be changed or deleted. Create a role of your own instead.`,
    [],
    'built_in_role',
  );
}

export async function updateRole(
  ctx: AdministrationContext,
  actor: Actor,
  roleId: string,
  input: unknown,
): Promise<RoleView> {
  const data = parseInput(UpdateRoleRequest, input, 'role');
  const { organization } = actor;
  return ctx.em
    .transactional(async (tx) => {
      await lockOrganization(tx, organization.id);
      const role = await findRoleOf(tx, organization.id, roleId);
      if (role.builtIn) throw builtInRole(role.name);
      const details: Record<string, unknown> = {};
      if (data.name !== undefined && data.name !== role.name) {
        if (await nameInUse(tx, 'role', organization.id, data.name, role.id)) {
          throw nameTaken('role', data.name);
        }
        details.name = { from: role.name, to: data.name };
        role.name = data.name;
      }
      if (data.permissions !== undefined) {
        const before = permissionsOf(role);
        const added = data.permissions.filter((permission) => !before.includes(permission));
        const removed = before.filter((permission) => !data.permissions?.includes(permission));
        checkHeldPermissions(actor, added, 'body.permissions');
        if (added.length > 0 || removed.length > 0) {
          details.added = added;
          details.removed = removed;
          role.permissions = data.permissions;
        }
      }
      if (Object.keys(details).length > 0) {
        recordActorEvent({ ...ctx, em: tx }, actor, {
          type: 'role.updated',
          details: { role: role.name, ...details },
        });
      }
      await tx.flush();
      const holders = await holdersByRole({ em: tx }, organization.id);
      return roleView(role, holders.get(role.id) ?? 0);
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error) && data.name !== undefined) throw nameTaken('role', data.name);
      throw error;
    });
}

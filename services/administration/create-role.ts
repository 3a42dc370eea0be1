// POST /api/roles: a role of the organization's own, a named set of permissions. Names are unique in the
// organization (case-insensitively); nobody creates a role with a permission they do not hold.
import { randomUUID } from 'node:crypto';
import { Role } from '../../db/entities/index.ts';
import { CreateRoleRequest } from '../../domain/account.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { parseInput } from '../validation.ts';
import {
  type Actor,
  checkHeldPermissions,
  isUniqueViolation,
  lockOrganization,
  nameInUse,
  nameTaken,
} from './administration.ts';
import type { AdministrationContext } from './invite-user.ts';
import { type RoleView, roleView } from './views.ts';

export async function createRole(
  ctx: AdministrationContext,
  actor: Actor,
  input: unknown,
): Promise<RoleView> {
  const data = parseInput(CreateRoleRequest, input, 'role');
  checkHeldPermissions(actor, data.permissions, 'body.permissions');
  const { organization } = actor;
  return ctx.em
    .transactional(async (tx) => {
      await lockOrganization(tx, organization.id);
      if (await nameInUse(tx, 'role', organization.id, data.name)) throw nameTaken('role', data.name);
      const role = tx.create(Role, {
        id: randomUUID(),
        organizationId: organization.id,
        name: data.name,
        builtIn: null,
        permissions: data.permissions,
      });
      await tx.flush();
      recordActorEvent({ ...ctx, em: tx }, actor, {
        type: 'role.created',
        details: { role: role.name, permissions: data.permissions },
      });
      await tx.flush();
      return roleView(role, 0);
    })
    .catch((error: unknown) => {
      if (isUniqueViolation(error)) throw nameTaken('role', data.name);
      throw error;
    });
}

// POST /api/roles: a role of the organization's own, a named set of permissions. Names are unique in the
// organization (case-insensitively); nobody creates a role with a permission they do not hold.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Role } from '../../db/entities/index.ts';
import { CreateRoleRequest } from '../../domain/account.ts';
import { recordActorEvent } from '../accounts/security-log.ts';
import { Conflict } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { type Actor, checkHeldPermissions, isUniqueViolation, lockOrganization } from './administration.ts';
import type { AdministrationContext } from './invite-user.ts';
import { type RoleView, roleView } from './views.ts';

export function roleNameTaken(name: string) {
  return new Conflict(
    `This organization already has a role named "${name}".`,
    [{ field: 'body.name', message: 'already the name of a role' }],
    'name_taken',
  );
}

/** Whether another role of the organization has this name, whatever its case. */
export async function roleNameInUse(
  em: EntityManager,
  organizationId: string,
  name: string,
  except?: string,
) {
  const [row] = await em.execute<{ taken: boolean }[]>(
    `select exists (select 1 from role where organization_id = ? and lower(name) = lower(?)
                      and id is distinct from ?::uuid) as taken`,
    [organizationId, name, except ?? null],
  );
  return row?.taken === true;
}

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
      if (await roleNameInUse(tx, organization.id, data.name)) throw roleNameTaken(data.name);
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
      if (isUniqueViolation(error)) throw roleNameTaken(data.name);
      throw error;
    });
}

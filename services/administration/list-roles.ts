// GET /api/roles: the organization's roles (built-in ones with their permissions from code,
// domain/permissions.ts) with how many users hold each, and every permission there is.
import { Role } from '../../db/entities/index.ts';
import { PERMISSIONS, type Permission } from '../../domain/permissions.ts';
import type { DataContext } from '../context.ts';
import type { Actor } from './administration.ts';
import { compareRoles, type RoleView, roleView } from './views.ts';

/** Users per role: not deleted (invited and deactivated users still hold their role). */
export async function holdersByRole(ctx: DataContext, organizationId: string): Promise<Map<string, number>> {
  const rows = await ctx.em.execute<{ role_id: string; count: string }[]>(
    `select role_id, count(*) as count from app_user
      where organization_id = ? and status <> 'deleted' group by role_id`,
    [organizationId],
  );
  return new Map(rows.map((row) => [row.role_id, Number(row.count)]));
}

export async function listRoles(
  ctx: DataContext,
  actor: Actor,
): Promise<{ roles: RoleView[]; permissions: Permission[] }> {
  const organizationId = actor.organization.id;
  const roles = await ctx.em.find(Role, { organizationId });
  const holders = await holdersByRole(ctx, organizationId);
  return {
    roles: roles.sort(compareRoles).map((role) => roleView(role, holders.get(role.id) ?? 0)),
    permissions: [...PERMISSIONS],
  };
}

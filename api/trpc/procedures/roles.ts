// Roles: named sets of permissions; the built-in ones come from code and cannot be changed
// (docs/administration.md).
import { CreateRoleRequest, Ok, RoleList, RoleView, UpdateRoleRequest } from '../../../domain/account.ts';
import { createRole } from '../../../services/administration/create-role.ts';
import { deleteRole } from '../../../services/administration/delete-role.ts';
import { listRoles } from '../../../services/administration/list-roles.ts';
import { updateRole } from '../../../services/administration/update-role.ts';
import { areaRoute, procedure, router, thenOk } from '../init.ts';
import { actorOf, IdParams } from './administration-actor.ts';

const route = areaRoute('roles');

export const rolesRouter = router({
  list: procedure
    .meta(
      route('GET', '/api/roles', {
        summary: "The organization's roles and every permission",
        description:
          'Built-in roles first (their permissions from code), then the organization’s own, each with how many users hold it.',
        access: 'roles:read',
      }),
    )
    .output(RoleList)
    .query(({ ctx }) => listRoles(ctx.services, actorOf(ctx))),

  create: procedure
    .meta(
      route('POST', '/api/roles', {
        summary: 'Create a role',
        access: 'roles:manage',
        errors: {
          403: 'A permission the caller’s own role lacks',
          409: '`name_taken`: a role of the organization has the name',
        },
      }),
    )
    .input(CreateRoleRequest)
    .output(RoleView)
    .mutation(({ ctx, input }) => createRole(ctx.services, actorOf(ctx), input)),

  update: procedure
    .meta(
      route('PUT', '/api/roles/{id}', {
        summary: 'Rename a role or change its permissions',
        description: 'Holders get the new permissions from their next request; their sessions go on.',
        access: 'roles:manage',
        errors: {
          403: 'Adding a permission the caller’s own role lacks',
          404: 'No such role in this organization',
          409: '`built_in_role`: built-in roles cannot be changed; `name_taken`',
        },
      }),
    )
    .input(UpdateRoleRequest.extend(IdParams.shape))
    .output(RoleView)
    .mutation(({ ctx, input }) => {
      const { id, ...changes } = input;
      return updateRole(ctx.services, actorOf(ctx), id, changes);
    }),

  delete: procedure
    .meta(
      route('DELETE', '/api/roles/{id}', {
        summary: 'Delete a role',
        access: 'roles:manage',
        errors: {
          404: 'No such role in this organization',
          409: '`built_in_role`; `role_in_use`: users hold it (the message says how many)',
        },
      }),
    )
    .input(IdParams)
    .output(Ok)
    .mutation(thenOk(({ ctx, input }) => deleteRole(ctx.services, actorOf(ctx), input.id))),
});

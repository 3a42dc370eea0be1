// The REST route of a backoffice procedure, the platform administrator behind it, and the actor its changes are recorded under in the
// backoffice audit log (with the address the request came from).

import type { OpenApiMethod } from 'trpc-to-openapi';
import type { BackofficeActor } from '../../../services/backoffice/audit-log.ts';
import type { PlatformAdminPrincipal } from '../../../services/backoffice/backoffice-sessions.ts';
import { Unauthorized } from '../../../services/errors.ts';
import { type AppContext, type RouteDocs, route } from '../init.ts';

export function adminOf(ctx: AppContext): PlatformAdminPrincipal {
  if (!ctx.platformAdmin) throw new Unauthorized('Sign in to the backoffice first.');
  return ctx.platformAdmin;
}

export const backofficeActorOf = (ctx: AppContext) =>
  ({
    kind: 'platform_admin' as const,
    admin: adminOf(ctx).admin,
    ipAddress: ctx.ipAddress,
  }) satisfies BackofficeActor;

/**
 * A backoffice route: grouped under `backoffice` in the OpenAPI document and, unless it says `access: 'public'`
 * (the two sign-in steps), for a signed-in platform administrator.
 */
export function backofficeRoute(
  method: OpenApiMethod,
  path: `/api/backoffice/${string}`,
  docs: Omit<RouteDocs, 'tags' | 'access'> & { access?: 'public' },
) {
  return route(method, path, { ...docs, tags: ['backoffice'], access: docs.access ?? 'platform-admin' });
}

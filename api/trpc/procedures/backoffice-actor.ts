// The platform administrator behind a backoffice route, and the actor its changes are recorded under in the
// backoffice audit log (with the address the request came from).

import type { BackofficeActor } from '../../../services/backoffice/audit-log.ts';
import type { PlatformAdminPrincipal } from '../../../services/backoffice/backoffice-sessions.ts';
import { Unauthorized } from '../../../services/errors.ts';
import type { AppContext } from '../init.ts';

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

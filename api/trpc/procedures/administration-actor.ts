// The acting user of an administration route (services/administration/): the signed-in principal and
// the address the request came from, for the security log.
import { z } from 'zod';
import { uuidOf } from '../../../domain/common.ts';
import type { Actor } from '../../../services/administration/administration.ts';
import { type AppContext, principalOf } from '../init.ts';

export function actorOf(ctx: AppContext): Actor {
  return { ...principalOf(ctx), ipAddress: ctx.ipAddress };
}

/**
 * The `{id}` of a path, and nothing else: strict, so a body (or query) field the route does not define is a 400
 * naming it (docs/app-api.md).
 */
export const IdParams = z.strictObject({ id: uuidOf('id') });

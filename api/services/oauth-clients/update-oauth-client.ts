// Changes an OAuth client's name, allowed scopes and IP allowlist (PUT /api/api-keys/{id}): all three as sent,
// the allowlist checked entry by entry as at creation. It takes effect at once for the client's live tokens
// too: the bearer check reads the client's allowlist and its scopes at every request, so a scope taken away
// stops opening its routes and a new allowlist applies (api/auth/bearer-auth.ts). Allowed without API access:
// narrowing a client never needs it.
import { z } from 'zod';
import { CreateOAuthClientRequest } from '../../../domain/organization.ts';
import { IpAllowlist } from '../../security/ip-allowlist.ts';
import type { DataContext } from '../context.ts';
import { parseInput } from '../validation.ts';
import { type ClientActor, recordClientEvent } from './client-events.ts';
import { findOrganizationClient } from './rotate-client-secret.ts';

/** PUT replaces all three: a left-out allowlist is refused, never taken to mean "any source". */
export const UpdateApiKeyRequest = z.strictObject({
  ...CreateOAuthClientRequest.shape,
  ipAllowlist: IpAllowlist,
});
export type UpdateApiKeyRequest = z.input<typeof UpdateApiKeyRequest>;

export interface UpdateOAuthClientInput {
  organizationId: string;
  /** The client's uuid or its public client_id. */
  client: string;
}

export async function updateOAuthClient(
  ctx: DataContext & { clock?: () => Date },
  input: UpdateOAuthClientInput,
  changes: UpdateApiKeyRequest,
  actor?: ClientActor,
): Promise<{ id: string }> {
  const data = parseInput(UpdateApiKeyRequest, changes, 'OAuth client');
  return ctx.em.transactional(async (em) => {
    const client = await findOrganizationClient(em, input.organizationId, input.client, true);
    const changed = Object.fromEntries(
      (['name', 'scopes', 'ipAllowlist'] as const).flatMap((field) =>
        JSON.stringify(client[field]) === JSON.stringify(data[field])
          ? []
          : [[field, { from: client[field], to: data[field] }]],
      ),
    );
    if (Object.keys(changed).length > 0) {
      client.name = data.name;
      client.scopes = data.scopes;
      client.ipAllowlist = data.ipAllowlist;
      recordClientEvent({ ...ctx, em }, client.organizationId, 'api_key.updated', actor, {
        name: data.name,
        clientId: client.clientId,
        ...changed,
      });
      await em.flush();
    }
    return { id: client.id };
  });
}

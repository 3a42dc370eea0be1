// Changes an OAuth client's name, allowed scopes and IP allowlist (PUT /api/api-keys/{id}): all three as sent,
// the allowlist checked entry by entry as at creation. It takes effect at once for the client's live tokens
// too: the bearer check reads the client's allowlist and its scopes at every request, so a scope taken away
// stops opening its routes and a new allowlist applies (api/auth/bearer-auth.ts). Allowed without API access:
// narrowing a client never needs it. The scopes as saved must all be the caller's to give (403 naming the scope),
// and the caller becomes the key's last changer (a suspended key works again once saved by someone who may).
import { z } from 'zod';
import { CreateOAuthClientRequest } from '../../domain/organization.ts';
import type { DataContext } from '../context.ts';
import { requireGrantableScopes } from '../credentials/credential-grants.ts';
import { IpAllowlist } from '../security/ip-allowlist.ts';
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
  // The key as saved must not reach more than its saver: a scope the caller lacks is refused even when it was
  // on the key already (ask someone who holds it, or delete the key: taking access away is always allowed).
  requireGrantableScopes(actor, data.scopes);
  return ctx.em.transactional(async (em) => {
    const client = await findOrganizationClient(em, input.organizationId, input.client, true);
    const changed: Record<string, { from: unknown; to: unknown }> = Object.fromEntries(
      (['name', 'scopes', 'ipAllowlist'] as const).flatMap((field) =>
        JSON.stringify(client[field]) === JSON.stringify(data[field])
          ? []
          : [[field, { from: client[field], to: data[field] }]],
      ),
    );
    // Saving makes the caller the key's last changer: a key suspended because its changer lost a permission
    // (or left) works again once someone who holds its scopes saves it, unchanged or not.
    const changer = actor?.userId ?? null;
    if (changer !== client.changedByUserId) {
      changed.changedBy = { from: client.changedByUserId ?? null, to: changer };
    }
    if (Object.keys(changed).length > 0) {
      client.name = data.name;
      client.scopes = data.scopes;
      client.ipAllowlist = data.ipAllowlist;
      client.changedByUserId = changer;
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

// Deletes an OAuth client (DELETE /api/api-keys/{id}): its secrets, its access tokens (revoked at once: they are
// gone, so the bearer check finds no such token) and its request statistics go with it.
import { LockMode } from '@mikro-orm/core';
import { OAuthAccessToken, OAuthClient, OAuthClientSecret } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { type ClientActor, recordClientEvent } from './client-events.ts';
import { findOrganizationClient } from './rotate-client-secret.ts';

export interface DeleteOAuthClientInput {
  organizationId: string;
  /** The client's uuid or its public client_id. */
  client: string;
}

export interface DeletedOAuthClient {
  id: string;
  clientId: string;
  /** Access tokens that were still valid (not revoked, not expired) and no longer are. */
  revokedTokens: number;
}

export async function deleteOAuthClient(
  ctx: DataContext & { clock?: () => Date },
  input: DeleteOAuthClientInput,
  actor?: ClientActor,
): Promise<DeletedOAuthClient> {
  return ctx.em.transactional(async (em) => {
    const client = await findOrganizationClient(em, input.organizationId, input.client);
    // Secrets first, then the client: the order the token endpoint locks them in (it share-locks the secret
    // until its token is committed), so a token being issued now is committed first and deleted below, and
    // one issued after this commits finds no secret.
    await em.find(OAuthClientSecret, { oauthClientId: client.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const revokedTokens = await em.count(OAuthAccessToken, {
      oauthClientId: client.id,
      revokedAt: null,
      expiresAt: { $gt: new Date() },
    });
    // Secrets, tokens and statistics reference the client with `on delete cascade`; the token rows are
    // deleted explicitly all the same, so revocation does not rest on a schema detail.
    await em.nativeDelete(OAuthAccessToken, { oauthClientId: client.id });
    await em.nativeDelete(OAuthClient, { id: client.id });
    recordClientEvent({ ...ctx, em }, client.organizationId, 'api_key.deleted', actor, {
      name: client.name,
      clientId: client.clientId,
    });
    await em.flush();
    return { id: client.id, clientId: client.clientId, revokedTokens };
  });
}

// Deletes one secret of an OAuth client (the operator CLI's `client delete-secret`,
// DELETE /api/api-keys/{id}/secrets/{secretId}; soft: deleted_at is set, the hash stays for the record) and revokes
// every access token obtained with it, in one transaction. A deleted secret no longer authenticates at the
// token endpoint, and its tokens stop opening the API at once.
//
// Deleting the last active secret is allowed on purpose: it is how an operator locks a client out at once
// (for example after a leak). The client then cannot obtain new tokens until a secret is rotated in.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OAuthAccessToken, OAuthClientSecret } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { DataContext } from '../context.ts';
import { NotFound } from '../errors.ts';
import { type ClientActor, recordClientEvent } from './client-events.ts';
import { findOrganizationClient } from './rotate-client-secret.ts';

export interface DeleteClientSecretInput {
  organizationId: string;
  /** The client's uuid or its public client_id. */
  client: string;
  secretId: string;
}

export interface DeletedClientSecret {
  secretId: string;
  /** The client's uuid and its public client_id. */
  oauthClientId: string;
  clientId: string;
  deletedAt: Date;
  /** Active secrets the client has left; 0 means it cannot obtain tokens any more. */
  activeSecrets: number;
  /** Access tokens revoked with the secret (those not already revoked, expired ones included). */
  revokedTokens: number;
}

export async function deleteClientSecret(
  ctx: DataContext & { clock?: () => Date },
  input: DeleteClientSecretInput,
  actor?: ClientActor,
): Promise<DeletedClientSecret> {
  return ctx.em.transactional(async (em) => {
    const client = await findOrganizationClient(em, input.organizationId, input.client);
    // The row lock orders this against a token being issued with the secret right now (the token endpoint
    // share-locks the secret until its token is committed): that token is committed before the revocation
    // below runs, and it is revoked with the others.
    const secret = UUID_PATTERN.test(input.secretId)
      ? await em.findOne(
          OAuthClientSecret,
          { id: input.secretId, oauthClientId: client.id, deletedAt: null },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        )
      : null;
    if (!secret) {
      throw new NotFound(`Secret ${input.secretId} of OAuth client ${client.clientId} was not found.`);
    }
    const deletedAt = new Date();
    secret.deletedAt = deletedAt;
    recordClientEvent({ ...ctx, em }, client.organizationId, 'api_key.secret_deleted', actor, {
      name: client.name,
      clientId: client.clientId,
      secret: `…${secret.hint}`,
    });
    await em.flush();
    const revokedTokens = await revokeSecretTokens(em, client.id, secret.id, deletedAt);
    const activeSecrets = await em.count(OAuthClientSecret, {
      oauthClientId: client.id,
      deletedAt: null,
      expiresAt: { $gt: new Date() },
    });
    return {
      secretId: secret.id,
      oauthClientId: client.id,
      clientId: client.clientId,
      deletedAt,
      activeSecrets,
      revokedTokens,
    };
  });
}

/**
 * Revokes the tokens a secret obtained, and the client's tokens of unknown origin (issued before tokens
 * recorded their secret: any of the client's secrets may have issued them). Returns how many were revoked.
 */
async function revokeSecretTokens(
  em: EntityManager,
  oauthClientId: string,
  secretId: string,
  revokedAt: Date,
): Promise<number> {
  return em.nativeUpdate(
    OAuthAccessToken,
    {
      oauthClientId,
      $or: [{ oauthClientSecretId: secretId }, { oauthClientSecretId: null }],
      revokedAt: null,
    },
    { revokedAt },
  );
}

// Deletes one secret of an OAuth client (soft: deleted_at is set, the hash stays for the record). A deleted
// secret no longer authenticates at the token endpoint.
//
// Deleting the last active secret is allowed on purpose: it is how an operator locks a client out at once
// (for example after a leak). The client then cannot obtain new tokens until a secret is rotated in;
// access tokens issued earlier stay valid until they expire (at most the token lifetime).
import { OAuthClientSecret } from '../../../db/entities/index.ts';
import { UUID_PATTERN } from '../../../domain/common.ts';
import { NotFound } from '../../errors.ts';
import type { DataContext } from '../context.ts';
import { findOrganizationClient } from './rotate-client-secret.ts';

export interface DeleteClientSecretInput {
  organizationId: string;
  /** The client's uuid or its public client_id. */
  client: string;
  secretId: string;
}

export interface DeletedClientSecret {
  secretId: string;
  clientId: string;
  deletedAt: Date;
  /** Active secrets the client has left; 0 means it cannot obtain tokens any more. */
  activeSecrets: number;
}

export async function deleteClientSecret(
  ctx: DataContext,
  input: DeleteClientSecretInput,
): Promise<DeletedClientSecret> {
  const em = ctx.em;
  const client = await findOrganizationClient(em, input.organizationId, input.client);
  const secret = UUID_PATTERN.test(input.secretId)
    ? await em.findOne(OAuthClientSecret, { id: input.secretId, oauthClientId: client.id, deletedAt: null })
    : null;
  if (!secret) {
    throw new NotFound(`Secret ${input.secretId} of OAuth client ${client.clientId} was not found.`);
  }
  secret.deletedAt = new Date();
  await em.flush();
  const activeSecrets = await em.count(OAuthClientSecret, {
    oauthClientId: client.id,
    deletedAt: null,
    expiresAt: { $gt: new Date() },
  });
  return { secretId: secret.id, clientId: client.clientId, deletedAt: secret.deletedAt, activeSecrets };
}

// Secret rotation (the operator CLI's `client rotate-secret`, POST /api/api-keys/{id}/secrets/rotate): a client
// may hold at most two active (not deleted, not expired) secrets, so an integrator can roll a new secret out
// before deleting the old one. The organization must have API access (api-access.ts), and a user must hold every
// scope of the key (403 naming the scope: the secret is the key's whole reach). The new secret is returned once.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OAuthClient, OAuthClientSecret } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import { isScope } from '../../domain/scopes.ts';
import type { DataContext } from '../context.ts';
import { requireGrantableScopes } from '../credentials/credential-grants.ts';
import { Conflict, NotFound } from '../errors.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { requireApiAccess } from './api-access.ts';
import { type ClientActor, recordClientEvent } from './client-events.ts';
import { newClientSecret, storeClientSecret } from './create-oauth-client.ts';

export const MAX_ACTIVE_SECRETS = 2;

export interface RotateClientSecretInput {
  organizationId: string;
  /** The client's uuid or its public client_id. */
  client: string;
}

export interface RotatedClientSecret {
  secretId: string;
  /** The client's uuid. */
  oauthClientId: string;
  /** Shown once; only its hash is stored. */
  clientSecret: string;
  /** Its last four characters, as lists show it. */
  hint: string;
  expiresAt: Date;
}

export async function rotateClientSecret(
  ctx: DataContext & { clock?: () => Date },
  input: RotateClientSecretInput,
  actor?: ClientActor,
): Promise<RotatedClientSecret> {
  const organization = await findOrganization(ctx, input.organizationId);
  // Hashing is slow on purpose; do it before taking the row lock.
  const secret = await newClientSecret();
  return ctx.em.transactional(async (em) => {
    // The row lock serializes concurrent rotations of one client, so the limit of two cannot be overrun.
    const client = await findOrganizationClient(em, input.organizationId, input.client, true);
    // A new secret is the key's whole reach in the caller's hands: only for someone who holds its scopes.
    requireGrantableScopes(actor, client.scopes.filter(isScope));
    await requireApiAccess(em, organization, `rotate a secret of OAuth client ${client.clientId}`);
    const active = await em.count(OAuthClientSecret, {
      oauthClientId: client.id,
      deletedAt: null,
      expiresAt: { $gt: new Date() },
    });
    if (active >= MAX_ACTIVE_SECRETS) {
      throw new Conflict(
        `OAuth client ${client.clientId} already has two active secrets; delete one first (the one your ` +
          'integration no longer uses), then rotate again. A client holds at most two active secrets.',
        [{ message: `${active} active secrets`, limit: MAX_ACTIVE_SECRETS }],
        'secret_limit',
      );
    }
    const stored = storeClientSecret(em, client.id, secret);
    recordClientEvent({ ...ctx, em }, client.organizationId, 'api_key.secret_rotated', actor, {
      name: client.name,
      clientId: client.clientId,
      secret: `…${secret.hint}`,
      expiresAt: secret.expiresAt.toISOString(),
    });
    await em.flush();
    return {
      secretId: stored.id,
      oauthClientId: client.id,
      clientSecret: secret.clientSecret,
      hint: secret.hint,
      expiresAt: secret.expiresAt,
    };
  });
}

/**
 * An OAuth client of the organization, named by its uuid or its public client_id; NotFound otherwise
 * (including another organization's client). `lock` takes a row lock for the surrounding transaction.
 */
export async function findOrganizationClient(
  em: EntityManager,
  organizationId: string,
  client: string,
  lock = false,
): Promise<OAuthClient> {
  const found = UUID_PATTERN.test(organizationId)
    ? await em.findOne(
        OAuthClient,
        UUID_PATTERN.test(client) ? { id: client, organizationId } : { clientId: client, organizationId },
        lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
      )
    : null;
  if (!found) throw new NotFound(`OAuth client ${client} was not found in organization ${organizationId}.`);
  return found;
}

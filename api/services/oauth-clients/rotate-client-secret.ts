// Secret rotation: a client may hold at most two active (not deleted, not expired) secrets, so an
// integrator can roll a new secret out before deleting the old one. The new secret is returned once.
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { OAuthClient, OAuthClientSecret } from '../../../db/entities/index.ts';
import { UUID_PATTERN } from '../../../domain/common.ts';
import { Conflict, NotFound } from '../../errors.ts';
import { hashSecret, randomToken } from '../../security/secrets.ts';
import type { DataContext } from '../context.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { CLIENT_SECRET_LIFETIME_DAYS } from './create-oauth-client.ts';

export const MAX_ACTIVE_SECRETS = 2;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface RotateClientSecretInput {
  organizationId: string;
  /** The client's uuid or its public client_id. */
  client: string;
}

export interface RotatedClientSecret {
  secretId: string;
  /** Shown once; only its hash is stored. */
  clientSecret: string;
  expiresAt: Date;
}

export async function rotateClientSecret(
  ctx: DataContext,
  input: RotateClientSecretInput,
): Promise<RotatedClientSecret> {
  await findOrganization(ctx, input.organizationId);
  // Hashing is slow on purpose; do it before taking the row lock.
  const clientSecret = randomToken(32);
  const secretHash = await hashSecret(clientSecret);
  return ctx.em.transactional(async (em) => {
    // The row lock serializes concurrent rotations of one client, so the limit of two cannot be overrun.
    const client = await findOrganizationClient(em, input.organizationId, input.client, true);
    const active = await em.count(OAuthClientSecret, {
      oauthClientId: client.id,
      deletedAt: null,
      expiresAt: { $gt: new Date() },
    });
    if (active >= MAX_ACTIVE_SECRETS) {
      throw new Conflict(
        `OAuth client ${client.clientId} already has two active secrets; delete one first (sigil client delete-secret).`,
      );
    }
    const secret = em.create(OAuthClientSecret, {
      id: randomUUID(),
      oauthClientId: client.id,
      secretHash,
      hint: clientSecret.slice(-4),
      expiresAt: new Date(Date.now() + CLIENT_SECRET_LIFETIME_DAYS * DAY_MS),
    });
    await em.flush();
    return { secretId: secret.id, clientSecret, expiresAt: secret.expiresAt };
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

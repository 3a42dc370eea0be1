// Creates an OAuth client with its first secret (the operator CLI's `client create`, POST /api/api-keys). The
// organization must have API access (api-access.ts). The secret is returned once and stored only as a hash. An
// organization keeps at most MAX_API_KEYS keys. A
// user gives it only scopes their role could use (403 naming the scope, domain/credential-permissions.ts) and is
// recorded as its last changer, whose permissions bound it from then on (api/auth/bearer-auth.ts).
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { OAuthClient, OAuthClientSecret } from '../../db/entities/index.ts';
import { CreateOAuthClientRequest } from '../../domain/organization.ts';
import type { DataContext } from '../context.ts';
import { requireGrantableScopes } from '../credentials/credential-grants.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { IpAllowlist } from '../security/ip-allowlist.ts';
import { hashSecret, randomToken } from '../security/secrets.ts';
import { type CountedLimit, flushWithinLimit } from '../usage/counted-limit.ts';
import { parseInput } from '../validation.ts';
import { requireApiAccess } from './api-access.ts';
import { type ClientActor, recordClientEvent } from './client-events.ts';

export const CLIENT_SECRET_LIFETIME_DAYS = 365;
/** API keys (OAuth clients) of one organization, whoever made them (409 `api_key_limit`). */
export const MAX_API_KEYS = 50;

const API_KEY_LIMIT = (organizationId: string): CountedLimit => ({
  what: 'API keys',
  max: MAX_API_KEYS,
  code: 'api_key_limit',
  remedy: 'delete a key it no longer uses first',
  count: async (tx) => {
    const [row] = await tx.execute<{ n: number }[]>(
      'select count(*)::int as n from oauth_client where organization_id = ?',
      [organizationId],
    );
    return Number(row?.n ?? 0);
  },
});
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A new client as every caller sends it: the domain's name and scopes, and the IP allowlist with each entry
 * checked and normalized (a refused entry is named by its index, `ipAllowlist.<n>`, and says why); no
 * allowlist means any source.
 */
export const CreateApiKeyRequest = z.strictObject({
  ...CreateOAuthClientRequest.shape,
  ipAllowlist: IpAllowlist.default([]),
});

const CreateOAuthClientInput = CreateApiKeyRequest.extend({ organizationId: z.string() });
export type CreateOAuthClientInput = z.input<typeof CreateOAuthClientInput>;

export interface CreatedOAuthClient {
  id: string;
  organizationId: string;
  name: string;
  clientId: string;
  /** The first secret's id (oauth_client_secret.id). */
  secretId: string;
  /** Shown once; only its hash is stored. */
  clientSecret: string;
  /** Its last four characters, as lists show it. */
  secretHint: string;
  secretExpiresAt: Date;
  scopes: string[];
  ipAllowlist: string[];
}

export type NewClientSecret = Awaited<ReturnType<typeof newClientSecret>>;

/** A new client secret: 256 random bits, its hash and its last four characters (the hint shown later). */
export async function newClientSecret() {
  const clientSecret = randomToken(32);
  return {
    clientSecret,
    secretHash: await hashSecret(clientSecret),
    hint: clientSecret.slice(-4),
    expiresAt: new Date(Date.now() + CLIENT_SECRET_LIFETIME_DAYS * DAY_MS),
  };
}

/** A new secret of the client, as stored: its hash, hint and expiry (never the secret itself). */
export function storeClientSecret(
  em: EntityManager,
  oauthClientId: string,
  secret: Pick<NewClientSecret, 'secretHash' | 'hint' | 'expiresAt'>,
): OAuthClientSecret {
  return em.create(OAuthClientSecret, {
    id: randomUUID(),
    oauthClientId,
    secretHash: secret.secretHash,
    hint: secret.hint,
    expiresAt: secret.expiresAt,
  });
}

export async function createOAuthClient(
  ctx: DataContext & { clock?: () => Date },
  input: CreateOAuthClientInput,
  actor?: ClientActor,
): Promise<CreatedOAuthClient> {
  const data = parseInput(CreateOAuthClientInput, input, 'OAuth client');
  // Nobody makes a key that reaches more than they do (the operator CLI, without an actor, is not bounded).
  requireGrantableScopes(actor, data.scopes);
  const organization = await findOrganization(ctx, data.organizationId);
  await requireApiAccess(ctx.em, organization, 'create an OAuth client');
  const clientId = `sigil_${randomToken(12)}`;
  const secret = await newClientSecret();
  const { em } = ctx;
  const client = em.create(OAuthClient, {
    id: randomUUID(),
    organizationId: organization.id,
    name: data.name,
    clientId,
    scopes: data.scopes,
    ipAllowlist: data.ipAllowlist,
    changedByUserId: actor?.userId ?? null,
  });
  const stored = storeClientSecret(em, client.id, secret);
  recordClientEvent(ctx, organization.id, 'api_key.created', actor, {
    name: client.name,
    clientId,
    scopes: client.scopes,
    ipAllowlist: client.ipAllowlist,
    secret: `…${secret.hint}`,
  });
  // Counted under the organization's lock in the transaction that stores it: keys made at once cannot pass it.
  await flushWithinLimit(em, organization.id, API_KEY_LIMIT(organization.id));
  return {
    id: client.id,
    organizationId: organization.id,
    name: client.name,
    clientId,
    secretId: stored.id,
    clientSecret: secret.clientSecret,
    secretHint: secret.hint,
    secretExpiresAt: secret.expiresAt,
    scopes: client.scopes,
    ipAllowlist: client.ipAllowlist,
  };
}

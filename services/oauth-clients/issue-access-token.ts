// The client-credentials grant: authenticates an OAuth client by one of its active secrets and issues an
// opaque access token. Only the token's SHA-256 is stored, with the secret that obtained it (so deleting that
// secret revokes the token); the token itself is returned once.
import { LockMode } from '@mikro-orm/core';
import {
  OAuthAccessToken,
  OAuthClient,
  OAuthClientSecret,
  Organization,
  Plan,
} from '../../db/entities/index.ts';
import { isScope, SCOPES, type Scope } from '../../domain/scopes.ts';
import type { DataContext } from '../context.ts';
import { Forbidden, InvalidRequest } from '../errors.ts';
import { requireActiveOrganization } from '../organizations/organization-standing.ts';
import { allowlistRefusal } from '../security/ip-allowlist.ts';
import { randomToken, sha256Hex } from '../security/secrets.ts';
import { apiAccessOf } from './api-access.ts';
import { authenticateClient, invalidClient } from './authenticate-client.ts';

export interface IssueAccessTokenInput {
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes; absent or empty: every scope the client is allowed. */
  requestedScope?: string;
  ttlSeconds: number;
  /** The caller's address (after trusted proxies); checked against the client's IP allowlist. */
  sourceAddress: string;
}

/** Expired tokens are deleted now and then, while issuing new ones. */
const EXPIRED_TOKEN_CLEANUP_PROBABILITY = 0.02;

/** The specification's access token response, field for field. */
export interface AccessTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  /** ISO 8601 UTC. */
  expires_at: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export async function issueAccessToken(
  ctx: DataContext,
  input: IssueAccessTokenInput,
): Promise<AccessTokenResponse> {
  // The slow part (scrypt) runs before the transaction, holding no lock.
  const authenticated = await authenticateClient(ctx.em, input.clientId, input.clientSecret);

  const issued = await ctx.em.transactional(async (em) => {
    // The secret row is share-locked until the token is committed, and deleting a secret takes its row
    // lock before revoking the secret's tokens: either the deletion waits for this token and revokes it, or
    // this waits for the deletion, finds the secret gone and issues nothing.
    const secret = await em.findOne(
      OAuthClientSecret,
      { id: authenticated.secretId, deletedAt: null, expiresAt: { $gt: new Date() } },
      { lockMode: LockMode.PESSIMISTIC_READ },
    );
    const client = secret && (await em.findOne(OAuthClient, { id: authenticated.oauthClientId }));
    const organization = client && (await em.findOne(Organization, { id: client.organizationId }));
    if (!secret || !client || !organization) throw invalidClient();
    // A suspended or deleted organization gets no token (403, docs/backoffice.md).
    requireActiveOrganization(organization, 'obtain an access token');
    const plan = await em.findOne(Plan, { name: organization.planName });
    const refusal = apiAccessRefusal(organization, plan?.apiAccess ?? false);
    if (refusal) throw refusal;
    // Checked only after the client proved who it is, so the allowlist is not revealed to strangers.
    const notAllowed = allowlistRefusal(client.ipAllowlist, input.sourceAddress, client.clientId);
    if (notAllowed) throw new Forbidden(notAllowed);

    const scopes = grantedScopes(client, input.requestedScope);
    const accessToken = randomToken();
    const expiresAt = new Date(Date.now() + input.ttlSeconds * 1000);
    em.create(OAuthAccessToken, {
      tokenHash: sha256Hex(accessToken),
      oauthClientId: client.id,
      oauthClientSecretId: secret.id,
      organizationId: organization.id,
      scopes,
      expiresAt,
    });
    client.lastUsedAt = new Date();
    await em.flush();
    return { accessToken, scopes, expiresAt };
  });
  if (Math.random() < EXPIRED_TOKEN_CLEANUP_PROBABILITY) {
    await ctx.em.nativeDelete(OAuthAccessToken, { expiresAt: { $lt: new Date(Date.now() - DAY_MS) } });
  }

  return {
    access_token: issued.accessToken,
    token_type: 'Bearer',
    expires_in: input.ttlSeconds,
    scope: issued.scopes.join(' '),
    expires_at: issued.expiresAt.toISOString(),
  };
}

/**
 * Why an organization may not use the API (403), or undefined when it may (api-access.ts: its plan has no API
 * access, or its API flag is off). Shared with the bearer-token check, which applies the same rule to tokens
 * issued before the flag or the plan changed.
 */
export function apiAccessRefusal(
  organization: Pick<Organization, 'apiEnabled' | 'planName'>,
  planApiAccess: boolean,
): Forbidden | undefined {
  const access = apiAccessOf(organization, planApiAccess);
  return access.available ? undefined : new Forbidden(access.message ?? 'API access is not available.');
}

/** The scopes to grant: all the client's scopes, or the requested ones when each is known and allowed. */
function grantedScopes(client: Pick<OAuthClient, 'scopes'>, requestedScope: string | undefined): Scope[] {
  const allowed = new Set(client.scopes.filter(isScope));
  const requested = [...new Set((requestedScope ?? '').split(/\s+/).filter(Boolean))];
  if (requested.length === 0) return SCOPES.filter((scope) => allowed.has(scope));

  const unknown = requested.filter((scope) => !isScope(scope));
  const notAllowed = requested.filter((scope) => isScope(scope) && !allowed.has(scope));
  if (unknown.length > 0 || notAllowed.length > 0) {
    const problems = [
      unknown.length > 0 && `unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`,
      notAllowed.length > 0 &&
        `scope${notAllowed.length > 1 ? 's' : ''} ${notAllowed.join(', ')} not allowed for this client`,
    ].filter(Boolean);
    throw new InvalidRequest(
      `Invalid scope: ${problems.join('; ')}. This client may request: ${SCOPES.filter((s) => allowed.has(s)).join(' ') || '(none)'}.`,
      [
        ...unknown.map((scope) => ({ field: 'scope', scope, message: `unknown scope ${scope}` })),
        ...notAllowed.map((scope) => ({ field: 'scope', scope, message: `scope ${scope} not allowed` })),
      ],
      'invalid_scope',
    );
  }
  return SCOPES.filter((scope) => requested.includes(scope));
}

// The client-credentials grant: authenticates an OAuth client by one of its active secrets and issues an
// opaque access token. Only the token's SHA-256 is stored; the token itself is returned once.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  OAuthAccessToken,
  OAuthClient,
  OAuthClientSecret,
  Organization,
  Plan,
} from '../../../db/entities/index.ts';
import { isScope, SCOPES, type Scope } from '../../../domain/scopes.ts';
import { Forbidden, InvalidRequest, Unauthorized } from '../../errors.ts';
import { allowlistRefusal } from '../../security/ip-allowlist.ts';
import { hashSecret, randomToken, sha256Hex, verifySecret } from '../../security/secrets.ts';
import type { DataContext } from '../context.ts';

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

/** Longer credentials are refused without hashing them: no client id or secret of ours comes close. */
const MAX_CREDENTIAL_LENGTH = 256;

const DAY_MS = 24 * 60 * 60 * 1000;

/** One message for an unknown client and a wrong or expired secret, so neither can be told apart. */
export const INVALID_CLIENT_MESSAGE =
  'Client authentication failed: unknown client or invalid client secret.';

export async function issueAccessToken(
  ctx: DataContext,
  input: IssueAccessTokenInput,
): Promise<AccessTokenResponse> {
  const em = ctx.em;
  const client = await authenticateClient(em, input.clientId, input.clientSecret);

  const organization = await em.findOne(Organization, { id: client.organizationId });
  if (!organization) throw new Unauthorized(INVALID_CLIENT_MESSAGE, 'invalid_client');
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
    organizationId: organization.id,
    scopes,
    expiresAt,
  });
  client.lastUsedAt = new Date();
  await em.flush();
  if (Math.random() < EXPIRED_TOKEN_CLEANUP_PROBABILITY) {
    await em.nativeDelete(OAuthAccessToken, { expiresAt: { $lt: new Date(Date.now() - DAY_MS) } });
  }

  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: input.ttlSeconds,
    scope: scopes.join(' '),
    expires_at: expiresAt.toISOString(),
  };
}

/**
 * Why an organization may not use the API (403), or undefined when it may: its API flag is off, or its plan
 * has no API access. Shared with the bearer-token check, which applies the same rule to tokens issued before
 * the flag or the plan changed.
 */
export function apiAccessRefusal(
  organization: Pick<Organization, 'apiEnabled' | 'planName'>,
  planApiAccess: boolean,
): Forbidden | undefined {
  if (!organization.apiEnabled) {
    return new Forbidden(
      'API access is disabled for this organization. An administrator of the organization must enable it.',
    );
  }
  if (!planApiAccess) {
    return new Forbidden(
      `The ${organization.planName} plan does not include API access. Upgrade the organization's plan to use the API.`,
    );
  }
  return undefined;
}

let dummyHash: Promise<string> | undefined;

async function authenticateClient(em: EntityManager, clientId: string, clientSecret: string) {
  const invalid = () => new Unauthorized(INVALID_CLIENT_MESSAGE, 'invalid_client');
  if (clientId.length > MAX_CREDENTIAL_LENGTH || clientSecret.length > MAX_CREDENTIAL_LENGTH) throw invalid();
  const client = await em.findOne(OAuthClient, { clientId });
  const secrets = client
    ? await em.find(OAuthClientSecret, {
        oauthClientId: client.id,
        deletedAt: null,
        expiresAt: { $gt: new Date() },
      })
    : [];
  if (!client) {
    // Spend the time of one verification anyway, so response times do not reveal which client ids exist.
    dummyHash ??= hashSecret(randomToken());
    await verifySecret(clientSecret, await dummyHash);
    throw invalid();
  }
  let matched = false;
  for (const secret of secrets) {
    if (await verifySecret(clientSecret, secret.secretHash)) matched = true;
  }
  if (!matched) throw invalid();
  return client;
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

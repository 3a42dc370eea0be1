// The Integrations area's API keys (GET /api/api-keys, docs/integrations.md): the organization's OAuth clients
// as list-oauth-clients.ts reads them, each with its rate-limit state now (diagnostics.ts), and whether the
// organization may use the public API at all (api-access.ts). The answers of the area's changes show their
// client the same way (`apiKeyOf`), with who last changed it and which of its scopes are suspended because that
// user no longer holds what they need (domain/credential-permissions.ts).
import type { Config } from '../../config/config.ts';
import { Plan } from '../../db/entities/index.ts';
import type { ApiKeyView } from '../../domain/api-key.ts';
import { suspendedScopes } from '../../domain/credential-permissions.ts';
import { isScope } from '../../domain/scopes.ts';
import type { DataContext } from '../context.ts';
import { type LoadedChanger, loadChangers } from '../credentials/credential-grants.ts';
import { NotFound } from '../errors.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { clientRateLimits, type RateLimitState } from '../usage/diagnostics.ts';
import { apiAccessOf } from './api-access.ts';
import { listOAuthClients, type OAuthClientSummary } from './list-oauth-clients.ts';

type Context = DataContext & { config: Pick<Config, 'api'> };

export async function listApiKeys(ctx: Context, organizationId: string, only?: readonly string[]) {
  const organization = await findOrganization(ctx, organizationId);
  const plan = await ctx.em.findOneOrFail(Plan, { name: organization.planName });
  const clients = await listOAuthClients(ctx, organizationId, only);
  const rateLimits = await clientRateLimits(
    ctx,
    organization,
    plan,
    clients.map((client) => client.id),
  );
  const changers = await loadChangers(
    ctx.em,
    clients.map((client) => client.changedByUserId),
  );
  return {
    apiAccess: apiAccessOf(organization, plan.apiAccess),
    apiKeys: clients.map((client) =>
      apiKeyView(
        client,
        rateLimits.get(client.id) as RateLimitState,
        client.changedByUserId ? (changers.get(client.changedByUserId) ?? null) : null,
      ),
    ),
  };
}

/** One client of the organization as the list shows it (after a change made it). */
export async function apiKeyOf(ctx: Context, organizationId: string, id: string): Promise<ApiKeyView> {
  const [apiKey] = (await listApiKeys(ctx, organizationId, [id])).apiKeys;
  // Deleted by another request since the change: as any missing client.
  if (!apiKey) throw new NotFound(`OAuth client ${id} was not found in organization ${organizationId}.`);
  return apiKey;
}

function apiKeyView(
  client: OAuthClientSummary,
  rateLimit: RateLimitState,
  changer: LoadedChanger | null,
): ApiKeyView {
  return {
    id: client.id,
    clientId: client.clientId,
    name: client.name,
    scopes: client.scopes,
    ipAllowlist: client.ipAllowlist,
    changedBy: changer?.view ?? null,
    suspendedScopes: suspendedScopes(client.scopes.filter(isScope), changer?.changer ?? null).map(
      (suspension) => ({
        scope: suspension.item,
        reason: suspension.reason,
        permissions: suspension.lacking,
      }),
    ),
    createdAt: client.createdAt.toISOString(),
    lastUsedAt: client.lastUsedAt?.toISOString() ?? null,
    secrets: client.secrets.map((secret) => ({
      id: secret.id,
      hint: secret.hint,
      createdAt: secret.createdAt.toISOString(),
      expiresAt: secret.expiresAt.toISOString(),
      expiresSoon: secret.expiresSoon,
    })),
    requestCount: client.requestCount,
    errorCount: client.errorCount,
    errorRate: client.errorRate,
    rateLimit,
  };
}

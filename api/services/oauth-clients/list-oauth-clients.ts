// The OAuth clients of an organization with their active secrets and usage counters: what an operator or
// the diagnostics route needs to see (never a secret or its hash).
import { OAuthClient, OAuthClientSecret } from '../../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { findOrganization } from '../organizations/find-organization.ts';

/** An active secret expiring within this many days is flagged `expiresSoon`. */
export const SECRET_EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface OAuthClientSecretSummary {
  id: string;
  /** The secret's last four characters. */
  hint: string;
  createdAt: Date;
  expiresAt: Date;
  expiresSoon: boolean;
}

export interface OAuthClientSummary {
  id: string;
  clientId: string;
  name: string;
  scopes: string[];
  ipAllowlist: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  requestCount: number;
  errorCount: number;
  /** Active (not deleted, not expired) secrets, oldest first. */
  secrets: OAuthClientSecretSummary[];
}

export async function listOAuthClients(
  ctx: DataContext,
  organizationId: string,
): Promise<OAuthClientSummary[]> {
  await findOrganization(ctx, organizationId);
  const em = ctx.em;
  const clients = await em.find(
    OAuthClient,
    { organizationId },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  const now = Date.now();
  const secrets =
    clients.length === 0
      ? []
      : await em.find(
          OAuthClientSecret,
          {
            oauthClientId: { $in: clients.map((client) => client.id) },
            deletedAt: null,
            expiresAt: { $gt: new Date(now) },
          },
          { orderBy: { createdAt: 'asc', id: 'asc' } },
        );
  return clients.map((client) => ({
    id: client.id,
    clientId: client.clientId,
    name: client.name,
    scopes: client.scopes,
    ipAllowlist: client.ipAllowlist,
    createdAt: client.createdAt,
    lastUsedAt: client.lastUsedAt ?? null,
    requestCount: Number(client.requestCount),
    errorCount: Number(client.errorCount),
    secrets: secrets
      .filter((secret) => secret.oauthClientId === client.id)
      .map((secret) => ({
        id: secret.id,
        hint: secret.hint,
        createdAt: secret.createdAt,
        expiresAt: secret.expiresAt,
        expiresSoon: secret.expiresAt.getTime() - now < SECRET_EXPIRY_WARNING_DAYS * DAY_MS,
      })),
  }));
}

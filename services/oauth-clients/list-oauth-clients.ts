// The OAuth clients of an organization with their active secrets and usage counters: what an operator (the CLI's
// `client list`), the diagnostics route and the Integrations page (list-api-keys.ts) need to see (never a secret
// or its hash).
import { OAuthClient, OAuthClientSecret } from '../../db/entities/index.ts';
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
  /** The user who created or last changed it (null: the operator CLI). */
  changedByUserId: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  requestCount: number;
  errorCount: number;
  /** errorCount / requestCount (0 before the first request). */
  errorRate: number;
  /** Active (not deleted, not expired) secrets, oldest first. */
  secrets: OAuthClientSecretSummary[];
}

/** Oldest first; `only`: just the clients with these ids (uuids) of the organization. */
export async function listOAuthClients(
  ctx: DataContext,
  organizationId: string,
  only?: readonly string[],
): Promise<OAuthClientSummary[]> {
  await findOrganization(ctx, organizationId);
  const em = ctx.em;
  const clients = await em.find(
    OAuthClient,
    only ? { organizationId, id: { $in: [...only] } } : { organizationId },
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
  return clients.map((client) => {
    const requestCount = Number(client.requestCount);
    const errorCount = Number(client.errorCount);
    return {
      id: client.id,
      clientId: client.clientId,
      name: client.name,
      scopes: client.scopes,
      ipAllowlist: client.ipAllowlist,
      changedByUserId: client.changedByUserId ?? null,
      createdAt: client.createdAt,
      lastUsedAt: client.lastUsedAt ?? null,
      requestCount,
      errorCount,
      errorRate: requestCount > 0 ? errorCount / requestCount : 0,
      secrets: secrets
        .filter((secret) => secret.oauthClientId === client.id)
        .map((secret) => ({
          id: secret.id,
          hint: secret.hint,
          createdAt: secret.createdAt,
          expiresAt: secret.expiresAt,
          expiresSoon: secret.expiresAt.getTime() - now < SECRET_EXPIRY_WARNING_DAYS * DAY_MS,
        })),
    };
  });
}

// Creates an OAuth client with its first secret. The secret is returned once and stored only as a hash.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { OAuthClient, OAuthClientSecret } from '../../../db/entities/index.ts';
import { CreateOAuthClientRequest } from '../../../domain/organization.ts';
import { InvalidRequest } from '../../errors.ts';
import { parseAllowlistEntry } from '../../security/ip-allowlist.ts';
import { hashSecret, randomToken } from '../../security/secrets.ts';
import type { DataContext } from '../context.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { parseInput } from '../validation.ts';

export const CLIENT_SECRET_LIFETIME_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

const CreateOAuthClientInput = CreateOAuthClientRequest.extend({ organizationId: z.string() });
export type CreateOAuthClientInput = z.input<typeof CreateOAuthClientInput>;

export interface CreatedOAuthClient {
  id: string;
  organizationId: string;
  name: string;
  clientId: string;
  /** Shown once; only its hash is stored. */
  clientSecret: string;
  secretExpiresAt: Date;
  scopes: string[];
  ipAllowlist: string[];
}

export async function createOAuthClient(
  ctx: DataContext,
  input: CreateOAuthClientInput,
): Promise<CreatedOAuthClient> {
  const data = parseInput(CreateOAuthClientInput, input, 'OAuth client');
  const ipAllowlist = normalizedAllowlist(data.ipAllowlist);
  const organization = await findOrganization(ctx, data.organizationId);
  const clientId = `sigil_${randomToken(12)}`;
  const clientSecret = randomToken(32);
  const secretExpiresAt = new Date(Date.now() + CLIENT_SECRET_LIFETIME_DAYS * DAY_MS);
  const { em } = ctx;
  const client = em.create(OAuthClient, {
    id: randomUUID(),
    organizationId: organization.id,
    name: data.name,
    clientId,
    scopes: data.scopes,
    ipAllowlist,
  });
  em.create(OAuthClientSecret, {
    id: randomUUID(),
    oauthClientId: client.id,
    secretHash: await hashSecret(clientSecret),
    hint: clientSecret.slice(-4),
    expiresAt: secretExpiresAt,
  });
  await em.flush();
  return {
    id: client.id,
    organizationId: organization.id,
    name: client.name,
    clientId,
    clientSecret,
    secretExpiresAt,
    scopes: client.scopes,
    ipAllowlist: client.ipAllowlist,
  };
}

/** The allowlist entries normalized (an address, or a CIDR range), each bad entry named in one 400. */
export function normalizedAllowlist(entries: string[]): string[] {
  const normalized: string[] = [];
  const problems: { field: string; message: string }[] = [];
  entries.forEach((raw, index) => {
    if (raw.trim() === '') return;
    const parsed = parseAllowlistEntry(raw);
    if ('error' in parsed) problems.push({ field: `ipAllowlist.${index}`, message: parsed.error });
    else normalized.push(parsed.entry);
  });
  const first = problems[0];
  if (first) {
    throw new InvalidRequest(
      `Invalid OAuth client: ${first.field}: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`,
      problems,
    );
  }
  return [...new Set(normalized)];
}

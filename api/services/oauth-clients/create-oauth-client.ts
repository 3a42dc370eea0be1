// Creates an OAuth client with its first secret. The secret is returned once and stored only as a hash.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { OAuthClient, OAuthClientSecret } from '../../../db/entities/index.ts';
import { parseAllowlistEntry } from '../../auth/ip-allowlist.ts';
import { SCOPES } from '../../auth/scopes.ts';
import { hashSecret, randomToken } from '../../security/secrets.ts';
import type { DataContext } from '../context.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { parseInput } from '../validation.ts';

export const CLIENT_SECRET_LIFETIME_DAYS = 365;
const DAY_MS = 24 * 60 * 60 * 1000;

const CreateOAuthClientInput = z.object({
  organizationId: z.string(),
  name: z.string().trim().min(1, 'name is required').max(200),
  scopes: z
    .array(z.enum(SCOPES, { message: `each scope must be one of: ${SCOPES.join(' ')}` }))
    .min(1, 'at least one scope is required')
    .transform((scopes) => [...new Set(scopes)]),
  ipAllowlist: z
    .array(z.string())
    .default([])
    .transform((entries, ctx) => {
      const normalized: string[] = [];
      for (const raw of entries.filter((e) => e.trim() !== '')) {
        const parsed = parseAllowlistEntry(raw);
        if ('error' in parsed) ctx.addIssue({ code: 'custom', message: parsed.error });
        else normalized.push(parsed.entry);
      }
      return [...new Set(normalized)];
    }),
});
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
  const organization = await findOrganization(ctx, data.organizationId);
  const clientId = `sigil_${randomToken(12)}`;
  const clientSecret = randomToken(32);
  const secretExpiresAt = new Date(Date.now() + CLIENT_SECRET_LIFETIME_DAYS * DAY_MS);
  const em = ctx.orm.em.fork();
  const client = em.create(OAuthClient, {
    id: randomUUID(),
    organizationId: organization.id,
    name: data.name,
    clientId,
    scopes: data.scopes,
    ipAllowlist: data.ipAllowlist,
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

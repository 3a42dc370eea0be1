// The Integrations area's OAuth clients ("API keys", docs/integrations.md) as the application routes show them:
// a client with its active secrets, usage and rate-limit state, the organization's API access, a secret shown
// once, and the per-client request figures. The request bodies (CreateApiKeyRequest, UpdateApiKeyRequest) are
// services/oauth-clients/'s: their IP allowlist entries are checked there (services/security/ip-allowlist.ts).
import { z } from 'zod';
import { IsoDateTime } from './common.ts';

/** An active secret: never the secret itself, only its last four characters. */
export const ApiKeySecretView = z.object({
  id: z.uuid(),
  hint: z.string().describe('The secret’s last four characters'),
  createdAt: IsoDateTime,
  expiresAt: IsoDateTime,
  expiresSoon: z.boolean().describe('It expires within 30 days: rotate it'),
});

const BucketState = z.object({
  limit: z.number().int(),
  used: z.number().int(),
  remaining: z.number().int(),
  resetSeconds: z.number().int(),
});

export const RateLimitStateView = z
  .object({ windowSeconds: z.number().int(), standard: BucketState, heavy: BucketState })
  .describe('The client’s requests in the current window: ordinary calls and uploads (heavy)');

/** Who created or last changed a credential (an API key, a webhook endpoint): its reach is bounded by theirs. */
export const CredentialChangerView = z
  .object({
    id: z.uuid(),
    fullName: z.string(),
    status: z.string().describe('`active`, `deactivated` or `deleted`'),
  })
  .nullable()
  .describe(
    'The user who created or last changed it; its scopes or events work only while that user is active and ' +
      'holds what they need. Null: made or changed by the operator CLI (or an endpoint older than this record)',
  );

export const SUSPENSION_REASONS = ['user_inactive', 'permission_missing'] as const;

/** Why a scope or an event is suspended, and the permissions its last changer lacks. */
const Suspension = {
  reason: z
    .enum(SUSPENSION_REASONS)
    .describe(
      '`user_inactive`: the last changer is deactivated or deleted; `permission_missing`: their role lost a permission',
    ),
  permissions: z
    .array(z.string())
    .describe('The permissions it needs that the last changer does not hold now'),
};

export const SuspendedScopeView = z.object({ scope: z.string(), ...Suspension });
export const SuspendedEventView = z.object({ eventType: z.string(), ...Suspension });

export const ApiKeyView = z.object({
  id: z.uuid(),
  clientId: z.string().describe('The public client_id the integration authenticates with'),
  name: z.string(),
  scopes: z.array(z.string()),
  ipAllowlist: z.array(z.string()).describe('Addresses and CIDR ranges; empty: any source'),
  changedBy: CredentialChangerView,
  suspendedScopes: z
    .array(SuspendedScopeView)
    .describe(
      'Scopes that do not work now (403 at use), because the last changer lost what they need; they work again ' +
        'once someone who holds it saves the key',
    ),
  createdAt: IsoDateTime,
  lastUsedAt: IsoDateTime.nullable(),
  secrets: z.array(ApiKeySecretView).describe('Active secrets, oldest first (at most two)'),
  requestCount: z.number().int(),
  errorCount: z.number().int(),
  errorRate: z.number().describe('errorCount / requestCount (0 before the first request)'),
  rateLimit: RateLimitStateView,
});
export type ApiKeyView = z.output<typeof ApiKeyView>;

export const API_ACCESS_REASONS = ['plan_without_api_access', 'organization_api_disabled'] as const;

export const ApiAccessView = z.object({
  available: z.boolean().describe('The plan includes API access and the organization’s API flag is on'),
  planName: z.string(),
  reason: z.enum(API_ACCESS_REASONS).nullable(),
  message: z.string().nullable().describe('Why not, and who turns it on'),
});

export const ApiKeyList = z.object({ apiAccess: ApiAccessView, apiKeys: z.array(ApiKeyView) });

/** A secret as it is issued (created with the client, or rotated in): the only time the secret is shown. */
export const IssuedSecret = z.object({
  id: z.uuid(),
  clientSecret: z.string().describe('Shown only in this answer; store it now'),
  hint: z.string(),
  expiresAt: IsoDateTime,
});

export const ApiKeyWithSecret = z.object({ apiKey: ApiKeyView, secret: IssuedSecret });
export type ApiKeyWithSecret = z.output<typeof ApiKeyWithSecret>;

const RequestCounts = z.object({
  requests: z.number().int(),
  errors: z.number().int(),
  rateLimited: z.number().int().describe('Requests refused with 429'),
});

export const ApiKeyDiagnostics = z.object({
  generatedAt: IsoDateTime,
  totals: z.object({ last24Hours: RequestCounts, last7Days: RequestCounts }),
  apiKeys: z.array(
    z.object({
      id: z.uuid(),
      clientId: z.string(),
      name: z.string(),
      last24Hours: RequestCounts,
      last7Days: RequestCounts,
    }),
  ),
});

// GET /api/v1/usage (billing summary) and GET /api/v1/diagnostics (requests, limits, clients, webhooks).
import { z } from 'zod';
import { IsoDateTime } from '../../../domain/common.ts';
import { diagnostics } from '../../../services/usage/diagnostics.ts';
import { usageSummary } from '../../../services/usage/usage-summary.ts';
import { principalOf } from '../../auth/principal.ts';
import { ERROR_RESPONSES } from './schemas.ts';
import type { V1Routes } from './types.ts';

const limit = z.number().int().nullable().describe('null: unlimited');

const UsageResponse = z
  .object({
    planName: z.string(),
    subscriptionStatus: z.enum(['active']),
    billingMode: z.enum(['invoice']),
    monthlyDocumentLimit: limit,
    userLimit: limit,
    teamLimit: limit,
    apiAccess: z.boolean(),
    webhookAccess: z.boolean(),
    supportLevel: z.string(),
    period: z.object({ start: IsoDateTime, end: IsoDateTime }),
    envelopesSentThisPeriod: z.number().int(),
    envelopesReserved: z
      .number()
      .int()
      .describe(
        'Envelopes reserved by bulk sends in progress and not sent yet (they count against the quota)',
      ),
    remainingEnvelopeQuota: limit,
    smsCreditsIncluded: z.number().int().describe('SMS and WhatsApp messages the plan includes per month'),
    smsCreditsUsedThisPeriod: z.number().int().describe('SMS and WhatsApp messages sent this month'),
    smsCreditsHeld: z
      .number()
      .int()
      .describe('Credits held for messages not sent yet (invitations, first codes, bulk sends in progress)'),
    remainingSmsCredits: z.number().int(),
  })
  .meta({ id: 'Usage' });

const Counts = z.object({
  requests: z.number().int(),
  errors: z.number().int(),
  rateLimited: z.number().int(),
});
const BucketState = z.object({
  limit: z.number().int(),
  used: z.number().int(),
  remaining: z.number().int(),
  resetSeconds: z.number().int(),
});

const DiagnosticsResponse = z
  .object({
    generatedAt: IsoDateTime,
    requests: z
      .object({ lastHour: Counts, last24Hours: Counts })
      .describe('All OAuth clients of the organization'),
    rateLimits: z
      .object({ windowSeconds: z.number().int(), standard: BucketState, heavy: BucketState })
      .describe('The calling client, current window'),
    oauthClients: z.array(
      z.object({
        clientId: z.string(),
        name: z.string(),
        scopes: z.array(z.string()),
        ipAllowlist: z.array(z.string()),
        lastUsedAt: IsoDateTime.nullable(),
        requestCount: z.number().int(),
        errorCount: z.number().int(),
        errorRate: z.number(),
        activeSecrets: z.array(
          z.object({ id: z.uuid(), hint: z.string(), expiresAt: IsoDateTime, expiresSoon: z.boolean() }),
        ),
        warnings: z.array(z.string()),
      }),
    ),
    webhooks: z.object({
      available: z.boolean(),
      endpoints: z.number().int(),
      deliveriesLast24Hours: z.number().int(),
      failedLast24Hours: z.number().int(),
    }),
  })
  .meta({ id: 'Diagnostics' });

export const usageRoutes: V1Routes = async (app, deps) => {
  app.get(
    '/diagnostics',
    {
      config: { scope: 'usage.read' },
      schema: {
        operationId: 'getDiagnostics',
        summary: 'Counters for recent requests, rate limits, OAuth clients and webhooks',
        tags: ['organization'],
        response: { 200: DiagnosticsResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => diagnostics({ ...request.services, config: deps.config }, principalOf(request)),
  );

  app.get(
    '/usage',
    {
      config: { scope: 'usage.read' },
      schema: {
        operationId: 'getUsage',
        summary: 'Usage, quota and plan data (billing summary)',
        tags: ['organization'],
        response: { 200: UsageResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => ({
      ...(await usageSummary(request.services, principalOf(request).organizationId)),
      // A suspended or deleted organization's tokens are refused before any route runs (api/auth/bearer-auth.ts),
      // so this route only ever answers for an active one: its contract keeps `active`.
      subscriptionStatus: 'active' as const,
    }),
  );
};

// GET /api/v1/usage: the billing summary (plan limits, remaining quota).
import { z } from 'zod';
import { principalOf } from '../../auth/principal.ts';
import { usageSummary } from '../../services/usage/usage-summary.ts';
import { ERROR_RESPONSES, IsoDateTime } from './schemas.ts';
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
    remainingEnvelopeQuota: limit,
    remainingSmsCredits: z.number().int(),
  })
  .meta({ id: 'Usage' });

export const usageRoutes: V1Routes = async (app, deps) => {
  app.get(
    '/usage',
    {
      config: { scope: 'usage.read' },
      schema: {
        summary: 'Usage, quota and plan data (billing summary)',
        tags: ['organization'],
        response: { 200: UsageResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => usageSummary(deps, principalOf(request).organizationId),
  );
};

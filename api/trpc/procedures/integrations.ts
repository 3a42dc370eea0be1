// The Integrations area's diagnostics (docs/integrations.md, "Diagnostics"): per API key and per webhook
// endpoint, what happened over the last 24 hours and 7 days. Reading needs integrations:read.
import { IntegrationsDiagnostics } from '../../../domain/integrations.ts';
import { integrationsDiagnostics } from '../../../services/usage/integrations-diagnostics.ts';
import { areaRoute, principalOf, procedure, router } from '../init.ts';

const route = areaRoute('integrations');

export const integrationsRouter = router({
  diagnostics: procedure
    .meta(
      route('GET', '/api/integrations/diagnostics', {
        summary: 'Requests per API key and webhook deliveries per endpoint, last 24 hours and 7 days',
        description:
          'Per API key: requests to /api/v1, errors (4xx and 5xx answers), rate-limit refusals (429) and the ' +
          'error rate (null without requests), its last use and its rate-limit state now; their totals. Per ' +
          'webhook endpoint: deliveries succeeded, failed and pending, counted by when they were queued, and ' +
          'the success rate succeeded / (succeeded + failed), null when none has finished; their totals. And ' +
          'the latest failed deliveries of the last 7 days.',
        access: 'integrations:read',
      }),
    )
    .output(IntegrationsDiagnostics)
    .query(({ ctx }) => integrationsDiagnostics(ctx.services, principalOf(ctx).organization.id)),
});

// /api/v1/sandbox: the lifecycle simulations of sandbox mode. Each moves one of the organization's synthetic
// envelopes (created with `X-Service-Sandbox: true`) to a final status. They act on synthetic envelopes only,
// with or without the header; a production envelope's id is as unknown here as another organization's (404).
import { EnvelopeView } from '../../../domain/envelope.ts';
import {
  SIMULATED_STATUSES,
  type SimulatedStatus,
  simulateSandboxEnvelope,
} from '../../../services/sandbox/sandbox-envelopes.ts';
import { principalOf } from '../../auth/principal.ts';
import { ERROR_RESPONSES, UuidParam } from './schemas.ts';
import type { V1Routes } from './types.ts';

const OUTCOMES: Record<SimulatedStatus, string> = {
  Completed:
    'every acting (non-Cc) recipient Completed, `completedAt` set, and `finalPdfFileId` and `auditTrailFileId` ' +
    'set to fixed synthetic ids (the sandbox downloads then return sample PDFs)',
  Declined: 'the recipient in turn Declined',
  Expired: 'every recipient who had not completed Expired',
  Cancelled: 'every recipient who had not completed Cancelled',
};

export const sandboxRoutes: V1Routes = async (app) => {
  for (const status of SIMULATED_STATUSES) {
    app.post(
      `/sandbox/envelopes/:id/${status}`,
      {
        config: { scope: 'envelopes.write', idempotent: true, sandboxOnly: true },
        schema: {
          operationId: `simulateEnvelope${status}`,
          summary: `Sandbox: simulate the envelope becoming ${status}`,
          description:
            `Moves a sent synthetic envelope to ${status}: ${OUTCOMES[status]}. Synthetic envelopes only, with or ` +
            'without `X-Service-Sandbox`: a production or unknown id is 404; a Draft or an envelope already ' +
            'finished is 409 naming its state; 403 when sandbox is not enabled on the server. No body; ' +
            'honours Idempotency-Key. Queues no webhook.',
          tags: ['sandbox'],
          params: UuidParam,
          response: { 200: EnvelopeView, ...ERROR_RESPONSES },
        },
      },
      async (request) =>
        simulateSandboxEnvelope(
          request.services,
          principalOf(request).organizationId,
          request.params.id,
          status,
        ),
    );
  }
};

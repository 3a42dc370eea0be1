// POST /api/callbacks/twilio/status/{notificationId}: Twilio's status callbacks of the SMS and WhatsApp messages
// Sigil sends (docs/notifications.md "Bounces and carrier failures"). Public (Twilio calls it), so every request
// must carry a valid X-Twilio-Signature (services/delivery-reports/record-twilio-status.ts); anything else is
// 403 and changes nothing. Answers 204. Not in the OpenAPI documents: only Twilio calls it.
import formbody from '@fastify/formbody';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { TWILIO_STATUS_CALLBACK_PATH } from '../../notifications/status-callback.ts';
import { recordTwilioStatus } from '../../services/delivery-reports/record-twilio-status.ts';
import type { AppDependencies } from '../dependencies.ts';

export const twilioStatusRoutes: FastifyPluginAsyncZod<AppDependencies> = async (app, deps) => {
  // Twilio posts application/x-www-form-urlencoded: the parser applies to this plugin's scope only.
  await app.register(formbody);
  app.post(
    TWILIO_STATUS_CALLBACK_PATH,
    // The body is not validated here: the signature is checked first, over exactly what was posted.
    { schema: { hide: true, params: z.object({ notificationId: z.uuid() }) } },
    async (request, reply) => {
      const header = request.headers['x-twilio-signature'];
      await recordTwilioStatus(request.services, {
        notificationId: request.params.notificationId,
        url: `${deps.config.publicBaseUrl}${request.url}`,
        signature: typeof header === 'string' ? header : undefined,
        params: formFields(request.body),
      });
      return reply.status(204).send();
    },
  );
};

/** The posted form's fields (Twilio sends each once, as text); anything else has none. */
function formFields(body: unknown): Record<string, string> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return {};
  return Object.fromEntries(
    Object.entries(body).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

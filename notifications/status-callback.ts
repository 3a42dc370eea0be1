// Where Twilio reports what became of an SMS or WhatsApp message (its `StatusCallback`): a route of the API
// process under PUBLIC_BASE_URL that names the message's notification (api/routes/twilio-status.ts). Built by
// the sendNotification activity, served by the API.

/** The route's path, in Fastify's syntax. */
export const TWILIO_STATUS_CALLBACK_PATH = '/api/callbacks/twilio/status/:notificationId';

/** The StatusCallback URL of one message. */
export function twilioStatusCallbackUrl(publicBaseUrl: string, notificationId: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${TWILIO_STATUS_CALLBACK_PATH.replace(':notificationId', notificationId)}`;
}

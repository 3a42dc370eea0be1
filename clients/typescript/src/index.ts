// @sigil/client: a TypeScript client for Sigil's public API v1 (docs/clients.md).
export {
  type EnvelopeIterable,
  type IdempotentCall,
  SigilClient,
  type SigilClientOptions,
} from './client.ts';
export { SigilConnectionError, SigilError, type SigilErrorDetail } from './errors.ts';
export type { paths } from './schema.d.ts';
export { DEFAULT_RETRY, type RetryPolicy } from './transport.ts';
export type * from './types.ts';
export {
  type EnvelopeCompletedData,
  type VerifyWebhookOptions,
  verifyWebhook,
  type WebhookEvent,
  type WebhookHeaders,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './webhooks.ts';

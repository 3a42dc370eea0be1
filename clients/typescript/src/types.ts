// The client's public types, each derived from the generated OpenAPI types (schema.d.ts) by route, so they follow
// the server's document: regenerate it (`npm run generate`) and these follow.
import type { paths } from './schema.d.ts';

type JsonContent<T> = T extends { content: { 'application/json': infer Body } } ? Body : never;
/** The JSON body an operation takes. */
type RequestOf<Op> = Op extends { requestBody?: infer Body } ? JsonContent<NonNullable<Body>> : never;
/** The JSON answer of an operation with the given status. */
type AnswerOf<Op, Status extends number> = Op extends { responses: { [S in Status]: infer R } }
  ? JsonContent<R>
  : never;
type QueryOf<Op> = Op extends { parameters: { query?: infer Query } } ? NonNullable<Query> : never;

export type Template = AnswerOf<paths['/api/v1/templates']['get'], 200>[number];
export type Envelope = AnswerOf<paths['/api/v1/envelopes/{id}']['get'], 200>;
export type EnvelopeStatus = Envelope['status'];
export type Recipient = Envelope['recipients'][number];
export type CreateEnvelopeRequest = RequestOf<paths['/api/v1/envelopes/from-template']['post']>;
export type CreateEnvelopeFromFileRequest = RequestOf<paths['/api/v1/envelopes/from-file']['post']>;
export type UploadedFile = AnswerOf<paths['/api/v1/files/upload']['post'], 201>;
export type CancelEnvelopeRequest = RequestOf<paths['/api/v1/envelopes/{id}/cancel']['post']>;
export type ExtendEnvelopeRequest = RequestOf<paths['/api/v1/envelopes/{id}/extend']['post']>;
export type EnvelopeListPage = AnswerOf<paths['/api/v1/envelopes']['get'], 200>;
type ServerEnvelopeListQuery = QueryOf<paths['/api/v1/envelopes']['get']>;
/**
 * Filters of `envelopes.list`: the server's query parameters, with `status` as a list (sent comma-separated) and
 * `limit` the page size; the cursor is the iterator's business.
 */
export type EnvelopeListQuery = Omit<ServerEnvelopeListQuery, 'status' | 'cursor'> & {
  status?: EnvelopeStatus | EnvelopeStatus[];
};

export type WebhookEndpointList = AnswerOf<paths['/api/v1/webhooks']['get'], 200>;
export type WebhookEndpointWithSecret = AnswerOf<paths['/api/v1/webhooks']['post'], 201>;
export type WebhookEndpoint = AnswerOf<paths['/api/v1/webhooks/{id}']['put'], 200>;
export type CreateWebhookEndpointRequest = RequestOf<paths['/api/v1/webhooks']['post']>;
export type UpdateWebhookEndpointRequest = RequestOf<paths['/api/v1/webhooks/{id}']['put']>;
export type WebhookEndpointDeleted = AnswerOf<paths['/api/v1/webhooks/{id}']['delete'], 200>;
export type WebhookDeliveryList = AnswerOf<paths['/api/v1/webhooks/deliveries']['get'], 200>;
export type WebhookDeliveryListQuery = QueryOf<paths['/api/v1/webhooks/deliveries']['get']>;
export type WebhookDelivery = AnswerOf<paths['/api/v1/webhooks/deliveries/{id}']['get'], 200>;
export type QueuedWebhookDelivery = AnswerOf<paths['/api/v1/webhooks/{id}/test']['post'], 202>;
/** The event names an endpoint may subscribe to (and a delivery's `type`). */
export type WebhookEventType = NonNullable<CreateWebhookEndpointRequest['eventTypes']>[number];

/** The specification's error body: `{ error: { code, message, details, request_id } }`. */
export type ErrorBody = AnswerOf<paths['/api/v1/envelopes/{id}']['get'], 400>;

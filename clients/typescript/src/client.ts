// SigilClient: the public API v1's main operations, typed from the OpenAPI document, on openapi-fetch. Every call
// goes through the Transport (token, sandbox header, retries); a POST the server makes idempotent carries one
// Idempotency-Key per logical call (the caller's, or a new UUID), which every retry of that call repeats.
import createClient from 'openapi-fetch';
import { SigilError } from './errors.ts';
import type { paths } from './schema.d.ts';
import { type RetryPolicy, Transport } from './transport.ts';
import type {
  CancelEnvelopeRequest,
  CreateEnvelopeFromFileRequest,
  CreateEnvelopeRequest,
  CreateWebhookEndpointRequest,
  Envelope,
  EnvelopeListPage,
  EnvelopeListQuery,
  ExtendEnvelopeRequest,
  QueuedWebhookDelivery,
  Template,
  UpdateWebhookEndpointRequest,
  UploadedFile,
  WebhookDelivery,
  WebhookDeliveryList,
  WebhookDeliveryListQuery,
  WebhookEndpoint,
  WebhookEndpointDeleted,
  WebhookEndpointList,
  WebhookEndpointWithSecret,
} from './types.ts';

export interface SigilClientOptions {
  /** The server's base URL, e.g. `https://sigil.example.com`. */
  baseUrl: string;
  /** The OAuth client's id and secret (HTTP Basic at POST /oauth/token). */
  clientId: string;
  clientSecret: string;
  /** Scopes to request (absent: every scope the client is allowed). */
  scopes?: string[];
  /** Sandbox mode: every /api/v1 request carries `X-Service-Sandbox: true`. */
  sandbox?: boolean;
  retry?: Partial<RetryPolicy>;
  /** Renew the token this many seconds before it expires (default 60). */
  renewBeforeExpirySeconds?: number;
  /** The fetch to send requests with (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

/** Options of an operation the server makes idempotent. */
export interface IdempotentCall {
  /** The Idempotency-Key (1–255 printable ASCII); absent: a new UUID for this call, reused by its retries. */
  idempotencyKey?: string;
}

/** The envelopes of a list, one at a time across pages (`for await`), or a page at a time (`pages()`). */
export interface EnvelopeIterable extends AsyncIterable<Envelope> {
  pages(): AsyncIterable<EnvelopeListPage>;
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The data of a successful answer; the answer's error as a SigilError otherwise. */
function dataOf<T>({ data, error, response }: Answer<T>): T {
  if (!response.ok || error !== undefined) throw SigilError.fromAnswer(response, error);
  return data as T;
}

function keyed(call: IdempotentCall | undefined): { 'Idempotency-Key': string } {
  return { 'Idempotency-Key': call?.idempotencyKey ?? crypto.randomUUID() };
}

export class SigilClient {
  private readonly transport: Transport;
  private readonly api;

  constructor(options: SigilClientOptions) {
    this.transport = new Transport(options);
    this.api = createClient<paths>({ baseUrl: this.transport.baseUrl, fetch: this.transport.fetch });
  }

  readonly templates = {
    list: async (): Promise<Template[]> => dataOf(await this.api.GET('/api/v1/templates')),
    get: async (id: string): Promise<Template> =>
      dataOf(await this.api.GET('/api/v1/templates/{id}', { params: { path: { id } } })),
  };

  readonly files = {
    /** POST /api/v1/files/upload: a PDF (bytes or a Blob) as the multipart part `file`, named `name`. */
    upload: async (file: Uint8Array | Blob, name: string, call?: IdempotentCall): Promise<UploadedFile> => {
      const form = new FormData();
      const blob =
        file instanceof Blob
          ? file
          : new Blob([file as Uint8Array<ArrayBuffer>], { type: 'application/pdf' });
      form.append('file', blob, name);
      return dataOf(
        await this.api.POST('/api/v1/files/upload', {
          body: { file: name },
          // openapi-fetch sends what the serializer returns: the form with the file's bytes.
          bodySerializer: () => form,
          headers: keyed(call),
        }),
      );
    },
  };

  readonly envelopes = {
    /** POST /api/v1/envelopes/from-template: a Draft. */
    create: async (body: CreateEnvelopeRequest, call?: IdempotentCall): Promise<Envelope> =>
      dataOf(await this.api.POST('/api/v1/envelopes/from-template', { body, headers: keyed(call) })),
    /** POST /api/v1/envelopes/from-file: a Draft from an uploaded PDF (`files.upload`) and the fields placed on it. */
    createFromFile: async (body: CreateEnvelopeFromFileRequest, call?: IdempotentCall): Promise<Envelope> =>
      dataOf(await this.api.POST('/api/v1/envelopes/from-file', { body, headers: keyed(call) })),
    get: async (id: string): Promise<Envelope> =>
      dataOf(await this.api.GET('/api/v1/envelopes/{id}', { params: { path: { id } } })),
    /** The most recent envelope with this reference (`list({ externalReference })` gives every one). */
    byExternalReference: async (externalReference: string): Promise<Envelope> =>
      dataOf(
        await this.api.GET('/api/v1/envelopes/by-external-reference/{externalReference}', {
          params: { path: { externalReference } },
        }),
      ),
    /** Every envelope matching the filters, fetching the next page as iteration reaches it. */
    list: (query: EnvelopeListQuery = {}): EnvelopeIterable => {
      const pages = () => this.envelopePages(query);
      return {
        pages,
        async *[Symbol.asyncIterator]() {
          for await (const page of pages()) yield* page.items;
        },
      };
    },
    send: async (id: string, call?: IdempotentCall): Promise<Envelope> =>
      dataOf(
        await this.api.POST('/api/v1/envelopes/{id}/send', {
          params: { path: { id } },
          headers: keyed(call),
        }),
      ),
    cancel: async (id: string, body: CancelEnvelopeRequest = {}, call?: IdempotentCall): Promise<Envelope> =>
      dataOf(
        await this.api.POST('/api/v1/envelopes/{id}/cancel', {
          params: { path: { id } },
          body,
          headers: keyed(call),
        }),
      ),
    remind: async (id: string, call?: IdempotentCall): Promise<Envelope> =>
      dataOf(
        await this.api.POST('/api/v1/envelopes/{id}/remind', {
          params: { path: { id } },
          headers: keyed(call),
        }),
      ),
    extend: async (id: string, body: ExtendEnvelopeRequest, call?: IdempotentCall): Promise<Envelope> =>
      dataOf(
        await this.api.POST('/api/v1/envelopes/{id}/extend', {
          params: { path: { id } },
          body,
          headers: keyed(call),
        }),
      ),
    /** The envelope's PDFs as bytes: 404 (`SigilError`) until the final PDF and the audit trail exist. */
    documents: {
      original: (id: string) => this.download('/api/v1/envelopes/{id}/documents/original', id),
      finalPdf: (id: string) => this.download('/api/v1/envelopes/{id}/documents/final-pdf', id),
      auditTrail: (id: string) => this.download('/api/v1/envelopes/{id}/documents/audit-trail', id),
    },
  };

  readonly webhooks = {
    list: async (): Promise<WebhookEndpointList> => dataOf(await this.api.GET('/api/v1/webhooks')),
    /** A new endpoint with its `secret`, shown only in this answer. Not idempotent: not retried after a lost answer. */
    create: async (body: CreateWebhookEndpointRequest): Promise<WebhookEndpointWithSecret> =>
      dataOf(await this.api.POST('/api/v1/webhooks', { body })),
    update: async (id: string, body: UpdateWebhookEndpointRequest): Promise<WebhookEndpoint> =>
      dataOf(await this.api.PUT('/api/v1/webhooks/{id}', { params: { path: { id } }, body })),
    delete: async (id: string): Promise<WebhookEndpointDeleted> =>
      dataOf(await this.api.DELETE('/api/v1/webhooks/{id}', { params: { path: { id } } })),
    /** A new secret (shown only here); the previous one keeps signing during the grace period. */
    rotateSecret: async (id: string): Promise<WebhookEndpointWithSecret> =>
      dataOf(await this.api.POST('/api/v1/webhooks/{id}/secret/rotate', { params: { path: { id } } })),
    /** Queues a signed sample `envelope.completed` delivery to the endpoint. */
    test: async (id: string, call?: IdempotentCall): Promise<QueuedWebhookDelivery> =>
      dataOf(
        await this.api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id } }, headers: keyed(call) }),
      ),
    deliveries: {
      list: async (query: WebhookDeliveryListQuery = {}): Promise<WebhookDeliveryList> =>
        dataOf(await this.api.GET('/api/v1/webhooks/deliveries', { params: { query } })),
      get: async (id: string): Promise<WebhookDelivery> =>
        dataOf(await this.api.GET('/api/v1/webhooks/deliveries/{id}', { params: { path: { id } } })),
      replay: async (id: string, call?: IdempotentCall): Promise<QueuedWebhookDelivery> =>
        dataOf(
          await this.api.POST('/api/v1/webhooks/deliveries/{id}/replay', {
            params: { path: { id } },
            headers: keyed(call),
          }),
        ),
    },
  };

  private async *envelopePages(query: EnvelopeListQuery): AsyncGenerator<EnvelopeListPage> {
    const { status, ...filters } = query;
    const statuses = status === undefined ? undefined : ([] as string[]).concat(status).join(',');
    let cursor: string | undefined;
    do {
      const page: EnvelopeListPage = dataOf(
        await this.api.GET('/api/v1/envelopes', {
          params: {
            query: {
              ...filters,
              ...(statuses ? { status: statuses } : {}),
              ...(cursor ? { cursor } : {}),
            },
          },
        }),
      );
      yield page;
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }

  private async download(
    path:
      | '/api/v1/envelopes/{id}/documents/original'
      | '/api/v1/envelopes/{id}/documents/final-pdf'
      | '/api/v1/envelopes/{id}/documents/audit-trail',
    id: string,
  ): Promise<Uint8Array> {
    const answer = await this.api.GET(path, { params: { path: { id } }, parseAs: 'arrayBuffer' });
    return new Uint8Array(dataOf(answer) as ArrayBuffer);
  }
}

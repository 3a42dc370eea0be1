// The chaos run's client: an integrator that drives two-signer envelopes through the public API and the signer
// API the careful way. Every request is repeated until it gets an answer that settles it — after a network
// error or a timeout, a 5xx (503 waits its Retry-After), 429 (its Retry-After) and 409
// `idempotency_request_in_progress` (wait, then the same key and the same body) — and every request that
// changes something and takes an Idempotency-Key carries one key per operation, the same on every attempt.
// Each attempt is recorded, so the run can tell how long after a fault each kind of request worked again.

import { setTimeout as sleep } from 'node:timers/promises';
import { rgbaPng } from '../abuse/payloads.ts';

/** The kinds of requests the run times separately. */
export const REQUEST_KINDS = ['create', 'send', 'link', 'view', 'save', 'complete', 'read', 'token'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

export interface Attempt {
  kind: RequestKind;
  startedAt: number;
  endedAt: number;
  /** HTTP status, or null when no answer came (network error or client timeout). */
  status: number | null;
  /** The error body's code, or the network error's. */
  code: string | null;
  /** Whether this attempt settled the request (success or a final answer), as opposed to one to retry. */
  settled: boolean;
}

export interface IntegratorOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** A request without an answer this long is abandoned and repeated (a hang). */
  requestTimeoutMs: number;
  /** A request still not settled after this long fails the envelope. */
  giveUpAfterMs: number;
  /** Called before every attempt, so the run can pause the client (it never needs to). */
  onAttempt: (attempt: Attempt) => void;
}

export interface Answer {
  status: number;
  body: unknown;
}

interface RequestSpec {
  kind: RequestKind;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
  /** Public API requests carry the bearer token. */
  bearer?: boolean;
  idempotencyKey?: string;
  /** Statuses that settle the request besides 2xx (for example 409 where the caller decides). */
  accept?: number[];
  /** The answer's body as bytes (a PDF download), not parsed. */
  binary?: boolean;
  /** A body of bytes sent as is with this content type (a PDF to verify). */
  bytes?: { contentType: string; body: Uint8Array };
}

export class RequestFailed extends Error {}

function codeOf(body: unknown): string | null {
  const error = (body as { error?: { code?: unknown } } | null)?.error;
  return typeof error?.code === 'string' ? error.code : null;
}

function networkCode(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return 'timeout';
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  return typeof cause?.code === 'string' ? cause.code : 'network_error';
}

export class CarefulIntegrator {
  private token: string | undefined;
  private tokenPromise: Promise<string> | undefined;
  private readonly options: IntegratorOptions;

  constructor(options: IntegratorOptions) {
    this.options = options;
  }

  private async accessToken(): Promise<string> {
    if (this.token) return this.token;
    this.tokenPromise ??= this.fetchToken().finally(() => {
      this.tokenPromise = undefined;
    });
    return this.tokenPromise;
  }

  private async fetchToken(): Promise<string> {
    const basic = Buffer.from(`${this.options.clientId}:${this.options.clientSecret}`).toString('base64');
    const answer = await this.request({
      kind: 'token',
      method: 'POST',
      path: '/oauth/token',
      body: 'grant_type=client_credentials',
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    });
    const token = (answer.body as { access_token?: string }).access_token;
    if (!token) throw new RequestFailed('the token endpoint answered without an access_token');
    this.token = token;
    return token;
  }

  /** One request, repeated until it settles; throws RequestFailed on an answer nobody should retry. */
  async call(spec: RequestSpec): Promise<Answer> {
    return this.request({ ...spec, headers: {} });
  }

  private async request(spec: RequestSpec & { headers: Record<string, string> }): Promise<Answer> {
    const started = Date.now();
    let backoffMs = 200;
    for (;;) {
      if (Date.now() - started > this.options.giveUpAfterMs) {
        throw new RequestFailed(
          `${spec.method} ${spec.path} (${spec.kind}) did not succeed within ${this.options.giveUpAfterMs / 1000} s`,
        );
      }
      const headers: Record<string, string> = { 'user-agent': 'sigil-chaos', ...spec.headers };
      if (spec.bearer) headers.authorization = `Bearer ${await this.accessToken()}`;
      if (spec.idempotencyKey) headers['idempotency-key'] = spec.idempotencyKey;
      let payload: string | Uint8Array | undefined;
      if (spec.bytes) {
        payload = spec.bytes.body;
        headers['content-type'] = spec.bytes.contentType;
      } else if (typeof spec.body === 'string') payload = spec.body;
      else if (spec.body !== undefined) {
        payload = JSON.stringify(spec.body);
        headers['content-type'] = 'application/json';
      }
      const startedAt = Date.now();
      let status: number | null = null;
      let body: unknown = null;
      let retryAfterMs: number | undefined;
      let code: string | null = null;
      try {
        const response = await fetch(`${this.options.baseUrl}${spec.path}`, {
          method: spec.method,
          headers,
          ...(payload === undefined ? {} : { body: payload }),
          signal: AbortSignal.timeout(this.options.requestTimeoutMs),
        });
        status = response.status;
        const binary = spec.binary === true && response.ok;
        const text = binary ? '' : await response.text();
        if (binary) body = Buffer.from(await response.arrayBuffer());
        else {
          try {
            body = text === '' ? null : JSON.parse(text);
          } catch {
            body = text;
          }
        }
        code = codeOf(body);
        const retryAfter = Number(response.headers.get('retry-after'));
        if (Number.isFinite(retryAfter) && retryAfter > 0) retryAfterMs = retryAfter * 1000;
      } catch (error) {
        code = networkCode(error);
      }
      const retry =
        status === null ||
        status >= 500 ||
        status === 429 ||
        (status === 409 && code === 'idempotency_request_in_progress') ||
        (status === 401 && spec.bearer === true);
      const settled = !retry;
      this.options.onAttempt({ kind: spec.kind, startedAt, endedAt: Date.now(), status, code, settled });
      if (settled) {
        if (status !== null && ((status >= 200 && status < 300) || spec.accept?.includes(status))) {
          return { status, body };
        }
        throw new RequestFailed(
          `${spec.method} ${spec.path} (${spec.kind}) answered ${status}: ${JSON.stringify(body).slice(0, 400)}`,
        );
      }
      if (status === 401) this.token = undefined;
      // Retry-After when the server gave one (capped: a run should not sleep a minute on a 429), otherwise
      // a growing pause: 0.2 s, 0.4 s … 2 s.
      const waitMs = retryAfterMs !== undefined ? Math.min(retryAfterMs, 5000) : backoffMs;
      backoffMs = Math.min(backoffMs * 2, 2000);
      await sleep(waitMs);
    }
  }
}

/** An 8-bit RGBA PNG: a wavy stroke, like a drawn signature (the signature field takes a PNG). */
export function signaturePng(width = 120, height = 40): Buffer {
  return rgbaPng(width, height, 8, (x, y) =>
    Math.abs(y - height / 2 - Math.sin(x / 9) * 6) < 2 ? [15, 25, 110, 255] : undefined,
  );
}

export interface EnvelopePlan {
  index: number;
  externalReference: string;
  templateId: string;
  signers: { roleName: string; fullName: string }[];
}

export interface EnvelopeProgress {
  externalReference: string;
  envelopeId?: string;
  createdAt?: number;
  sentAt?: number;
  signedAt: number[];
  /** Set when the envelope could not be driven to its last signature. */
  failure?: string;
}

interface RecipientAnswer {
  id: string;
  roleName: string;
}

interface SigningViewAnswer {
  state: string;
  fields: { fieldDefinitionId: string; type: string }[];
}

/**
 * Drives one envelope from creation to its last signature: create and send with Idempotency-Keys, then for
 * each signer in turn a signing link (Api recipients), the signer's view, a save of every field (the
 * signature as a PNG) and complete. Finalization is the worker's; the run waits for it at the end.
 */
export async function driveEnvelope(
  client: CarefulIntegrator,
  plan: EnvelopePlan,
  progress: EnvelopeProgress,
  onStep: () => void,
): Promise<void> {
  const { externalReference } = plan;
  const created = await client.call({
    kind: 'create',
    method: 'POST',
    path: '/api/v1/envelopes/from-template',
    bearer: true,
    idempotencyKey: `${externalReference}/create`,
    body: {
      title: `Chaos envelope ${plan.index + 1}`,
      workflowType: 'Sequential',
      templateId: plan.templateId,
      externalReference,
      externalSystem: 'sigil-chaos',
      recipients: plan.signers.map((signer, order) => ({
        roleName: signer.roleName,
        fullName: signer.fullName,
        email: `signer${order + 1}.${plan.index + 1}@chaos.example`,
        deliveryChannel: 'Api',
        signingOrder: order + 1,
      })),
    },
  });
  const envelope = created.body as { id: string; recipients: RecipientAnswer[] };
  progress.envelopeId = envelope.id;
  progress.createdAt = Date.now();
  onStep();

  await client.call({
    kind: 'send',
    method: 'POST',
    path: `/api/v1/envelopes/${envelope.id}/send`,
    bearer: true,
    idempotencyKey: `${externalReference}/send`,
  });
  progress.sentAt = Date.now();
  onStep();

  const signature = signaturePng().toString('base64');
  for (const signer of plan.signers) {
    const recipient = envelope.recipients.find((r) => r.roleName === signer.roleName);
    if (!recipient) throw new RequestFailed(`envelope ${envelope.id} has no ${signer.roleName}`);
    await sign(client, envelope.id, recipient.id, signer.fullName, signature);
    progress.signedAt.push(Date.now());
    onStep();
  }
}

const SETTLED_STATES = new Set(['completed', 'finalizing']);

/**
 * What a signer named `name` enters in their fields: the name in Full name fields, a drawn signature (the PNG
 * `signatureBase64`) typed with that name, a date; other fields are left as they are.
 */
export function signerValues(
  fields: readonly { fieldDefinitionId: string; type: string }[],
  name: string,
  signatureBase64: string,
): { fieldDefinitionId: string; value: unknown }[] {
  return fields.flatMap((field): { fieldDefinitionId: string; value: unknown }[] => {
    if (field.type === 'Full name') return [{ fieldDefinitionId: field.fieldDefinitionId, value: name }];
    if (field.type === 'Signature') {
      return [
        {
          fieldDefinitionId: field.fieldDefinitionId,
          value: { imagePngBase64: signatureBase64, typedName: name },
        },
      ];
    }
    if (field.type === 'Date') return [{ fieldDefinitionId: field.fieldDefinitionId, value: '2026-01-15' }];
    return [];
  });
}

async function sign(
  client: CarefulIntegrator,
  envelopeId: string,
  recipientId: string,
  name: string,
  signatureBase64: string,
): Promise<void> {
  // The loop covers the answers a crash can leave behind: a link revoked by a newer one, a view that is not
  // yet in turn while the previous signer's completion is being recorded, a complete whose first attempt
  // was applied but never answered.
  const deadline = Date.now() + 5 * 60_000;
  while (Date.now() < deadline) {
    const link = await client.call({
      kind: 'link',
      method: 'POST',
      path: `/api/v1/envelopes/${envelopeId}/recipients/${recipientId}/signing-link`,
      bearer: true,
    });
    const token = String((link.body as { url: string }).url).split('/sign/')[1] ?? '';
    const signing = `/api/signing/${token}`;
    const view = (await client.call({ kind: 'view', method: 'GET', path: signing }))
      .body as SigningViewAnswer;
    if (SETTLED_STATES.has(view.state)) return;
    if (view.state === 'not_in_turn') {
      await sleep(250);
      continue;
    }
    if (view.state !== 'ready') throw new RequestFailed(`${name}'s link on ${envelopeId} is ${view.state}`);
    const values = signerValues(view.fields, name, signatureBase64);
    if (values.length > 0) {
      const saved = await client.call({
        kind: 'save',
        method: 'PUT',
        path: `${signing}/fields`,
        body: { values },
        accept: [409],
      });
      if (saved.status === 409) continue;
    }
    const completed = await client.call({
      kind: 'complete',
      method: 'POST',
      path: `${signing}/complete`,
      body: { consent: true },
      accept: [409],
    });
    if (completed.status < 300) return;
    // 409: perhaps an earlier attempt of this complete was applied; the next round's view tells.
    await sleep(250);
  }
  throw new RequestFailed(`${name} on envelope ${envelopeId} could not complete within 5 minutes`);
}

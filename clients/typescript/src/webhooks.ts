// verifyWebhook: checks a delivery as the specification's signature rule says — `X-Service-Signature` (and,
// during a rotation's grace period, `X-Service-Signature-Previous`) is `sha256=` and the lowercase hex
// HMAC-SHA256 of `<X-Service-Timestamp>.<raw body>` keyed with the endpoint secret — compared in constant time
// against every secret given (the new and the old one while rotating), refuses a timestamp outside the
// tolerance window, and answers the parsed, typed event.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { EnvelopeStatus, WebhookEventType } from './types.ts';

/** `data` of `envelope.completed`, as the specification lists it (a test delivery adds `test: true`). */
export interface EnvelopeCompletedData {
  envelope_id: string;
  status: EnvelopeStatus;
  external_reference: string | null;
  test?: boolean;
  [key: string]: unknown;
}

interface EventBase<Type extends WebhookEventType, Data> {
  /** The event's id: a delivery and its replays share it. */
  id: string;
  type: Type;
  created_at: string;
  data: Data;
}

/** An event as a delivery's body holds it: `data` typed where the specification shows it. */
export type WebhookEvent =
  | EventBase<'envelope.completed', EnvelopeCompletedData>
  | EventBase<Exclude<WebhookEventType, 'envelope.completed'>, Record<string, unknown>>;

export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | { get(name: string): string | null };

export interface VerifyWebhookOptions {
  /** The endpoint's secret, or several (during a rotation: the new and the old one). */
  secret: string | string[];
  /** The request's headers (Fetch `Headers`, or Node's `req.headers`). */
  headers: WebhookHeaders;
  /** The raw body exactly as received, before any JSON parsing. */
  body: string | Uint8Array;
  /** The replay window: a timestamp further than this from now is refused (default 300 seconds). */
  toleranceSeconds?: number;
  /** The current time in epoch milliseconds (default: Date.now()). */
  now?: number;
}

export type WebhookVerificationReason =
  | 'missing_headers'
  | 'timestamp_outside_tolerance'
  | 'signature_mismatch'
  | 'invalid_payload';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;
  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : value;
}

function signatureMatches(secret: string, timestamp: string, body: Uint8Array, signature: string): boolean {
  const hex = /^sha256=([0-9a-f]{64})$/.exec(signature)?.[1];
  if (!hex) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(body).digest();
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'));
}

/** The delivery's event, once its signature and timestamp check out; a WebhookVerificationError otherwise. */
export function verifyWebhook(options: VerifyWebhookOptions): WebhookEvent {
  const secrets = ([] as string[]).concat(options.secret).filter((secret) => secret !== '');
  if (secrets.length === 0) throw new TypeError('verifyWebhook needs at least one non-empty secret');
  const timestamp = header(options.headers, 'x-service-timestamp');
  const signatures = [
    header(options.headers, 'x-service-signature'),
    header(options.headers, 'x-service-signature-previous'),
  ].filter((value): value is string => value !== undefined);
  if (!timestamp || signatures.length === 0) {
    throw new WebhookVerificationError(
      'missing_headers',
      'X-Service-Timestamp or X-Service-Signature is missing',
    );
  }
  const tolerance = options.toleranceSeconds ?? 300;
  const now = (options.now ?? Date.now()) / 1000;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_outside_tolerance',
      `X-Service-Timestamp ${timestamp} is more than ${tolerance} s from now`,
    );
  }
  const body = typeof options.body === 'string' ? Buffer.from(options.body, 'utf8') : options.body;
  // Every signature against every secret, without stopping early: the time taken says nothing about which matched.
  let authentic = false;
  for (const secret of secrets) {
    for (const signature of signatures) {
      if (signatureMatches(secret, timestamp, body, signature)) authentic = true;
    }
  }
  if (!authentic) {
    throw new WebhookVerificationError('signature_mismatch', 'no signature matches the given secrets');
  }
  let event: unknown;
  try {
    event = JSON.parse(Buffer.from(body).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_payload', 'the body is not JSON');
  }
  const shape = event as Partial<WebhookEvent> | null;
  if (
    typeof shape?.id !== 'string' ||
    typeof shape.type !== 'string' ||
    typeof shape.created_at !== 'string' ||
    typeof shape.data !== 'object'
  ) {
    throw new WebhookVerificationError('invalid_payload', 'the body is not a webhook event');
  }
  return event as WebhookEvent;
}

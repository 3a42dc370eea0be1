// One attempt of a webhook delivery: POST the stored payload to the endpoint, signed, and record the
// outcome on the delivery row and in webhook_delivery_attempt. An HTTP failure (non-2xx, timeout, refused
// connection) is an outcome, not an error: the workflow decides whether and when to try again.
//
// Signature (specification, Signature rule): X-Service-Signature is `sha256=` + lowercase hex
// HMAC-SHA256(secret, `${X-Service-Timestamp}.${raw body}`). During the grace period after a rotation the
// previous secret signs too, in X-Service-Signature-Previous.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import type { SigilEnv } from '../config/config.ts';
import { privateTargetsAllowed, publicOnlyLookup, specialAddressReason } from '../config/outbound-targets.ts';
import type { Orm } from '../db/orm.ts';
import { WEBHOOK_MAX_ATTEMPTS } from '../workflows/webhook-contracts.ts';

export interface WebhookDeliverySettings {
  /** Whether deliveries may reach loopback and private networks (development and test only). */
  allowPrivateTargets: boolean;
  /** Time limit of one HTTP attempt: connecting, sending and receiving the response status. */
  attemptTimeoutMs: number;
  /**
   * The workflow's retry schedule is multiplied by this before each wait: 1 in production, where the
   * documented schedule holds; WEBHOOK_RETRY_DELAY_SCALE elsewhere, so tests and the chaos run see retries
   * within seconds.
   */
  retryDelayScale: number;
  /**
   * Attempts this worker process makes to one endpoint at once. One more finds the endpoint busy and is
   * retried by Temporal a moment later (an activity retry, without holding an activity slot meanwhile), so a
   * slow receiver holds at most this many of the worker's slots and cannot starve the other endpoints.
   */
  maxConcurrentPerEndpoint: number;
}

/** The default of maxConcurrentPerEndpoint (WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT). */
export const WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT = 8;
/** How long an attempt that found its endpoint busy waits before Temporal tries it again (plus jitter). */
const BUSY_RETRY_MS = 250;
/** The failure type of an attempt that found its endpoint busy. */
export const ENDPOINT_BUSY = 'EndpointBusy';

export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 10_000;
/** Characters of a failed response's body kept in the delivery record. */
export const RESPONSE_EXCERPT_CHARS = 200;
const RESPONSE_READ_BYTES = 2048;
const USER_AGENT = 'Sigil-Webhooks/1';

/**
 * The settings of the worker process: private targets only in development and test, and the retry schedule
 * shortened by `retryDelayScale` (config.webhooks) only outside production.
 */
export function webhookDeliverySettings(
  env: SigilEnv,
  retryDelayScale = 1,
  maxConcurrentPerEndpoint = WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT,
): WebhookDeliverySettings {
  return {
    allowPrivateTargets: privateTargetsAllowed(env),
    attemptTimeoutMs: WEBHOOK_ATTEMPT_TIMEOUT_MS,
    retryDelayScale: env === 'production' ? 1 : retryDelayScale,
    maxConcurrentPerEndpoint,
  };
}

export interface AttemptWebhookDeliveryRequest {
  deliveryId: string;
  /** 1-based; the delivery's attempt count after this attempt. */
  attempt: number;
  /** The wait before the next attempt when this one fails; null when this is the last attempt. */
  retryDelayMs: number | null;
}

export interface AttemptWebhookDeliveryOutcome {
  /** `pending`: failed, another attempt follows; `gone`: the delivery or its endpoint no longer exists. */
  status: 'pending' | 'succeeded' | 'failed' | 'gone';
  statusCode: number | null;
  /**
   * With `pending`: how long the workflow waits before the next attempt, the request's `retryDelayMs` times
   * the worker's `retryDelayScale` (the delivery record's `next_attempt_at` says the same). Absent from
   * outcomes of older workers, whose workflows wait `retryDelayMs` itself.
   */
  retryDelayMs?: number;
}

/** `sha256=` + lowercase hex HMAC-SHA256 of `${timestamp}.${body}`. */
export function webhookSignature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

interface HttpResult {
  statusCode: number | null;
  /** Redacted: our own words, an error code, at most a short sanitized excerpt of the response. */
  error: string | null;
}

export function createWebhookActivities(deps: { orm: Orm; webhooks?: Partial<WebhookDeliverySettings> }) {
  const settings: WebhookDeliverySettings = {
    allowPrivateTargets: false,
    attemptTimeoutMs: WEBHOOK_ATTEMPT_TIMEOUT_MS,
    retryDelayScale: 1,
    maxConcurrentPerEndpoint: WEBHOOK_MAX_CONCURRENT_PER_ENDPOINT,
    ...deps.webhooks,
  };
  /** Attempts in flight per endpoint in this process. */
  const inFlight = new Map<string, number>();
  /** The wait after a failed attempt, as this worker's settings have it. */
  const waitAfter = (request: AttemptWebhookDeliveryRequest) =>
    request.retryDelayMs === null
      ? {}
      : { retryDelayMs: Math.round(request.retryDelayMs * settings.retryDelayScale) };
  // Connections are kept open between deliveries to the same host; the connect-time lookup refuses
  // special-purpose addresses unless private targets are allowed.
  const lookup = settings.allowPrivateTargets ? undefined : publicOnlyLookup;
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };

  async function post(url: string, body: string, headers: Record<string, string>, secrets: string[]) {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return { statusCode: null, error: 'The endpoint URL is not a valid URL.' };
    }
    if (target.protocol !== 'https:' && target.protocol !== 'http:') {
      return { statusCode: null, error: `Unsupported URL scheme ${target.protocol}` };
    }
    if (!settings.allowPrivateTargets) {
      if (target.protocol !== 'https:')
        return { statusCode: null, error: 'Refused: the URL must use https.' };
      const host = target.hostname.replace(/^\[|\]$/g, '');
      const reason = isIP(host) !== 0 ? specialAddressReason(host) : undefined;
      if (reason) return { statusCode: null, error: `Refused target: ${reason}.` };
    }
    return request(target, body, headers, secrets);
  }

  function request(
    target: URL,
    body: string,
    headers: Record<string, string>,
    secrets: string[],
  ): Promise<HttpResult> {
    const signal = AbortSignal.timeout(settings.attemptTimeoutMs);
    const client = target.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      const settle = (result: HttpResult) => {
        if (settled) return;
        settled = true;
        resolve(result);
      };
      const req = client.request(
        target,
        {
          method: 'POST',
          headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
          agent: agents[target.protocol as 'http:' | 'https:'],
          ...(lookup ? { lookup } : {}),
          signal,
        },
        (res) => {
          const statusCode = res.statusCode ?? 0;
          if (statusCode >= 200 && statusCode < 300) {
            // Acknowledged. The body is not needed: drain it so the connection can be reused.
            res.resume();
            res.on('error', () => {});
            settle({ statusCode, error: null });
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          const done = () =>
            settle({ statusCode, error: httpError(statusCode, Buffer.concat(chunks), secrets) });
          res.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            size += chunk.length;
            if (size >= RESPONSE_READ_BYTES) {
              done();
              res.destroy();
            }
          });
          res.on('end', done);
          res.on('error', done);
          res.on('close', done);
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => {
        settle({
          statusCode: null,
          error: signal.aborted
            ? `Timed out after ${settings.attemptTimeoutMs / 1000} s without a response.`
            : networkError(error),
        });
      });
      req.end(body);
    });
  }

  return {
    async attemptWebhookDelivery(
      request: AttemptWebhookDeliveryRequest,
    ): Promise<AttemptWebhookDeliveryOutcome> {
      const connection = deps.orm.em.getConnection();
      // The delivery and its endpoint in one statement.
      const [row] = await connection.execute<DeliveryRow[]>(
        `select d.id, d.status, d.attempt_count, d.last_status_code, d.kind, d.replay_of, d.event_type, d.payload,
                e.id as endpoint_id, e.url, e.enabled, e.secret,
                case when e.previous_secret_expires_at > now() then e.previous_secret end as previous_secret
           from webhook_delivery d
           left join webhook_endpoint e on e.id = d.endpoint_id
          where d.id = ?`,
        [request.deliveryId],
      );
      if (!row) return { status: 'gone', statusCode: null };
      const recorded = { statusCode: row.last_status_code ?? null };
      if (row.status !== 'pending') {
        return { status: row.status as 'succeeded' | 'failed', ...recorded };
      }
      // This attempt was made and recorded already (the activity is running again after a worker crash
      // or a lost completion): do not send it twice.
      if (row.attempt_count >= request.attempt)
        return { status: 'pending', ...recorded, ...waitAfter(request) };
      if (row.endpoint_id === null || row.url === null || row.secret === null) {
        return { status: 'gone', statusCode: null };
      }
      const endpointId = row.endpoint_id;
      // A disabled endpoint receives no lifecycle events, and retries of those already queued stop. Test
      // deliveries and replays are explicit requests and are delivered anyway.
      if (!row.enabled && row.kind === 'event' && !row.replay_of) {
        await connection.execute(
          `update webhook_delivery set status = 'failed', last_error = ?, next_attempt_at = null, updated_at = now()
            where id = ? and status = 'pending'`,
          ['The endpoint is disabled; the delivery was stopped (replay it once it is enabled).', row.id],
        );
        return { status: 'failed', ...recorded };
      }

      // At most maxConcurrentPerEndpoint attempts to one endpoint at once in this process: one more is
      // retried by Temporal in a moment, without holding an activity slot while it waits.
      const busy = inFlight.get(endpointId) ?? 0;
      if (busy >= settings.maxConcurrentPerEndpoint) {
        throw ApplicationFailure.create({
          type: ENDPOINT_BUSY,
          message: `${busy} attempts to this endpoint are already in flight in this worker; trying again shortly.`,
          nextRetryDelay: BUSY_RETRY_MS + Math.floor(Math.random() * BUSY_RETRY_MS),
        });
      }
      inFlight.set(endpointId, busy + 1);
      let result: HttpResult;
      const startedAt = new Date();
      try {
        const timestamp = String(Math.floor(startedAt.getTime() / 1000));
        // The previous secret signs too until its grace period ends (null once it has).
        const previous = row.previous_secret;
        const headers: Record<string, string> = {
          'Content-Type': 'application/json',
          'User-Agent': USER_AGENT,
          'X-Service-Delivery': row.id,
          'X-Service-Event': row.event_type,
          'X-Service-Timestamp': timestamp,
          'X-Service-Signature': webhookSignature(row.secret, timestamp, row.payload),
          ...(previous
            ? { 'X-Service-Signature-Previous': webhookSignature(previous, timestamp, row.payload) }
            : {}),
        };
        const secrets = [row.secret, previous ?? '', headers['X-Service-Signature'] ?? ''];
        result = await post(row.url, row.payload, headers, secrets);
      } finally {
        const left = (inFlight.get(endpointId) ?? 1) - 1;
        if (left > 0) inFlight.set(endpointId, left);
        else inFlight.delete(endpointId);
      }
      const durationMs = Date.now() - startedAt.getTime();

      const succeeded = result.error === null && result.statusCode !== null;
      const last = request.retryDelayMs === null || request.attempt >= WEBHOOK_MAX_ATTEMPTS;
      const status = succeeded ? 'succeeded' : last ? 'failed' : 'pending';
      const wait = waitAfter(request).retryDelayMs;
      const finishedAt = new Date();
      // The attempt's record and the delivery's new state in one statement (so together, or not at all).
      await connection.execute(
        `with attempt as (
           insert into webhook_delivery_attempt (delivery_id, attempt, started_at, duration_ms, status_code, error)
           values (?, ?, ?, ?, ?, ?)
           on conflict (delivery_id, attempt) do update
              set started_at = excluded.started_at, duration_ms = excluded.duration_ms,
                  status_code = excluded.status_code, error = excluded.error
         )
         update webhook_delivery
            set status = ?, attempt_count = greatest(attempt_count, ?), last_status_code = ?, last_error = ?,
                last_attempt_at = ?, next_attempt_at = ?, delivered_at = ?, endpoint_url = ?, updated_at = now()
          where id = ? and status = 'pending'`,
        [
          row.id,
          request.attempt,
          startedAt,
          durationMs,
          result.statusCode,
          result.error,
          status,
          request.attempt,
          result.statusCode,
          result.error,
          startedAt,
          status === 'pending' && wait !== undefined ? new Date(finishedAt.getTime() + wait) : null,
          succeeded ? finishedAt : null,
          row.url,
          row.id,
        ],
      );
      return status === 'pending'
        ? { status, statusCode: result.statusCode, ...waitAfter(request) }
        : { status, statusCode: result.statusCode };
    },
  };
}

interface DeliveryRow {
  id: string;
  status: string;
  attempt_count: number;
  last_status_code: number | null;
  kind: string;
  replay_of: string | null;
  event_type: string;
  payload: string;
  endpoint_id: string | null;
  url: string | null;
  enabled: boolean | null;
  secret: string | null;
  /** Only while it still signs (its grace period has not ended). */
  previous_secret: string | null;
}

/** `HTTP 503: <excerpt>`: printable ASCII only, known secrets removed, at most RESPONSE_EXCERPT_CHARS. */
function httpError(statusCode: number, body: Buffer, secrets: string[]): string {
  let text = body.subarray(0, RESPONSE_READ_BYTES).toString('utf8');
  for (const secret of secrets) if (secret) text = text.split(secret).join('[redacted]');
  text = text
    .replace(/[^\x20-\x7E]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length > RESPONSE_EXCERPT_CHARS) text = `${text.slice(0, RESPONSE_EXCERPT_CHARS)}…`;
  const redirect = statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : '';
  return `HTTP ${statusCode}${redirect}${text ? `: ${text}` : ''}`;
}

/** A network failure in our own words: the error's code, never its message (which may echo the URL). */
function networkError(error: NodeJS.ErrnoException): string {
  if (error.code === 'ERR_SIGIL_REFUSED_TARGET') return `Refused target: ${error.message}.`;
  const code = error.code ?? error.name;
  switch (code) {
    case 'ECONNREFUSED':
      return 'Connection refused (ECONNREFUSED).';
    case 'ECONNRESET':
    case 'EPIPE':
      return `The connection was closed before a response (${code}).`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `The host name could not be resolved (${code}).`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `The host cannot be reached (${code}).`;
    default:
      if (/CERT|SELF_SIGNED|TLS|SSL/i.test(code)) return `The TLS certificate was not accepted (${code}).`;
      return `Network error (${code}).`;
  }
}

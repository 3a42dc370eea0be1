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
import type { SigilEnv } from '../config/config.ts';
import { privateTargetsAllowed, publicOnlyLookup, specialAddressReason } from '../config/outbound-targets.ts';
import { WebhookDelivery, WebhookEndpoint } from '../db/entities/index.ts';
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
}

export const WEBHOOK_ATTEMPT_TIMEOUT_MS = 10_000;
/** Characters of a failed response's body kept in the delivery record. */
export const RESPONSE_EXCERPT_CHARS = 200;
const RESPONSE_READ_BYTES = 2048;
const USER_AGENT = 'Sigil-Webhooks/1';

/**
 * The settings of the worker process: private targets only in development and test, and the retry schedule
 * shortened by `retryDelayScale` (config.webhooks) only outside production.
 */
export function webhookDeliverySettings(env: SigilEnv, retryDelayScale = 1): WebhookDeliverySettings {
  return {
    allowPrivateTargets: privateTargetsAllowed(env),
    attemptTimeoutMs: WEBHOOK_ATTEMPT_TIMEOUT_MS,
    retryDelayScale: env === 'production' ? 1 : retryDelayScale,
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
    ...deps.webhooks,
  };
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
      const em = deps.orm.em.fork();
      const delivery = await em.findOne(WebhookDelivery, { id: request.deliveryId });
      if (!delivery) return { status: 'gone', statusCode: null };
      const recorded = { statusCode: delivery.lastStatusCode ?? null };
      if (delivery.status !== 'pending') {
        return { status: delivery.status as 'succeeded' | 'failed', ...recorded };
      }
      // This attempt was made and recorded already (the activity is running again after a worker crash
      // or a lost completion): do not send it twice.
      if (delivery.attemptCount >= request.attempt)
        return { status: 'pending', ...recorded, ...waitAfter(request) };

      const endpoint = await em.findOne(WebhookEndpoint, { id: delivery.endpointId });
      if (!endpoint) return { status: 'gone', statusCode: null };
      // A disabled endpoint receives no lifecycle events, and retries of those already queued stop. Test
      // deliveries and replays are explicit requests and are delivered anyway.
      if (!endpoint.enabled && delivery.kind === 'event' && !delivery.replayOf) {
        await em.nativeUpdate(
          WebhookDelivery,
          { id: delivery.id, status: 'pending' },
          {
            status: 'failed',
            lastError: 'The endpoint is disabled; the delivery was stopped (replay it once it is enabled).',
            nextAttemptAt: null,
          },
        );
        return { status: 'failed', ...recorded };
      }

      const startedAt = new Date();
      const timestamp = String(Math.floor(startedAt.getTime() / 1000));
      const previous =
        endpoint.previousSecret &&
        endpoint.previousSecretExpiresAt &&
        endpoint.previousSecretExpiresAt > startedAt
          ? endpoint.previousSecret
          : null;
      const headers: Record<string, string> = {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        'X-Service-Delivery': delivery.id,
        'X-Service-Event': delivery.eventType,
        'X-Service-Timestamp': timestamp,
        'X-Service-Signature': webhookSignature(endpoint.secret, timestamp, delivery.payload),
        ...(previous
          ? { 'X-Service-Signature-Previous': webhookSignature(previous, timestamp, delivery.payload) }
          : {}),
      };
      const secrets = [endpoint.secret, previous ?? '', headers['X-Service-Signature'] ?? ''];
      const result = await post(endpoint.url, delivery.payload, headers, secrets);
      const durationMs = Date.now() - startedAt.getTime();

      const succeeded = result.error === null && result.statusCode !== null;
      const last = request.retryDelayMs === null || request.attempt >= WEBHOOK_MAX_ATTEMPTS;
      const status = succeeded ? 'succeeded' : last ? 'failed' : 'pending';
      const wait = waitAfter(request).retryDelayMs;
      const finishedAt = new Date();
      await em.transactional(async (tx) => {
        await tx.execute(
          `insert into webhook_delivery_attempt (delivery_id, attempt, started_at, duration_ms, status_code, error)
           values (?, ?, ?, ?, ?, ?)
           on conflict (delivery_id, attempt) do update
              set started_at = excluded.started_at, duration_ms = excluded.duration_ms,
                  status_code = excluded.status_code, error = excluded.error`,
          [delivery.id, request.attempt, startedAt, durationMs, result.statusCode, result.error],
        );
        await tx.execute(
          `update webhook_delivery
              set status = ?, attempt_count = greatest(attempt_count, ?), last_status_code = ?, last_error = ?,
                  last_attempt_at = ?, next_attempt_at = ?, delivered_at = ?, endpoint_url = ?, updated_at = now()
            where id = ? and status = 'pending'`,
          [
            status,
            request.attempt,
            result.statusCode,
            result.error,
            startedAt,
            status === 'pending' && wait !== undefined ? new Date(finishedAt.getTime() + wait) : null,
            succeeded ? finishedAt : null,
            endpoint.url,
            delivery.id,
          ],
        );
      });
      return status === 'pending'
        ? { status, statusCode: result.statusCode, ...waitAfter(request) }
        : { status, statusCode: result.statusCode };
    },
  };
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

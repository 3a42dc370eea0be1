// Idempotency-Key support for the public API's side-effecting routes (those with `config: { idempotent: true }`).
//
// Semantics (specification, Limits): within one organization, a key names one request. Its first use
// executes the route and stores the response (status, body, content type) for 24 hours; a later request with
// the same key and the same method, path and normalized body gets that stored response again, marked
// `Idempotent-Replayed: true`, without executing; the same key with another method, path or body is refused
// with 409 `idempotency_key_reused`. Another organization's identical key is unrelated. `X-Request-Id` plays
// no part. Without the header a route executes every time; a malformed header is a 400.
//
// Attempts and crashes: the first request claims the key by inserting a `processing` row, and holds the claim
// as a lease (`lease_expires_at`, 5 s) that it renews every 1.5 s while it runs; a concurrent
// request with the same key finds a live claim and gets 409 `idempotency_request_in_progress` (Retry-After:
// 1) — two requests with one key never both run. When the response is sent (onSend) the row becomes
// `completed` with the response if the status is below 500. A 5xx, a response that cannot be stored (a
// stream) or a request that ends without onSend ends the lease at once, keeping the row: the same request
// may then be retried at once, another request with the key is still 409 `idempotency_key_reused`. A process
// that dies stops renewing, so its claim runs out within the lease and a retry takes it over (one
// `insert … on conflict do update … where <the old row expired, or is a lapsed claim of the same request>`,
// so claiming and taking over are both atomic).
//
// A retry must never repeat what an earlier attempt committed. Each claim has its own `claim_id` (a fencing
// token: the response is stored only by the attempt still holding the claim), and every attempt of one
// request shares the record's `record_id`. The claim is bound to the request's unit of work
// (services/idempotency.ts) so services can use both: a create records the envelope it made in the
// record, in its own transaction, and a retry answers with that envelope; a workflow Update is sent with an
// Update id derived from `record_id`, which Temporal applies once and answers again with its first outcome.
// Expired rows (24 hours) count as absent and are replaced; about one claim in a hundred also deletes a batch
// of expired rows.
//
// Normalized body and its digest (`request_hash`): SHA-256 of a canonical JSON form of the body — object keys
// sorted recursively, arrays in order, byte arrays (Buffer/Uint8Array) replaced by the SHA-256 of their
// bytes. Multipart bodies, which a route usually consumes itself, are handled in one of two ways:
//   1. `@fastify/multipart` registered with `attachFieldsToBody: true` or `'keyValues'`: the files are
//      buffered before validation and `request.body` holds the parts; the digest covers every field value and
//      every file's filename, MIME type and bytes. Nothing to do in the route.
//   2. Streaming (the route calls `request.file()`/`request.parts()`): the route must consume the upload in
//      its own route-level `preValidation` hook (which runs before this plugin's preHandler), keep what it
//      read on the request for its handler, and call `setRequestDigest(request, digest)` there — e.g.
//      `setRequestDigest(request, digestOf({ fields, file: { filename, mimetype, data: buffer } }))`, or a
//      SHA-256 it computed while streaming the file to storage. An idempotent multipart request that reaches
//      the preHandler with neither a digest nor a parsed body is a programming error (500), never silently
//      treated as an empty body.
// A digest set with setRequestDigest always wins over the parsed body.
//
// Sandbox: a request in sandbox mode (`X-Service-Sandbox: true`, or a /api/v1/sandbox simulation route) hashes
// as `sha256("sandbox:" + digest)`, so the same key and body with and without the header never replay each
// other — the second one is 409 `idempotency_key_reused`. Production digests are unchanged.
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Orm } from '../../db/orm.ts';
import { Conflict, IdempotencyRequestInProgress, InvalidRequest } from '../../services/errors.ts';
import type { IdempotencyScope } from '../../services/idempotency.ts';
import { sandboxModeOf } from './sandbox.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's body digest when the route computed it itself (see setRequestDigest). */
    idempotencyDigest?: string;
  }
}

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
export const IDEMPOTENCY_RETENTION_HOURS = 24;
/** 1–255 printable ASCII characters (space to tilde). */
const KEY_PATTERN = /^[\x20-\x7E]{1,255}$/;
/** How long a claim lives without renewal: a dead process's claim can be taken over this long after it died. */
const DEFAULT_LEASE_MS = 5_000;
/** A request renews its claim this often while it runs. */
const DEFAULT_RENEW_EVERY_MS = 1_500;
/** A request still running after this long stops renewing (it is stuck); its claim then runs out. */
const DEFAULT_MAX_HOLD_MS = 5 * 60 * 1000;
const DEFAULT_CLEANUP_PROBABILITY = 0.01;
const CLEANUP_BATCH = 500;
const CLAIM_ATTEMPTS = 3;

export interface IdempotencyDeps {
  orm: Orm;
}

export interface IdempotencyOptions {
  /** A claim not renewed for this long is considered abandoned and may be taken over (default 5 s). */
  leaseMs?: number;
  /** How often a running request renews its claim (default 1.5 s; keep it well below leaseMs). */
  renewEveryMs?: number;
  /** Renewal stops after this long, so a stuck request does not hold its key for ever (default 5 min). */
  maxHoldMs?: number;
  /** Chance that a claim also deletes a batch of expired records (default 0.01). */
  cleanupProbability?: number;
  /**
   * The organization a request's key belongs to, or undefined for a request that cannot use keys (then the
   * route just runs). Default: the /api/v1 bearer principal's. The application routes pass their session's.
   */
  organizationOf?: (request: FastifyRequest) => string | undefined;
}

/**
 * For idempotent routes that read their own body (streaming multipart): the digest of what the client sent.
 * Call it before the preHandler phase, i.e. in a route-level `preValidation` hook.
 */
export function setRequestDigest(request: FastifyRequest, digest: string): void {
  if (typeof digest !== 'string' || digest.length === 0) {
    throw new TypeError('setRequestDigest: the digest must be a non-empty string');
  }
  request.idempotencyDigest = digest;
}

/**
 * Canonical JSON of a value: object keys sorted recursively, `undefined` members left out, byte arrays
 * written as `<sha256:hex of the bytes>` (which no JSON value can spell, so the form stays unambiguous).
 */
export function canonicalize(value: unknown): string {
  return canonical(value, new Set());
}

/** SHA-256 (hex) of the canonical form of a value: the normalized-body digest. */
export function digestOf(value: unknown): string {
  return sha256(canonicalize(value));
}

function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function canonical(value: unknown, ancestors: Set<object>): string {
  if (value === undefined || value === null) return 'null';
  if (typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return `<sha256:${sha256(value)}>`;
  if (typeof value !== 'object') return 'null';
  if (ancestors.has(value)) throw new TypeError('canonicalize: the value contains a cycle');
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return canonical(toJSON.call(value), ancestors);
  ancestors.add(value);
  try {
    if (Array.isArray(value)) return `[${value.map((item) => canonical(item, ancestors)).join(',')}]`;
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined && typeof record[key] !== 'function')
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(record[key], ancestors)}`);
    return `{${members.join(',')}}`;
  } finally {
    ancestors.delete(value);
  }
}

function isMultipart(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && type.trimStart().toLowerCase().startsWith('multipart/');
}

/** A part object of `attachFieldsToBody: true` reduced to what the client sent; other values unchanged. */
function normalizePart(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizePart);
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  const part = value as { type?: unknown; fieldname?: unknown };
  if (typeof part.fieldname !== 'string') return value;
  if (part.type === 'field') return (value as { value?: unknown }).value;
  if (part.type === 'file') {
    const file = value as { filename?: unknown; mimetype?: unknown; _buf?: unknown };
    if (!(file._buf instanceof Uint8Array)) {
      throw new Error(
        'idempotency: a multipart file was not buffered; the route must call setRequestDigest in a preValidation hook',
      );
    }
    return { filename: file.filename, mimetype: file.mimetype, data: file._buf };
  }
  return value;
}

/** The digest the record is keyed on: the body's, marked when the request is in sandbox mode. */
function requestDigest(request: FastifyRequest): string {
  const digest = bodyDigest(request);
  return sandboxModeOf(request) ? sha256(`sandbox:${digest}`) : digest;
}

/** The route's own digest, or the normalized body's. */
function bodyDigest(request: FastifyRequest): string {
  if (request.idempotencyDigest) return request.idempotencyDigest;
  if (isMultipart(request)) {
    const body = request.body;
    if (body === null || typeof body !== 'object') {
      throw new Error(
        `idempotency: ${request.method} ${request.routeOptions.url} is an idempotent multipart route without a ` +
          'body digest; use attachFieldsToBody or call setRequestDigest in a preValidation hook',
      );
    }
    const parts: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(body)) parts[name] = normalizePart(value);
    return digestOf(parts);
  }
  return digestOf(request.body);
}

interface Claim extends IdempotencyScope {
  settled: boolean;
  renewal: NodeJS.Timeout | undefined;
}

interface StoredRecord {
  request_hash: string;
  method: string;
  path: string;
  state: 'processing' | 'completed';
  /** A `processing` record whose lease has not run out: its request is still running. */
  running: boolean;
  response_status: number | null;
  response_body: string | null;
  response_content_type: string | null;
}

/** A response body the text column can hold, or undefined when it cannot be stored (streams, binary). */
function storableBody(payload: unknown): string | undefined {
  let text: string | undefined;
  if (payload === undefined || payload === null) text = '';
  else if (typeof payload === 'string') text = payload;
  else if (Buffer.isBuffer(payload) && isUtf8(payload)) text = payload.toString('utf8');
  return text !== undefined && !text.includes('\u0000') ? text : undefined;
}

function headerText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.join(', ');
  return null;
}

/**
 * Adds the Idempotency-Key preHandler and onSend hooks to `app`. Register inside the authenticated
 * /api/v1 scope after authentication and rate limiting (it reads `request.principal`).
 */
export function registerIdempotency(
  app: FastifyInstance,
  deps: IdempotencyDeps,
  options: IdempotencyOptions = {},
): void {
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const lease = `${leaseMs} milliseconds`;
  const renewEveryMs = options.renewEveryMs ?? Math.min(DEFAULT_RENEW_EVERY_MS, Math.floor(leaseMs / 3));
  const maxHoldMs = options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS;
  const cleanupProbability = options.cleanupProbability ?? DEFAULT_CLEANUP_PROBABILITY;
  const organizationOf =
    options.organizationOf ?? ((request: FastifyRequest) => request.principal?.organizationId);
  const claims = new WeakMap<FastifyRequest, Claim>();
  const connection = () => deps.orm.em.getConnection();

  /**
   * Claims the key: a new record, an expired one replaced, or a lapsed claim of the same request taken over
   * (keeping its record id and what it committed). Undefined when the key is held or bound to another request.
   */
  async function tryClaim(
    organizationId: string,
    key: string,
    requestHash: string,
    method: string,
    path: string,
  ): Promise<Omit<IdempotencyScope, 'organizationId' | 'key'> | undefined> {
    const rows = await connection().execute<
      { record_id: string; claim_id: string; attempts: number; result_id: string | null }[]
    >(
      `insert into idempotency_record as r
              (organization_id, idempotency_key, request_hash, method, path, state, claim_id, lease_expires_at,
               created_at, expires_at)
       -- One clock reading for every column: the record lives exactly the retention period.
       select ?, ?, ?, ?, ?, 'processing', gen_random_uuid(), c.now + ?::interval,
              c.now, c.now + interval '${IDEMPOTENCY_RETENTION_HOURS} hours'
         from (select clock_timestamp() as now) c
       on conflict (organization_id, idempotency_key) do update
          set state = 'processing', claim_id = excluded.claim_id, lease_expires_at = excluded.lease_expires_at,
              request_hash = excluded.request_hash, method = excluded.method, path = excluded.path,
              response_status = null, response_body = null, response_content_type = null,
              -- An expired record starts over as a new request; a lapsed claim is another attempt at the same.
              record_id = case when r.expires_at <= excluded.created_at then excluded.record_id else r.record_id end,
              attempts = case when r.expires_at <= excluded.created_at then 1 else r.attempts + 1 end,
              result_id = case when r.expires_at <= excluded.created_at then null else r.result_id end,
              created_at = case when r.expires_at <= excluded.created_at then excluded.created_at else r.created_at end,
              expires_at = case when r.expires_at <= excluded.created_at then excluded.expires_at else r.expires_at end
        where r.expires_at <= excluded.created_at
           or (r.state = 'processing' and r.lease_expires_at <= excluded.created_at
               and r.request_hash = excluded.request_hash and r.method = excluded.method and r.path = excluded.path)
       returning record_id, claim_id, attempts, result_id`,
      [organizationId, key, requestHash, method, path, lease],
    );
    const row = rows[0];
    return row
      ? { recordId: row.record_id, claimId: row.claim_id, attempt: row.attempts, resultId: row.result_id }
      : undefined;
  }

  async function findRecord(organizationId: string, key: string): Promise<StoredRecord | undefined> {
    const rows = await connection().execute<StoredRecord[]>(
      `select request_hash, method, path, state, response_status, response_body, response_content_type,
              (state = 'processing' and lease_expires_at > clock_timestamp()) as running
         from idempotency_record
        where organization_id = ? and idempotency_key = ? and expires_at > clock_timestamp()`,
      [organizationId, key],
    );
    return rows[0];
  }

  /** Extends the claim's lease; false when the claim is no longer this request's. */
  async function renew(claim: Claim): Promise<boolean> {
    const rows = await connection().execute<{ claim_id: string }[]>(
      `update idempotency_record set lease_expires_at = clock_timestamp() + ?::interval
        where organization_id = ? and idempotency_key = ? and claim_id = ? and state = 'processing'
        returning claim_id`,
      [lease, claim.organizationId, claim.key, claim.claimId],
    );
    return rows.length > 0;
  }

  function keepRenewing(request: FastifyRequest, claim: Claim): void {
    const started = Date.now();
    claim.renewal = setInterval(() => {
      if (claim.settled) return stopRenewing(claim);
      if (Date.now() - started > maxHoldMs) {
        request.log.warn('idempotency: the request is still running; its claim is no longer renewed');
        return stopRenewing(claim);
      }
      renew(claim).then(
        (held) => {
          if (held || claim.settled) return;
          request.log.warn('idempotency: the claim was taken over by another attempt of this request');
          stopRenewing(claim);
        },
        (error: unknown) => request.log.warn({ err: error }, 'idempotency: renewing the claim failed'),
      );
    }, renewEveryMs);
    claim.renewal.unref();
  }

  function stopRenewing(claim: Claim): void {
    clearInterval(claim.renewal);
    claim.renewal = undefined;
  }

  async function complete(claim: Claim, status: number, body: string, contentType: string | null) {
    await connection().execute(
      `update idempotency_record
          set state = 'completed', response_status = ?, response_body = ?, response_content_type = ?,
              lease_expires_at = null
        where organization_id = ? and idempotency_key = ? and claim_id = ? and state = 'processing'`,
      [status, body, contentType, claim.organizationId, claim.key, claim.claimId],
    );
  }

  /** Ends the lease now, keeping the record: the same request may be retried at once. */
  async function release(claim: Claim) {
    await connection().execute(
      `update idempotency_record set lease_expires_at = clock_timestamp()
        where organization_id = ? and idempotency_key = ? and claim_id = ? and state = 'processing'`,
      [claim.organizationId, claim.key, claim.claimId],
    );
  }

  async function releaseQuietly(request: FastifyRequest, claim: Claim) {
    try {
      await release(claim);
    } catch (error) {
      // The lease runs out by itself within leaseMs.
      request.log.error({ err: error }, 'idempotency: releasing the claim failed');
    }
  }

  function settle(claim: Claim): boolean {
    if (claim.settled) return false;
    claim.settled = true;
    stopRenewing(claim);
    return true;
  }

  function cleanUp(request: FastifyRequest): void {
    connection()
      .execute(
        `delete from idempotency_record
          where ctid in (select ctid from idempotency_record where expires_at < now() limit ${CLEANUP_BATCH})`,
      )
      .catch((error: unknown) =>
        request.log.warn({ err: error }, 'idempotency: deleting expired records failed'),
      );
  }

  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.routeOptions.config?.idempotent) return;
    const organizationId = organizationOf(request);
    if (!organizationId) return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const key = Array.isArray(header) ? header.join(', ') : header;
    if (!KEY_PATTERN.test(key)) {
      const message = `The ${IDEMPOTENCY_KEY_HEADER} header must be 1 to 255 printable ASCII characters.`;
      throw new InvalidRequest(message, [{ field: 'headers.idempotency-key', message }]);
    }
    const requestHash = requestDigest(request);
    const { method, url: path } = request;

    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const claimed = await tryClaim(organizationId, key, requestHash, method, path);
      if (claimed !== undefined) {
        const claim: Claim = { organizationId, key, ...claimed, settled: false, renewal: undefined };
        claims.set(request, claim);
        keepRenewing(request, claim);
        // The request's services see the claim (request.services.idempotency, services/idempotency.ts).
        request.idempotency = claim;
        if (claim.attempt > 1) {
          request.log.info(
            { idempotencyAttempt: claim.attempt, earlierResult: claim.resultId },
            'idempotency: retrying a request whose earlier attempt did not answer',
          );
        }
        if (cleanupProbability > 0 && Math.random() < cleanupProbability) cleanUp(request);
        return;
      }
      const existing = await findRecord(organizationId, key);
      // Gone between the two statements (just expired), or a claim that ran out meanwhile: claim again.
      if (!existing) continue;
      if (existing.request_hash !== requestHash || existing.method !== method || existing.path !== path) {
        throw new Conflict(
          `This ${IDEMPOTENCY_KEY_HEADER} was already used with a different request (method, path, body or ` +
            'sandbox mode); use a new key for a new request.',
          [],
          'idempotency_key_reused',
        );
      }
      if (existing.state === 'processing') {
        if (existing.running) break;
        continue;
      }
      reply.code(existing.response_status ?? 200).header(REPLAYED_HEADER, 'true');
      if (existing.response_content_type) reply.header('content-type', existing.response_content_type);
      const body = existing.response_body ?? '';
      return reply.send(body === '' && !existing.response_content_type ? undefined : body);
    }
    throw new IdempotencyRequestInProgress(
      `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry later.`,
    );
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = claims.get(request);
    if (!claim || !settle(claim)) return payload;
    const body = storableBody(payload);
    if (reply.statusCode >= 500 || body === undefined) {
      if (body === undefined && reply.statusCode < 500) {
        request.log.warn(
          'idempotency: the response cannot be stored for replay; the request may be repeated',
        );
      }
      await releaseQuietly(request, claim);
      return payload;
    }
    try {
      await complete(claim, reply.statusCode, body, headerText(reply.getHeader('content-type')));
    } catch (error) {
      request.log.error({ err: error }, 'idempotency: storing the response failed');
      await releaseQuietly(request, claim);
    }
    return payload;
  });

  // A request that ended without onSend (an aborted connection, a failing error handler) must not leave
  // its key blocked until its lease runs out.
  app.addHook('onResponse', async (request: FastifyRequest) => {
    const claim = claims.get(request);
    if (!claim || !settle(claim)) return;
    await releaseQuietly(request, claim);
  });
}

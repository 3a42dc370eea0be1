// Idempotency-Key support for the public API's side-effecting routes (those with `config: { idempotent: true }`).
//
// Semantics (specification, Limits): within one organization, a key names one request. Its first use
// executes the route and stores the response (status, body, content type) for 24 hours; a later request with
// the same key and the same method, path and normalized body gets that stored response again, marked
// `Idempotent-Replayed: true`, without executing; the same key with another method, path or body is refused
// with 409 `idempotency_key_reused`. Another organization's identical key is unrelated. `X-Request-Id` plays
// no part. Without the header a route executes every time; a malformed header is a 400.
//
// Concurrency: the first request claims the key by inserting a `processing` row (one
// `insert … on conflict do update … where <the old row is expired or abandoned>`, so claiming and replacing
// an expired record are both atomic); a concurrent request with the same key finds `processing` and gets 409
// `idempotency_request_in_progress` — two requests with one key never both execute. When the response is
// sent (onSend) the row becomes `completed` with the response, if the status is below 500; a 5xx, a
// response that cannot be stored (a stream) or a request that ends without onSend deletes the claim so a
// retry executes. A `processing` row older than 10 minutes is treated as abandoned (its process died) and
// may be claimed again. Expired rows count as absent and are replaced; about one claim in a hundred also
// deletes a batch of expired rows.
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
import { Conflict, InvalidRequest } from '../errors.ts';
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
const DEFAULT_PROCESSING_TIMEOUT_MS = 10 * 60 * 1000;
const DEFAULT_CLEANUP_PROBABILITY = 0.01;
const CLEANUP_BATCH = 500;
const CLAIM_ATTEMPTS = 3;

export interface IdempotencyDeps {
  orm: Orm;
}

export interface IdempotencyOptions {
  /** A `processing` claim older than this is considered abandoned and may be taken over (default 10 min). */
  processingTimeoutMs?: number;
  /** Chance that a claim also deletes a batch of expired records (default 0.01). */
  cleanupProbability?: number;
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

interface Claim {
  organizationId: string;
  key: string;
  /** created_at of the claimed row as text: identifies this claim, not a later one for the same key. */
  token: string;
  settled: boolean;
}

interface StoredRecord {
  request_hash: string;
  method: string;
  path: string;
  state: 'processing' | 'completed';
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
  const processingTimeout = `${options.processingTimeoutMs ?? DEFAULT_PROCESSING_TIMEOUT_MS} milliseconds`;
  const cleanupProbability = options.cleanupProbability ?? DEFAULT_CLEANUP_PROBABILITY;
  const claims = new WeakMap<FastifyRequest, Claim>();
  const connection = () => deps.orm.em.getConnection();

  async function tryClaim(
    organizationId: string,
    key: string,
    requestHash: string,
    method: string,
    path: string,
  ): Promise<string | undefined> {
    const rows = await connection().execute<{ token: string }[]>(
      `insert into idempotency_record
              (organization_id, idempotency_key, request_hash, method, path, state, created_at, expires_at)
       -- One clock reading for both columns: the record lives exactly the retention period.
       select ?, ?, ?, ?, ?, 'processing', c.now, c.now + interval '${IDEMPOTENCY_RETENTION_HOURS} hours'
         from (select clock_timestamp() as now) c
       on conflict (organization_id, idempotency_key) do update
          set request_hash = excluded.request_hash, method = excluded.method, path = excluded.path,
              state = 'processing', response_status = null, response_body = null, response_content_type = null,
              created_at = excluded.created_at, expires_at = excluded.expires_at
        where idempotency_record.expires_at <= now()
           or (idempotency_record.state = 'processing' and idempotency_record.created_at < now() - ?::interval)
       returning created_at::text as token`,
      [organizationId, key, requestHash, method, path, processingTimeout],
    );
    return rows[0]?.token;
  }

  async function findLive(organizationId: string, key: string): Promise<StoredRecord | undefined> {
    const rows = await connection().execute<StoredRecord[]>(
      `select request_hash, method, path, state, response_status, response_body, response_content_type
         from idempotency_record
        where organization_id = ? and idempotency_key = ? and expires_at > now()
          and not (state = 'processing' and created_at < now() - ?::interval)`,
      [organizationId, key, processingTimeout],
    );
    return rows[0];
  }

  async function complete(claim: Claim, status: number, body: string, contentType: string | null) {
    await connection().execute(
      `update idempotency_record
          set state = 'completed', response_status = ?, response_body = ?, response_content_type = ?
        where organization_id = ? and idempotency_key = ? and state = 'processing' and created_at = ?::timestamptz`,
      [status, body, contentType, claim.organizationId, claim.key, claim.token],
    );
  }

  async function release(claim: Claim) {
    await connection().execute(
      `delete from idempotency_record
        where organization_id = ? and idempotency_key = ? and state = 'processing' and created_at = ?::timestamptz`,
      [claim.organizationId, claim.key, claim.token],
    );
  }

  async function releaseQuietly(request: FastifyRequest, claim: Claim) {
    try {
      await release(claim);
    } catch (error) {
      request.log.error({ err: error }, 'idempotency: releasing the claim failed');
    }
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
    const principal = request.principal;
    if (!principal) return;
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
      const token = await tryClaim(principal.organizationId, key, requestHash, method, path);
      if (token !== undefined) {
        claims.set(request, { organizationId: principal.organizationId, key, token, settled: false });
        if (cleanupProbability > 0 && Math.random() < cleanupProbability) cleanUp(request);
        return;
      }
      const existing = await findLive(principal.organizationId, key);
      // Gone between the two statements (released after a failure, or just expired): claim again.
      if (!existing) continue;
      if (existing.request_hash !== requestHash || existing.method !== method || existing.path !== path) {
        throw new Conflict(
          `This ${IDEMPOTENCY_KEY_HEADER} was already used with a different request (method, path, body or ` +
            'sandbox mode); use a new key for a new request.',
          [],
          'idempotency_key_reused',
        );
      }
      if (existing.state === 'processing') break;
      reply.code(existing.response_status ?? 200).header(REPLAYED_HEADER, 'true');
      if (existing.response_content_type) reply.header('content-type', existing.response_content_type);
      const body = existing.response_body ?? '';
      return reply.send(body === '' && !existing.response_content_type ? undefined : body);
    }
    reply.header('Retry-After', '1');
    throw new Conflict(
      `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry later.`,
      [],
      'idempotency_request_in_progress',
    );
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = claims.get(request);
    if (!claim || claim.settled) return payload;
    claim.settled = true;
    const body = storableBody(payload);
    if (reply.statusCode >= 500 || body === undefined) {
      if (body === undefined && reply.statusCode < 500) {
        request.log.warn('idempotency: the response cannot be stored for replay; the key stays reusable');
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
  // its key blocked until the claim is considered abandoned.
  app.addHook('onResponse', async (request: FastifyRequest) => {
    const claim = claims.get(request);
    if (!claim || claim.settled) return;
    claim.settled = true;
    await releaseQuietly(request, claim);
  });
}

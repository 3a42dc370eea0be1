// The one error mapping of every transport: whatever a route throws — a typed AppError from a service, a
// request that failed its zod schema, one of Fastify's own 4xx errors, or anything unexpected — becomes the
// specification's body `{ error: { code, message, details, request_id } }` with its status (and the error's
// headers, such as Retry-After). The server's error and not-found handlers (api/http/server.ts) render every
// error through `sendError`; the application routes (api/trpc/fastify.ts) turn tRPC's errors into the same
// AppErrors first and let that handler answer, so /api/v1, the application routes and the signer API cannot
// answer errors in different shapes. A dependency that is down — PostgreSQL refusing or dropping connections,
// Temporal unreachable or not answering in time — is a 503 `service_unavailable` with Retry-After, not a 500.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  AppError,
  DEPENDENCY_RETRY_AFTER_SECONDS,
  type ErrorDetail,
  InvalidRequest,
  NotFound,
  ServiceUnavailable,
} from '../../services/errors.ts';
import { type IssueRule, issueRule } from '../../services/validation.ts';
import { isTemporalUnavailable } from '../../temporal/deadline.ts';

/** The specification's error body. */
export interface ErrorBody {
  error: { code: string; message: string; details: ErrorDetail[]; request_id: string };
}

/** What a 500 says: nothing about the cause, which only the log holds (under the same request id). */
export const INTERNAL_ERROR_MESSAGE = 'An internal error occurred. Quote the request id when you report it.';

export function errorBody(error: AppError, requestId: string): ErrorBody {
  return {
    error: { code: error.code, message: error.message, details: error.details, request_id: requestId },
  };
}

/**
 * A request that failed validation: one detail per problem — the field's dotted path, the message, and the rule
 * it broke (`code`, `params`: services/validation.ts) — the first one in the message.
 */
export function invalidRequest(details: ({ field: string; message: string } & IssueRule)[]): InvalidRequest {
  const first = details[0];
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  return new InvalidRequest(
    `Invalid request: ${first ? `${first.field}: ${first.message}` : 'malformed'}${more}`,
    details,
  );
}

/** The 404 of a path no route answers. */
export function routeNotFound(request: FastifyRequest): NotFound {
  return new NotFound(`No route ${request.method} ${request.url.split('?')[0]}.`);
}

// PostgreSQL refusing or losing connections. SQLSTATE class 08 (connection exception), 57P01-57P03 (the server
// shuts down, crashed, or cannot accept connections yet), 53300 (too many connections); the network errors of
// the socket; and the `pg` pool's own messages, which carry no code.
// 08P01 (protocol violation) is left out: PostgreSQL answers it for a value it cannot take (a NUL in text),
// which is the data's fault, not an outage.
const DATABASE_SQLSTATES = /^(08(?!P01)[0-9A-Z]{3}|57P0[123]|53300)$/;
const NETWORK_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const POOL_MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|connection error and is not queryable|Client was closed and is not queryable/i;

/** Whether `error` (or a cause) says PostgreSQL cannot be reached or dropped the connection. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  const pending: unknown[] = [error];
  while (pending.length > 0 && seen.size < 10) {
    const current = pending.shift();
    if (current === null || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    const { code, message, cause, errors } = current as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    if (typeof code === 'string' && (DATABASE_SQLSTATES.test(code) || NETWORK_ERRORS.has(code))) return true;
    if (typeof message === 'string' && POOL_MESSAGES.test(message)) return true;
    pending.push(cause);
    // A refused connection to a host with several addresses is an AggregateError of one error per address.
    if (Array.isArray(errors)) pending.push(...errors);
  }
  return false;
}

/** The 503 of an unavailable dependency, or undefined when `error` is something else. */
export function dependencyUnavailable(error: unknown): ServiceUnavailable | undefined {
  if (isDatabaseUnavailable(error)) {
    return new ServiceUnavailable(
      'The database is unavailable right now. Try again in a few seconds.',
      [],
      DEPENDENCY_RETRY_AFTER_SECONDS,
    );
  }
  if (isTemporalUnavailable(error)) {
    return new ServiceUnavailable(
      'The workflow service (Temporal) is unavailable right now. Try again in a few seconds.',
      [],
      DEPENDENCY_RETRY_AFTER_SECONDS,
    );
  }
  return undefined;
}

/** What the client is told about an error; undefined for an unexpected one (a 500 without internals). */
export function clientErrorOf(error: unknown): AppError | undefined {
  if (error instanceof AppError) return error;
  const unavailable = dependencyUnavailable(error);
  if (unavailable) return unavailable;
  if (hasZodFastifySchemaValidationErrors(error)) {
    return invalidRequest(
      error.validation.map((issue) => ({
        field: [error.validationContext, ...issue.instancePath.split('/').filter(Boolean)].join('.'),
        message: issue.message ?? 'is invalid',
        ...issueRule({ ...issue.params, code: issue.keyword }),
      })),
    );
  }
  // Fastify's own refusals (malformed JSON, a body too large, an unsupported content type) keep their status.
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new AppError(
      status,
      status === 413 ? 'payload_too_large' : 'invalid_request',
      error instanceof Error ? error.message : 'Invalid request.',
    );
  }
  return undefined;
}

/** Answers `error` with the specification's body; a 5xx is logged with its cause. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: unknown): FastifyReply {
  const clientError = clientErrorOf(error);
  if (!clientError) {
    request.log.error({ err: error }, 'unhandled error');
    return reply.code(500).send({
      error: { code: 'internal_error', message: INTERNAL_ERROR_MESSAGE, details: [], request_id: request.id },
    } satisfies ErrorBody);
  }
  if (clientError.status >= 500) request.log.error({ err: error }, clientError.message);
  return reply.code(clientError.status).headers(clientError.headers).send(errorBody(clientError, request.id));
}

// The few typed errors a client can ever see. Transports turn them into the specification's error body
// `{ error: { code, message, details, request_id } }`; anything else is a 500 without internals.

export interface ErrorDetail {
  field?: string;
  message: string;
  [key: string]: unknown;
}

export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, details: ErrorDetail[] = [], headers = {}) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export class InvalidRequest extends AppError {
  constructor(message: string, details: ErrorDetail[] = [], code = 'invalid_request') {
    super(400, code, message, details);
  }
}

export class Unauthorized extends AppError {
  constructor(message = 'Missing or invalid credentials.', code = 'unauthorized', headers = {}) {
    super(401, code, message, [], headers);
  }
}

export class Forbidden extends AppError {
  constructor(message: string, details: ErrorDetail[] = []) {
    super(403, 'forbidden', message, details);
  }
}

export class NotFound extends AppError {
  constructor(message: string) {
    super(404, 'not_found', message);
  }
}

export class Conflict extends AppError {
  constructor(message: string, details: ErrorDetail[] = [], code = 'conflict') {
    super(409, code, message, details);
  }
}

export class RateLimited extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, 'rate_limited', message, [], { 'Retry-After': String(retryAfterSeconds) });
  }
}

/** Seconds a client is asked to wait (Retry-After) before repeating a request a dependency could not serve. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/**
 * 503: a dependency (PostgreSQL, Temporal, a message provider) cannot serve the request now. With
 * `retryAfterSeconds` the answer carries `Retry-After`: the condition is expected to pass.
 */
export class ServiceUnavailable extends AppError {
  constructor(message: string, details: ErrorDetail[] = [], retryAfterSeconds?: number) {
    super(
      503,
      'service_unavailable',
      message,
      details,
      retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}

/** 409 `idempotency_request_in_progress`: another attempt with the same Idempotency-Key is running. */
export class IdempotencyRequestInProgress extends AppError {
  constructor(message: string) {
    super(409, 'idempotency_request_in_progress', message, [], { 'Retry-After': '1' });
  }
}

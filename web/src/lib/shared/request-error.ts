// The one error model of every page (web/README.md, "How to build a page"): whatever a call to the server threw
// — a TRPCClientError of the application routes' client (app-client.ts), the signer client's error
// (signer/signing.ts) or the browser's own network failure — becomes a RequestError with the specification's
// error body in typed fields: the HTTP status (0 when no server answered), the code, the message, the details
// and the request id. Pages, load functions and the error page read only this. (A TRPCClientError is known by
// its name, so the signer's bundle, which has no tRPC client, does not get one for an instanceof.)

/** One detail of an error body: a refused field (`field`, `message`, and where the server gives one a
 * machine-readable `code` with its `params`, docs/app-api.md), or what a refusal names (`permission`, …). */
export interface ErrorDetail {
  field?: string;
  message?: string;
  code?: string;
  params?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The code of a RequestError when no server answered (offline, a proxy's own page, a body that is not ours). */
export const UNREACHABLE = 'unreachable';

export class RequestError extends Error {
  /** The HTTP status; 0 when no server answered. */
  readonly status: number;
  /** The error body's `code` (`invalid_request`, `forbidden`, …), or `unreachable`. */
  readonly code: string;
  readonly details: ErrorDetail[];
  /** The error body's `request_id`, to quote when reporting a problem. */
  readonly requestId: string | undefined;
  /** Whether a server answered with the specification's error body (else `message` is not one to show). */
  readonly answered: boolean;

  constructor(
    status: number,
    code: string,
    message: string,
    details: ErrorDetail[] = [],
    requestId?: string,
    answered = status > 0,
  ) {
    super(message);
    this.name = 'RequestError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.requestId = requestId;
    this.answered = answered;
  }

  /** The value a detail names (`permission`, `address`, `attemptsLeft`), from the first detail that has it. */
  detail(name: string): unknown {
    return this.details.find((detail) => detail[name] !== undefined)?.[name];
  }

  /** The server's message, or undefined when no server answered (the page then says it could not be reached). */
  get serverMessage(): string | undefined {
    return this.answered ? this.message : undefined;
  }
}

interface ErrorBodyShape {
  error: { code: string; message: string; details?: unknown; request_id?: unknown };
}

/** Whether `value` is the specification's error body `{ error: { code, message, details, request_id } }`. */
export function isErrorBody(value: unknown): value is ErrorBodyShape {
  const error = (value as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

/** The RequestError of a response's status and parsed body (`undefined` when it was not JSON). */
export function requestErrorFrom(status: number, body: unknown): RequestError {
  if (!isErrorBody(body)) return new RequestError(status, 'error', `HTTP ${status}`, [], undefined, false);
  const { code, message, details, request_id } = body.error;
  return new RequestError(
    status,
    code,
    message,
    Array.isArray(details) ? (details as ErrorDetail[]) : [],
    typeof request_id === 'string' ? request_id : undefined,
  );
}

/** A failure of the network itself (no answer at all). */
export function unreachable(cause: unknown): RequestError {
  return new RequestError(0, UNREACHABLE, cause instanceof Error ? cause.message : String(cause));
}

/** What the application routes' link attaches to a TRPCClientError (`meta`): the status and the error body. */
interface FailureMeta {
  status?: unknown;
  body?: unknown;
}

/** The RequestError of anything a call threw. */
export function requestErrorOf(error: unknown): RequestError {
  if (error instanceof RequestError) return error;
  if (error instanceof Error && error.name === 'TRPCClientError') {
    const meta = ((error as { meta?: unknown }).meta ?? {}) as FailureMeta;
    const status = typeof meta.status === 'number' ? meta.status : 0;
    if (status === 0) return unreachable(error);
    return requestErrorFrom(status, meta.body);
  }
  return unreachable(error);
}

// The errors the client throws: SigilError for every answer of the API that is not a success (the
// specification's error body, read into fields), SigilConnectionError when no answer arrived after the retries.

/** One item of an error's `details`: the field it names (dotted path), a message, and the rule when one applies. */
export interface SigilErrorDetail {
  field?: string;
  message?: string;
  code?: string;
  [key: string]: unknown;
}

/** An answer of the API that is not a success, with the specification's error code, message and details. */
export class SigilError extends Error {
  override readonly name = 'SigilError';
  /** The HTTP status. */
  readonly status: number;
  /** The specification's error code (`invalid_request`, `forbidden`, `not_found`, `rate_limited`, …). */
  readonly code: string;
  readonly details: SigilErrorDetail[];
  /** The first field the details name (`recipients.0.roleName`), if any. */
  readonly field: string | undefined;
  /** The request's `X-Request-Id`, to quote to support. */
  readonly requestId: string | undefined;

  constructor(
    status: number,
    code: string,
    message: string,
    details: SigilErrorDetail[],
    requestId?: string,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.field = details.find((detail) => typeof detail.field === 'string')?.field;
    this.requestId = requestId;
  }

  /** The error of an answer whose body was read as `body` (parsed JSON, or text when it was not JSON). */
  static fromAnswer(response: Response, body: unknown): SigilError {
    const error = (body as { error?: Record<string, unknown> } | null)?.error;
    const requestId =
      (typeof error?.request_id === 'string' ? error.request_id : undefined) ??
      response.headers.get('x-request-id') ??
      undefined;
    if (error && typeof error.code === 'string') {
      const details = Array.isArray(error.details) ? (error.details as SigilErrorDetail[]) : [];
      const message = typeof error.message === 'string' ? error.message : error.code;
      return new SigilError(response.status, error.code, message, details, requestId);
    }
    const text = typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : '';
    return new SigilError(
      response.status,
      `http_${response.status}`,
      `HTTP ${response.status}${text}`,
      [],
      requestId,
    );
  }
}

/** No answer from the server (refused, reset, timed out) after every retry the policy allows. */
export class SigilConnectionError extends Error {
  override readonly name = 'SigilConnectionError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

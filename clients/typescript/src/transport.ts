// What every request of the client goes through (openapi-fetch hands each one here as a Request): the OAuth 2.0
// client-credentials token — fetched on first use, renewed shortly before it expires and once more when the API
// answers 401 —, the sandbox header, and retries with backoff for 429 (after its Retry-After), 503 and network
// errors. A retried request is the same Request again, headers included, so a POST retries with the one
// Idempotency-Key its call was given; a POST without a key (an operation the server does not make idempotent)
// is retried only after a 429, which the server answers before doing anything.
import { SigilConnectionError, SigilError } from './errors.ts';

export interface RetryPolicy {
  /** Retries after the first attempt (default 3). 0 turns retries off. */
  maxRetries: number;
  /** The first backoff (default 250 ms); each retry doubles it; the wait is half of it plus a random half. */
  baseDelayMs: number;
  /** The longest wait between attempts, Retry-After included (default 30 s). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 30_000 };

export interface TransportOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Scopes to ask for (absent: every scope the client is allowed). */
  scopes?: string[];
  /** Sends `X-Service-Sandbox: true` on every /api/v1 request. */
  sandbox?: boolean;
  retry?: Partial<RetryPolicy>;
  /** Renew the token this many seconds before it expires (default 60). */
  renewBeforeExpirySeconds?: number;
  /** The fetch to send requests with (default: the global fetch). */
  fetch?: (request: Request) => Promise<Response>;
}

interface AccessToken {
  value: string;
  /** Epoch milliseconds after which it is renewed before use. */
  renewAt: number;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** Form-URL-encoding of a client id or secret for HTTP Basic, as RFC 6749 §2.3.1 asks. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/** The wait a Retry-After header asks for, in milliseconds (seconds or an HTTP date), if it holds one. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class Transport {
  readonly baseUrl: string;
  private readonly options: TransportOptions;
  private readonly retry: RetryPolicy;
  private readonly send: (request: Request) => Promise<Response>;
  private token: AccessToken | undefined;
  private pendingToken: Promise<AccessToken> | undefined;

  constructor(options: TransportOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.send = options.fetch ?? ((request) => fetch(request));
  }

  /** The fetch openapi-fetch calls: authenticates the request and retries it as the policy says. */
  readonly fetch = async (request: Request): Promise<Response> => {
    const retrySafe = SAFE_METHODS.has(request.method) || request.headers.has('idempotency-key');
    let renewed = false;
    for (let attempt = 0; ; ) {
      const token = await this.accessToken();
      const headers = new Headers(request.headers);
      headers.set('authorization', `Bearer ${token.value}`);
      if (this.options.sandbox) headers.set('x-service-sandbox', 'true');
      const response = await this.attempt(new Request(request.clone(), { headers }), attempt, retrySafe);
      if (response === 'retry') {
        attempt += 1;
        continue;
      }
      if (response.status === 401 && !renewed) {
        // Revoked, expired early or deleted with its secret: one new token, then the API's answer stands.
        renewed = true;
        if (this.token === token) this.token = undefined;
        await response.body?.cancel();
        continue;
      }
      const wait = this.retryWait(response, attempt, retrySafe);
      if (wait === undefined) return response;
      await response.body?.cancel();
      await sleep(wait);
      attempt += 1;
    }
  };

  /** A valid access token: the cached one, or a new one from POST /oauth/token (one request for concurrent calls). */
  async accessToken(): Promise<AccessToken> {
    if (this.token && Date.now() < this.token.renewAt) return this.token;
    this.pendingToken ??= this.requestToken().finally(() => {
      this.pendingToken = undefined;
    });
    this.token = await this.pendingToken;
    return this.token;
  }

  private async requestToken(): Promise<AccessToken> {
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (this.options.scopes?.length) body.set('scope', this.options.scopes.join(' '));
    const basic = `${formEncode(this.options.clientId)}:${formEncode(this.options.clientSecret)}`;
    const request = new Request(`${this.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${btoa(basic)}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body,
    });
    for (let attempt = 0; ; ) {
      // A token request changes nothing a repeat could double: always safe to retry.
      const response = await this.attempt(request.clone(), attempt, true);
      if (response === 'retry') {
        attempt += 1;
        continue;
      }
      const wait = response.ok ? undefined : this.retryWait(response, attempt, true);
      if (wait !== undefined) {
        await response.body?.cancel();
        await sleep(wait);
        attempt += 1;
        continue;
      }
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: the error below quotes the text
      }
      if (!response.ok) throw SigilError.fromAnswer(response, parsed);
      const { access_token, expires_in } = parsed as { access_token: string; expires_in: number };
      const margin = Math.min(this.options.renewBeforeExpirySeconds ?? 60, expires_in / 2);
      return { value: access_token, renewAt: Date.now() + (expires_in - margin) * 1000 };
    }
  }

  /** One attempt: the answer, or 'retry' after a network error the policy retries (having waited). */
  private async attempt(request: Request, attempt: number, retrySafe: boolean): Promise<Response | 'retry'> {
    try {
      return await this.send(request);
    } catch (error) {
      if (!retrySafe || attempt >= this.retry.maxRetries) {
        throw new SigilConnectionError(`${request.method} ${request.url}: no answer (${String(error)})`, {
          cause: error,
        });
      }
      await sleep(this.backoff(attempt));
      return 'retry';
    }
  }

  /** How long to wait before retrying this answer, or undefined when it is final. */
  private retryWait(response: Response, attempt: number, retrySafe: boolean): number | undefined {
    if (attempt >= this.retry.maxRetries) return undefined;
    // 409 with Retry-After: the same Idempotency-Key's first attempt is still running (a retry after a lost answer).
    const inProgress = response.status === 409 && retrySafe && response.headers.has('retry-after');
    const retryable = response.status === 429 || (response.status === 503 && retrySafe) || inProgress;
    if (!retryable) return undefined;
    const asked = retryAfterMs(response.headers.get('retry-after'));
    return Math.min(asked ?? this.backoff(attempt), this.retry.maxDelayMs);
  }

  private backoff(attempt: number): number {
    const ceiling = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
    return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
  }
}

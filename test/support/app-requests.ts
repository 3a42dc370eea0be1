// Requests to the API for tests and benches, one way for all: `asUser` (the answer, whatever its status) and
// `callAs` (an answer that must have the expected status: its JSON body), sent either into the app itself
// (`app.inject`, no socket) or to the base URL of a listening one (`fetch`), by any caller — a signed-in user
// (the session cookie and the app's Origin), an integrator's token (`bearer`), any headers, or no one (`null`:
// the app's Origin only, as a signed-out browser); `expectJson` and `expectError` read an answer; the signer API
// as the signer page calls it (`signThroughApi`).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { SESSION_COOKIE } from '../../services/accounts/sessions.ts';
import { encodePng } from './png.ts';
import { APP_ORIGIN } from './signed-in-user.ts';

/** Where a request goes: the app itself (`app.inject`), or the base URL of a listening app (`fetch`). */
export type Target = FastifyInstance | string;

/**
 * Who asks: a `SignedInUser` (its `headers`: the session cookie and the app's Origin), `bearer(token)`, any
 * `{ headers }`, or `null` (no credentials; the app's Origin, as every mutation from a browser carries it).
 */
export type Caller = { readonly headers: Readonly<Record<string, string>> } | null;

export interface RequestOptions {
  /** Headers over the caller's (an Accept, a forwarded address, a content type for a raw body). */
  headers?: Record<string, string>;
  /** The request's `Idempotency-Key`. */
  idempotencyKey?: string;
}

export interface CallOptions extends RequestOptions {
  /** The status the answer must have (one of several): 200 unless said. */
  status?: number | readonly number[];
}

/**
 * The browser that holds session `token` (the session cookie's value, as a sign-in answer sets it), with the
 * app's Origin; null or empty (a cleared cookie): a signed-out browser.
 */
export function sessionCaller(token: string | null): Caller {
  return token ? { headers: { origin: APP_ORIGIN, cookie: `${SESSION_COOKIE}=${token}` } } : null;
}

/** An integrator's access token as a caller. */
export function bearer(token: string): Caller {
  return { headers: { authorization: `Bearer ${token}` } };
}

function headersOf(caller: Caller, options: RequestOptions): Record<string, string> {
  return {
    ...(caller ? caller.headers : { origin: APP_ORIGIN }),
    ...(options.idempotencyKey === undefined ? {} : { 'idempotency-key': options.idempotencyKey }),
    ...options.headers,
  };
}

/** A body that is a string or bytes is sent as it is (its content type in `options.headers`); any other as JSON. */
const isRaw = (body: unknown): body is string | Buffer => typeof body === 'string' || Buffer.isBuffer(body);

/**
 * A route as `caller`: the answer, whatever its status — `app.inject`'s answer for an app, `fetch`'s for a base
 * URL. No body, no content type (Fastify refuses an empty JSON body).
 */
export function asUser(
  target: FastifyInstance,
  caller: Caller,
  method: string,
  path: string,
  body?: unknown,
  options?: RequestOptions,
): Promise<LightMyRequestResponse>;
export function asUser(
  target: string,
  caller: Caller,
  method: string,
  path: string,
  body?: unknown,
  options?: RequestOptions,
): Promise<Response>;
export function asUser(
  target: Target,
  caller: Caller,
  method: string,
  path: string,
  body?: unknown,
  options: RequestOptions = {},
): Promise<LightMyRequestResponse | Response> {
  const headers = headersOf(caller, options);
  if (typeof target !== 'string') {
    return target.inject({
      method: method as 'GET',
      url: path,
      headers,
      ...(body === undefined ? {} : { payload: body as object }),
    });
  }
  return fetch(`${target}${path}`, {
    method,
    headers: {
      ...(body === undefined || isRaw(body) ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: isRaw(body) ? body : JSON.stringify(body) }),
  });
}

/**
 * A route as `caller` that must answer `options.status` (200 unless said): its JSON body (none: undefined), typed
 * as the test says (untyped, as `app.inject`'s `json()` gives it).
 */
// biome-ignore lint/suspicious/noExplicitAny: the default type of a JSON body, as light-my-request's json() has it
export async function callAs<T = any>(
  target: Target,
  caller: Caller,
  method: string,
  path: string,
  body?: unknown,
  options: CallOptions = {},
): Promise<T> {
  const expected = [options.status ?? 200].flat();
  if (typeof target !== 'string') {
    const response = await asUser(target, caller, method, path, body, options);
    expect(expected, `${method} ${path} answered ${response.statusCode}: ${response.body}`).toContain(
      response.statusCode,
    );
    return (response.body ? response.json() : undefined) as T;
  }
  const response = await asUser(target, caller, method, path, body, options);
  const text = await response.text();
  expect(expected, `${method} ${path} answered ${response.status}: ${text}`).toContain(response.status);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** The specification's error body's `error`. */
export interface ApiError {
  code: string;
  message: string;
  details: { field?: string; message?: string; [key: string]: unknown }[];
  request_id: string;
}

/** An answer that must have `status` (200 unless said): its JSON body. */
export function expectJson<T = Record<string, unknown>>(response: LightMyRequestResponse, status = 200): T {
  expect(response.statusCode, response.body).toBe(status);
  return response.json() as T;
}

/**
 * An answer that must be the specification's error body with `status` and `code`, its request_id the
 * X-Request-Id header: the error.
 */
export function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error).toEqual({
    code,
    message: expect.any(String),
    details: expect.any(Array),
    request_id: response.headers['x-request-id'],
  });
  expect(body.error.request_id).toEqual(expect.any(String));
  return body.error as ApiError;
}

/**
 * The signer's side of a signing link, through the signer API as the signer page calls it: fills every field
 * (a drawn signature, a date, a name) and signs.
 */
export async function signThroughApi(baseUrl: string, link: string): Promise<void> {
  const token = link.split('/sign/')[1] as string;
  const page = { headers: { origin: baseUrl } };
  const signer = (method: string, path: string, body?: unknown) =>
    callAs<{ fields: { fieldDefinitionId: string; type: string }[] }>(
      baseUrl,
      page,
      method,
      `/api/signing/${token}${path}`,
      body,
    );
  const view = await signer('GET', '');
  const png = encodePng(60, 20, (_x, y) => (Math.abs(y - 10) < 2 ? [20, 30, 120, 255] : [0, 0, 0, 0]));
  const values = view.fields.map((field) => ({
    fieldDefinitionId: field.fieldDefinitionId,
    value:
      field.type === 'Signature'
        ? { imagePngBase64: png.toString('base64'), typedName: 'Signer' }
        : field.type === 'Date'
          ? '2026-12-01'
          : 'Dana Levi',
  }));
  await signer('PUT', '/fields', { values });
  await signer('POST', '/complete', { consent: true });
}

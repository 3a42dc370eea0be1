// The business app's routes called as a browser would, for the browser tests (test/e2e/app-*.test.ts): as a
// signed-in user (the session cookie and the app's Origin), and the signer API as the signer page calls it.
import { expect } from 'vitest';
import { encodePng } from './png.ts';
import { APP_ORIGIN, type SignedInUser } from './signed-in-user.ts';

/** A route of the app as `user`, from the app's origin: the answer, whatever its status. */
export function asUser(
  baseUrl: string,
  user: SignedInUser,
  method: string,
  path: string,
  body?: unknown,
): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      cookie: user.cookie,
      origin: APP_ORIGIN,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** A route of the app as `user` that must answer 200: its JSON body. */
export async function callAs<T = unknown>(
  baseUrl: string,
  user: SignedInUser,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const response = await asUser(baseUrl, user, method, path, body);
  expect(response.status, `${method} ${path}: ${await response.clone().text()}`).toBe(200);
  return (await response.json()) as T;
}

/**
 * `callAs` for a test file whose app listens at an address known once its browser is up: `baseUrl` is read at
 * each call.
 */
export function appCaller(baseUrl: () => string) {
  return <T = unknown>(user: SignedInUser, method: string, path: string, body?: unknown): Promise<T> =>
    callAs<T>(baseUrl(), user, method, path, body);
}

/**
 * The signer's side of a signing link, through the signer API as the signer page calls it: fills every field
 * (a drawn signature, a date, a name) and signs.
 */
export async function signThroughApi(baseUrl: string, link: string): Promise<void> {
  const token = link.split('/sign/')[1] as string;
  const signer = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${baseUrl}/api/signing/${token}${path}`, {
      method,
      headers: { origin: baseUrl, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(response.status, `${method} ${path}: ${await response.clone().text()}`).toBe(200);
    return response.json() as Promise<{ fields: { fieldDefinitionId: string; type: string }[] }>;
  };
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

// Client of the signer API (docs/api.md, "Signer API"): the view of a signing link, saving values,
// completing, declining and the one-time code steps. The shapes are the server's own (domain/signing.ts),
// imported as types, so the page and the API cannot drift apart. The token in the path is the credential; an OTP
// recipient's signer session (from a verified code) is kept in sessionStorage for this tab and sent as
// X-Signing-Session with every request.

import type { DelegateRecipientRequest } from '../../../../domain/envelope.ts';
import type {
  CodeSent,
  CodeVerified,
  DelegationOutcome,
  SigningOutcome,
  SigningView,
} from '../../../../domain/signing.ts';
import type { PersonalStampOffer, PersonalStampOffers } from '../../../../domain/stamp.ts';
import {
  PLAIN_FIELD_TYPES,
  SIGNING_SESSION_HEADER,
  SIGNING_STATES,
  type SigningState,
} from '../../../../domain/vocabulary.ts';
import { RequestError, requestErrorFrom, unreachable } from '../shared/request-error.ts';

export type {
  DelegationOutcome,
  FilledField,
  RequiredField,
  SigningField,
  SigningOutcome,
  SigningView,
} from '../../../../domain/signing.ts';
export type { PersonalStampOffer } from '../../../../domain/stamp.ts';
export type { SignerAction, SigningState } from '../../../../domain/vocabulary.ts';
/**
 * A failed call: the web app's one error model (shared/request-error.ts) — the HTTP status (0 when the network
 * failed), the error body's code, message, details and request id.
 */
export { RequestError as SigningError } from '../shared/request-error.ts';
export { PLAIN_FIELD_TYPES, SIGNING_STATES };

export function isSigningState(value: unknown): value is SigningState {
  return typeof value === 'string' && (SIGNING_STATES as readonly string[]).includes(value);
}

const SESSION_PREFIX = 'sigil.signingSession.';

interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** The tab's sessionStorage (this module is also type-checked, by the unit tests, without the DOM). */
function tabStorage(): KeyValueStorage | undefined {
  return (globalThis as { sessionStorage?: KeyValueStorage }).sessionStorage;
}

function sessionKey(token: string): string {
  // The key holds a short prefix of the token only; the whole token stays in the address.
  return SESSION_PREFIX + token.slice(0, 12);
}

export function readSigningSession(token: string): string | undefined {
  try {
    return tabStorage()?.getItem(sessionKey(token)) ?? undefined;
  } catch {
    return undefined;
  }
}

function storeSigningSession(token: string, sessionToken: string | undefined): void {
  try {
    if (sessionToken) tabStorage()?.setItem(sessionKey(token), sessionToken);
    else tabStorage()?.removeItem(sessionKey(token));
  } catch {
    // storage disabled: the session lasts until the page is left
  }
}

async function call<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const session = readSigningSession(token);
  if (session) headers[SIGNING_SESSION_HEADER] = session;
  let response: Response;
  try {
    response = await fetch(`/api/signing/${encodeURIComponent(token)}${path}`, {
      method,
      headers,
      cache: 'no-store',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (error) {
    throw unreachable(error);
  }
  const payload: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    // An expired or foreign session: forget it, the page asks for a new code.
    if (response.status === 403 && session) storeSigningSession(token, undefined);
    throw requestErrorFrom(response.status, payload);
  }
  return payload as T;
}

export function fetchSigningView(token: string): Promise<SigningView> {
  return call<SigningView>(token, 'GET', '');
}

export function saveSigningValues(
  token: string,
  values: { fieldDefinitionId: string; value: unknown }[],
): Promise<SigningView> {
  return call<SigningView>(token, 'PUT', '/fields', { values });
}

export function completeSigning(token: string, consent: boolean): Promise<SigningOutcome> {
  return call(token, 'POST', '/complete', consent ? { consent: true } : {});
}

export function declineSigning(token: string, reason: string): Promise<SigningOutcome> {
  return call(token, 'POST', '/decline', { reason });
}

export function requestCode(token: string): Promise<CodeSent> {
  return call(token, 'POST', '/otp');
}

export async function verifyCode(token: string, code: string): Promise<void> {
  const result = await call<CodeVerified>(token, 'POST', '/otp/verify', {
    code,
  });
  storeSigningSession(token, result.sessionToken);
}

/**
 * The personal stamps the business app's signed-in user may put in this recipient's Company stamp fields
 * (docs/stamps.md): sent with the app's session cookie (same origin), answered only when its address is the
 * recipient's; otherwise, or on any failure, none.
 */
export async function fetchPersonalStamps(token: string): Promise<PersonalStampOffer[]> {
  try {
    return (await call<PersonalStampOffers>(token, 'GET', '/personal-stamps')).stamps;
  } catch {
    return [];
  }
}

/** Puts one of those stamps into a Company stamp field; the answer is the view after it, as a save's. */
export function choosePersonalStamp(
  token: string,
  fieldDefinitionId: string,
  stampId: string,
): Promise<SigningView> {
  return call<SigningView>(token, 'POST', '/personal-stamps', { fieldDefinitionId, stampId });
}

/** A binary resource of the link, with the signer session if any; failures as RequestError. */
async function fetchBinary(token: string, url: string, accept: string): Promise<Response> {
  const headers: Record<string, string> = { accept };
  const session = readSigningSession(token);
  if (session) headers[SIGNING_SESSION_HEADER] = session;
  let response: Response;
  try {
    response = await fetch(url, { headers, cache: 'no-store' });
  } catch (error) {
    throw unreachable(error);
  }
  if (!response.ok) throw new RequestError(response.status, 'error', `HTTP ${response.status}`);
  return response;
}

/**
 * The document as this recipient sees it (a PDF), with the signer session if any. The specification puts
 * it at the root, `GET /<token>/document`, not under /api/signing.
 */
export async function fetchSigningDocument(token: string): Promise<ArrayBuffer> {
  const response = await fetchBinary(token, `/${encodeURIComponent(token)}/document`, 'application/pdf');
  return response.arrayBuffer();
}

/** A file this signer saved earlier in one of their fields (a signature, a stamp, an upload), by its id. */
export async function fetchSignerFile(token: string, fileId: string): Promise<Blob> {
  const url = `/api/signing/${encodeURIComponent(token)}/files/${encodeURIComponent(fileId)}`;
  const response = await fetchBinary(token, url, '*/*');
  return response.blob();
}

/** Hands this recipient's part to another person (the view's `allowDelegation`); this link ends. */
export function delegateSigning(
  token: string,
  delegate: DelegateRecipientRequest,
): Promise<DelegationOutcome> {
  return call(token, 'POST', '/delegate', delegate);
}

/**
 * A document the link downloads (a path of the view's `downloads`), with the signer session if any, and the
 * file name the server gives it.
 */
export async function downloadSigningDocument(
  token: string,
  path: string,
): Promise<{ blob: Blob; filename: string }> {
  const response = await fetchBinary(token, path, 'application/pdf');
  const disposition = response.headers.get('content-disposition') ?? '';
  const named =
    /filename\*=UTF-8''([^;]+)/i.exec(disposition)?.[1] ?? /filename="?([^";]+)"?/i.exec(disposition)?.[1];
  return { blob: await response.blob(), filename: named ? decodeURIComponent(named) : 'document.pdf' };
}

// The backoffice's session rules (shared/session.ts, docs/backoffice.md): 401 `unauthorized` (no backoffice
// session, or it ended: idle 15 minutes, 8 hours, or the administrator was removed) sends the visitor to the
// backoffice's sign-in, coming back afterwards; every other refusal is the page's to show — the server's
// message, with the value a refusal's details name (the address of `would_lock_out`, the domain of
// `domain_not_allowed` and `domain_in_use`).
import { requestErrorOf } from '$lib/shared/request-error';
import { areaSession } from '$lib/shared/session';

export const BACKOFFICE_HOME = '/backoffice';
export const BACKOFFICE_SIGN_IN = '/backoffice/sign-in';

export const backofficeSession = areaSession(BACKOFFICE_HOME, BACKOFFICE_SIGN_IN);

/** A page the sign-in may return to: only the backoffice's own pages. */
export function safeBackofficeNext(next: string | null | undefined): string {
  return backofficeSession.safeNext(next);
}

export function backofficeSignInPathFor(location: URL): string {
  return backofficeSession.signIn(location);
}

/** A 401 `unauthorized`: the backoffice session is missing or ended (a wrong code is 401 too, with its own code). */
export function sessionEnded(error: unknown): boolean {
  return backofficeSession.ended(error);
}

/** Sends the visitor to sign in again when the answer says the session ended, and returns true. */
export function followBackofficeSession(error: unknown): boolean {
  return backofficeSession.follow(error);
}

/** A value the refusal's details carry (`address`, `domain`), when it has one. */
export function detailOf(error: unknown, name: string): string | undefined {
  const value = requestErrorOf(error).detail(name);
  return typeof value === 'string' && value ? value : undefined;
}

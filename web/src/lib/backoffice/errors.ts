// What the backoffice's pages make of a failed call (docs/backoffice.md): 401 `unauthorized` (no backoffice
// session, or it ended: idle 15 minutes, 8 hours, or the administrator was removed) sends the visitor to the
// backoffice's sign-in, coming back afterwards; every other refusal is the page's to show — the server's
// message, with the value a refusal's details name (the address of `would_lock_out`, the domain of
// `domain_not_allowed` and `domain_in_use`).
import { goto } from '$app/navigation';
import { statusOf } from '$lib/app/errors';
import { errorBodyOf } from '$lib/shared/app-client';

export const BACKOFFICE_HOME = '/backoffice';
export const BACKOFFICE_SIGN_IN = '/backoffice/sign-in';

/** A page the sign-in may return to: only the backoffice's own pages (no other site, no protocol-relative path). */
export function safeBackofficeNext(next: string | null | undefined): string {
  if (!next || next.includes('\\')) return BACKOFFICE_HOME;
  const own =
    next === BACKOFFICE_HOME ||
    next.startsWith(`${BACKOFFICE_HOME}/`) ||
    next.startsWith(`${BACKOFFICE_HOME}?`);
  return own && !next.startsWith(BACKOFFICE_SIGN_IN) ? next : BACKOFFICE_HOME;
}

export function backofficeSignInPathFor(location: URL): string {
  const next = `${location.pathname}${location.search}`;
  return next === BACKOFFICE_HOME
    ? BACKOFFICE_SIGN_IN
    : `${BACKOFFICE_SIGN_IN}?next=${encodeURIComponent(next)}`;
}

/** A 401 `unauthorized`: the backoffice session is missing or ended (a wrong code is 401 too, with its own code). */
export function sessionEnded(error: unknown): boolean {
  return statusOf(error) === 401 && errorBodyOf(error)?.code === 'unauthorized';
}

/**
 * Sends the visitor to sign in again when the answer says the session ended, and returns true; any other
 * failure is the page's to show.
 */
export function followBackofficeSession(error: unknown): boolean {
  if (!sessionEnded(error)) return false;
  void goto(backofficeSignInPathFor(new URL(window.location.href)), { replaceState: true });
  return true;
}

/** A value the refusal's details carry (`address`, `domain`), when it has one. */
export function detailOf(error: unknown, name: string): string | undefined {
  for (const detail of errorBodyOf(error)?.details ?? []) {
    const value = (detail as Record<string, unknown>)[name];
    if (typeof value === 'string' && value) return value;
  }
  return undefined;
}

// The session rules of an area (the business app, the backoffice), in one shape: its first page, its sign-in
// page (coming back to `?next=`, only to the area's own pages), its two-step set-up page if it has one, and what
// a failed call's session answer means — 401 `unauthorized` (no session, or it ended: sign in again) and 403
// `mfa_enrolment_required` (set up two-step verification first). Load functions hand the rules to `failLoad`
// (load.ts); an action's failure is followed with `follow`.
import { goto } from '$app/navigation';
import type { SessionRules } from './load.ts';
import { requestErrorOf } from './request-error.ts';

export interface AreaSession extends SessionRules {
  home: string;
  signInPage: string;
  /** A page the sign-in may return to: only the area's own (no other site, no protocol-relative path). */
  safeNext(next: string | null | undefined): string;
  /** Whether a failed call says the session is missing or ended (a wrong code is 401 too, with its own code). */
  ended(error: unknown): boolean;
  /**
   * Sends the visitor where a failed call's session answer says and returns true; any other failure is the
   * page's to show.
   */
  follow(error: unknown): boolean;
  /**
   * Signs out with `call`, then forgets who was signed in (`forget`) and opens the sign-in page; a session that
   * had already ended is signed out all the same. Any other failure is returned, for the shell to say.
   */
  signOut(call: () => Promise<unknown>, forget: () => void): Promise<unknown>;
}

export function areaSession(home: string, signInPage: string, setup?: string): AreaSession {
  const signIn = (url: URL): string => {
    const next = `${url.pathname}${url.search}`;
    return next === home ? signInPage : `${signInPage}?next=${encodeURIComponent(next)}`;
  };
  const ended = (error: unknown): boolean => {
    const failure = requestErrorOf(error);
    return failure.status === 401 && failure.code === 'unauthorized';
  };
  return {
    home,
    signInPage,
    ...(setup ? { setup } : {}),
    signIn,
    safeNext(next) {
      if (!next || next.includes('\\')) return home;
      const own = next === home || next.startsWith(`${home}/`) || next.startsWith(`${home}?`);
      return own && !next.startsWith(signInPage) ? next : home;
    },
    ended,
    follow(error) {
      if (setup && requestErrorOf(error).code === 'mfa_enrolment_required') {
        if (window.location.pathname !== setup) void goto(setup, { replaceState: true });
        return true;
      }
      if (!ended(error)) return false;
      void goto(signIn(new URL(window.location.href)), { replaceState: true });
      return true;
    },
    async signOut(call, forget) {
      try {
        await call();
      } catch (error) {
        if (!ended(error)) return error;
      }
      forget();
      await goto(signInPage, { replaceState: true });
      return undefined;
    },
  };
}

// What a `load` function (`+page.ts`, `+layout.ts`) does with a failed call (web/README.md, "How to build a
// page"): an answer that sends the visitor elsewhere becomes a redirect — 401 `unauthorized` to the area's
// sign-in (coming back afterwards), 403 `mfa_enrolment_required` to the two-step set-up page — and anything
// else becomes SvelteKit's error with the RequestError's code, message, permission and request id, which the
// area's +error.svelte draws with the kit's PageState (forbidden, not found, could not be reached, failed).
import { error, isHttpError, isRedirect, redirect } from '@sveltejs/kit';
import { requestErrorOf, UNREACHABLE } from './request-error.ts';

/** Where an area sends a visitor whose session a failed call says is missing, or must set up two-step first. */
export interface SessionRules {
  /** The sign-in page for the page at `url`, with `?next=` to come back. */
  signIn(url: URL): string;
  /** The two-step verification set-up page (the business app's); none for the backoffice. */
  setup?: string;
}

/** Throws the redirect or error a failed load call stands for. */
export function failLoad(cause: unknown, url: URL, rules?: SessionRules): never {
  if (isRedirect(cause) || isHttpError(cause)) throw cause;
  const failure = requestErrorOf(cause);
  if (rules && failure.status === 401 && failure.code === 'unauthorized') redirect(307, rules.signIn(url));
  if (rules?.setup && failure.code === 'mfa_enrolment_required' && url.pathname !== rules.setup) {
    redirect(307, rules.setup);
  }
  const permission = failure.code === 'forbidden' ? failure.detail('permission') : undefined;
  error(failure.status >= 400 && failure.status <= 599 ? failure.status : 503, {
    message: failure.serverMessage ?? '',
    code: failure.answered ? failure.code : UNREACHABLE,
    ...(typeof permission === 'string' ? { permission } : {}),
    ...(failure.requestId ? { requestId: failure.requestId } : {}),
  });
}

/** Runs a load's calls; a failure becomes the redirect or error `failLoad` says. */
export async function loadOr<T>(
  url: URL,
  rules: SessionRules | undefined,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (cause) {
    failLoad(cause, url, rules);
  }
}

/** The 403 of a page the signed-in role may not see, checked before any call (naming the permission it needs). */
export function forbidden(permission: string): never {
  error(403, { message: '', code: 'forbidden', permission });
}

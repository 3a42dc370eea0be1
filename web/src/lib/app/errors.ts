// The business app's session rules (shared/session.ts): its sign-in, coming back afterwards, and its two-step
// set-up page — and, for the pages not yet on load functions, the words of a failed call in the shapes they use.
// The error model itself is shared/request-error.ts; field errors are shared/field-errors.ts.
import { get } from 'svelte/store';
import { format } from 'svelte-i18n';
import { formRefusal as refusalOf, fieldErrors as translatedFieldErrors } from '$lib/shared/field-errors';
import { requestErrorOf } from '$lib/shared/request-error';
import { areaSession } from '$lib/shared/session';

export const SIGN_IN_PATH = '/app/sign-in';
export const SETUP_MFA_PATH = '/app/setup-mfa';

/** The business app's session: 401 → its sign-in, `mfa_enrolment_required` → the set-up page. */
export const appSession = areaSession('/app', SIGN_IN_PATH, SETUP_MFA_PATH);

/** The server's message, or undefined when no server answered (the page then says it could not be reached). */
export function serverMessage(error: unknown): string | undefined {
  return requestErrorOf(error).serverMessage;
}

/** The HTTP status of a failed call, or undefined when no server answered. */
export function statusOf(error: unknown): number | undefined {
  return requestErrorOf(error).status || undefined;
}

/** The server's error code (`forbidden`, `conflict`, …). */
export function errorCode(error: unknown): string | undefined {
  const failure = requestErrorOf(error);
  return failure.answered ? failure.code : undefined;
}

/** A 400's refused fields by name (`retention.completedDays`), each message in the page's language. */
export function fieldErrors(error: unknown): Record<string, string> {
  return translatedFieldErrors(error);
}

/**
 * What a form says above its fields when the server refused it: "fix the fields" when every refused field
 * shows its message beside it, else the server's message (or that it could not be reached).
 */
export function formRefusal(
  error: unknown,
  shownFields: readonly string[],
  messages: { fixErrors: string; unreachable: string },
): string {
  return refusalOf(error, shownFields, (key) =>
    key === 'account.fixErrors' ? messages.fixErrors : messages.unreachable,
  );
}

/** The permission a 403 `forbidden` names ('' when it names none), or undefined for any other answer. */
export function forbiddenPermission(error: unknown): string | undefined {
  const failure = requestErrorOf(error);
  if (failure.code !== 'forbidden') return undefined;
  const named = failure.detail('permission');
  return typeof named === 'string' ? named : '';
}

/** A page path the sign-in may return to: only this app's own pages. */
export function safeNext(next: string | null | undefined): string {
  return appSession.safeNext(next);
}

export function signInPathFor(location: URL): string {
  return appSession.signIn(location);
}

/**
 * Sends the visitor where a session answer says (401 `unauthorized`: sign in; 403 `mfa_enrolment_required`:
 * set up two-step verification) and returns true; any other failure is the page's to show.
 */
export function followSessionAnswer(error: unknown): boolean {
  return appSession.follow(error);
}

/**
 * What a page says when one of its actions failed: nothing when the session answer took the visitor elsewhere
 * (followSessionAnswer), else the server's message, or that it could not be reached.
 */
export function actionFailure(error: unknown): string {
  if (followSessionAnswer(error)) return '';
  return serverMessage(error) ?? get(format)('workspace.unreachable');
}

// What the business app's pages make of a failed call: the server's message (errorBodyOf), the fields a 400
// names (shown beside each field), the permission a 403 `forbidden` names, and the two answers that send the
// visitor elsewhere — 401 (signed out: the sign-in page, coming back afterwards) and 403
// `mfa_enrolment_required` (the organization requires two-step verification: its set-up page).
import { TRPCClientError } from '@trpc/client';
import { goto } from '$app/navigation';
import { errorBodyOf } from '$lib/shared/app-client';

export const SIGN_IN_PATH = '/app/sign-in';
export const SETUP_MFA_PATH = '/app/setup-mfa';

/** The server's message, or undefined when no server answered (the page then says it could not be reached). */
export function serverMessage(error: unknown): string | undefined {
  return errorBodyOf(error)?.message;
}

/** The HTTP status of a failed call, or undefined when no server answered. */
export function statusOf(error: unknown): number | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  const status = (error.meta as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** The server's error code (`forbidden`, `conflict`, …). */
export function errorCode(error: unknown): string | undefined {
  return errorBodyOf(error)?.code;
}

/**
 * The messages of an input refusal (400 `invalid_request`, the request's schema) by field, without the part
 * of the request they came from: `body.retention.completedDays` → `retention.completedDays`. Other refusals
 * (a wrong code, a conflict) are said by the error's own message.
 */
export function fieldErrors(error: unknown): Record<string, string> {
  const body = errorBodyOf(error);
  const fields: Record<string, string> = {};
  if (body?.code !== 'invalid_request') return fields;
  for (const detail of body.details) {
    const field = typeof detail.field === 'string' ? detail.field : undefined;
    const message = typeof detail.message === 'string' ? detail.message : undefined;
    if (!field || !message) continue;
    const name = field.replace(/^(body|querystring|params)\./, '');
    fields[name] ??= message;
  }
  return fields;
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
  const refused = Object.keys(fieldErrors(error));
  if (refused.length > 0 && refused.every((field) => shownFields.includes(field))) return messages.fixErrors;
  return serverMessage(error) ?? messages.unreachable;
}

/** The permission a 403 `forbidden` names, or undefined for any other answer. */
export function forbiddenPermission(error: unknown): string | undefined {
  const body = errorBodyOf(error);
  if (body?.code !== 'forbidden') return undefined;
  const named = body.details.find((detail) => typeof detail.permission === 'string')?.permission;
  return typeof named === 'string' ? named : '';
}

/** A page path the sign-in may return to: only this app's own pages (no other site, no protocol-relative path). */
export function safeNext(next: string | null | undefined): string {
  if (!next || next.includes('\\')) return '/app';
  const ownPage = next === '/app' || next.startsWith('/app/') || next.startsWith('/app?');
  return ownPage && !next.startsWith(SIGN_IN_PATH) ? next : '/app';
}

export function signInPathFor(location: URL): string {
  const next = `${location.pathname}${location.search}`;
  return next === '/app' ? SIGN_IN_PATH : `${SIGN_IN_PATH}?next=${encodeURIComponent(next)}`;
}

/**
 * Sends the visitor where a session answer says (401 `unauthorized`: no session, or it ended — sign in; 403
 * `mfa_enrolment_required`: set up two-step verification) and returns true; any other failure (a wrong
 * password or code is 401 too, with a code of its own) is the page's to show.
 */
export function followSessionAnswer(error: unknown): boolean {
  const body = errorBodyOf(error);
  if (!body) return false;
  if (body.code === 'mfa_enrolment_required') {
    if (window.location.pathname !== SETUP_MFA_PATH) void goto(SETUP_MFA_PATH, { replaceState: true });
    return true;
  }
  if (statusOf(error) === 401 && body.code === 'unauthorized') {
    void goto(signInPathFor(new URL(window.location.href)), { replaceState: true });
    return true;
  }
  return false;
}

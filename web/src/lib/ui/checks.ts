// A form's own checks of what was typed, before the server's (FormState's `check`): the refusals by field in
// the page's language, the fields that passed left out. The server checks again; these only spare a round trip.
import { get } from 'svelte/store';
import { format } from 'svelte-i18n';
import { PASSWORD_MIN_LENGTH } from '../shared/password.ts';

/** The refusals found: a field's message, or nothing (undefined, false, '') when it passed. */
export function refusals(found: Record<string, string | false | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(found).filter((entry): entry is [string, string] => Boolean(entry[1])),
  );
}

/** Something like an address (one @, no spaces); otherwise the catalog's "Enter an email address…". */
export function emailProblem(email: string): string | undefined {
  return /^[^\s@]+@[^\s@]+$/.test(email.trim()) ? undefined : get(format)('account.emailInvalid');
}

/** A new password long enough for the policy (lib/shared/password.ts); otherwise how long it must be. */
export function newPasswordProblem(password: string): string | undefined {
  return password.length < PASSWORD_MIN_LENGTH
    ? get(format)('account.password.tooShort', { values: { min: PASSWORD_MIN_LENGTH } })
    : undefined;
}

/** A value that must not be empty: its message when it is. */
export function requiredProblem(value: string, message: string): string | undefined {
  return value.trim() ? undefined : message;
}

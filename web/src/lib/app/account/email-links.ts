// The emailed links' pages (verify-email, reset-password, accept-invite: docs/accounts.md): their load reads the
// link's token from the address and claims it (or, for a verification, uses it) before the page is drawn. A link
// that no longer works is the page's own answer — said in its card, with the way to a new link — not a failed
// page: `failed` holds the server's message (undefined: no server answered) or `missing` for an address without
// a token.
import { requestErrorOf } from '$lib/shared/request-error';

export type LinkClaim<T> =
  | { claimed: T; token: string; failed?: undefined }
  | { failed: { missing: boolean; message: string | undefined } };

export async function claimLink<T>(url: URL, claim: (token: string) => Promise<T>): Promise<LinkClaim<T>> {
  const token = url.searchParams.get('token') ?? '';
  if (!token) return { failed: { missing: true, message: undefined } };
  try {
    return { claimed: await claim(token), token };
  } catch (error) {
    return { failed: { missing: false, message: requestErrorOf(error).serverMessage } };
  }
}

/** What the card says under "This link no longer works": why, in the server's words or the page's. */
export function failureText(
  failed: { missing: boolean; message: string | undefined },
  t: (key: string) => string,
) {
  if (failed.missing) return t('account.link.missing');
  return failed.message ?? t('workspace.unreachable');
}

// Who is signed in to the backoffice: `backofficeAdmins.me` (the administrator and the session), loaded by the
// backoffice's signed-in layout and read by its pages. Reactive (Svelte runes), one per tab; apart from the
// business app's `account` (another population, another cookie: docs/backoffice.md).
import { appClient } from '$lib/shared/app-client';
import { SignedIn } from '$lib/shared/signed-in.svelte';
import type { BackofficeSession } from './types.ts';

export const backoffice = new SignedIn<BackofficeSession>((signal) =>
  appClient.backofficeAdmins.me.query(undefined, { signal }),
);

/** The signed-in administrator inside the signed-in layout (which renders its pages only once loaded). */
export function signedInAdmin(): BackofficeSession {
  return backoffice.loaded();
}

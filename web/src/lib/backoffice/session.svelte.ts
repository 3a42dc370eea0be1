// Who is signed in to the backoffice: `backofficeAdmins.me` (the administrator and the session), loaded by the
// backoffice's signed-in layout and read by its pages. Reactive (Svelte runes), one per tab; apart from the
// business app's `account` (another population, another cookie: docs/backoffice.md).
import { appClient } from '$lib/shared/app-client';
import type { BackofficeSession } from './types.ts';

class Backoffice {
  /** The signed-in administrator and their session; null until loaded or after signing out. */
  me = $state<BackofficeSession | null>(null);

  /** Loads the session again (a failed call rejects: the caller decides what it means). */
  async refresh(signal?: AbortSignal): Promise<BackofficeSession> {
    const me = await appClient.backofficeAdmins.me.query(undefined, { signal });
    this.me = me;
    return me;
  }

  forget(): void {
    this.me = null;
  }
}

export const backoffice = new Backoffice();

/** The signed-in administrator inside the signed-in layout (which renders its pages only once loaded). */
export function signedInAdmin(): BackofficeSession {
  if (!backoffice.me) throw new Error('The backoffice session is not loaded: pages render inside its layout');
  return backoffice.me;
}

// Who is signed in to the business app: `auth.me` (user, organization, role, team, permissions, session
// state), loaded by the signed-in layout and read by every signed-in page and by the navigation. Reactive
// (Svelte runes), one per tab.
import { appClient } from '$lib/shared/app-client';
import type { Me, Permission } from './types.ts';

class Account {
  /** The signed-in user's `auth.me`; null until loaded or after signing out. */
  me = $state<Me | null>(null);

  /** Whether the signed-in user's role grants `permission`. */
  can(permission: Permission): boolean {
    return this.me?.permissions.includes(permission) ?? false;
  }

  /** Whether the organization makes this session set up two-step verification before anything else. */
  get mustEnrol(): boolean {
    return this.me?.session.state === 'mfa_enrolment_required';
  }

  /** Loads `auth.me` again (a failed call rejects: the caller decides what it means). */
  async refresh(signal?: AbortSignal): Promise<Me> {
    const me = await appClient.auth.me.query(undefined, { signal });
    this.me = me;
    return me;
  }

  forget(): void {
    this.me = null;
  }
}

export const account = new Account();

/** The signed-in user inside the signed-in layout (which renders its pages only once `auth.me` is loaded). */
export function signedIn(): Me {
  if (!account.me)
    throw new Error('auth.me is not loaded: signed-in pages render inside the signed-in layout');
  return account.me;
}

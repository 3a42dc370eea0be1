// Who is signed in to the business app: `auth.me` (user, organization, role, team, permissions, session
// state), loaded by the signed-in layout and read by every signed-in page and by the navigation. Reactive
// (Svelte runes), one per tab.
import { appClient } from '$lib/shared/app-client';
import { SignedIn } from '$lib/shared/signed-in.svelte';
import type { Me, Permission } from './types.ts';

class Account extends SignedIn<Me> {
  /** Whether the signed-in user's role grants `permission`. */
  can(permission: Permission): boolean {
    return this.me?.permissions.includes(permission) ?? false;
  }

  /** Whether the organization makes this session set up two-step verification before anything else. */
  get mustEnrol(): boolean {
    return this.me?.session.state === 'mfa_enrolment_required';
  }
}

export const account = new Account((signal) => appClient.auth.me.query(undefined, { signal }));

/** The signed-in user inside the signed-in layout (which renders its pages only once `auth.me` is loaded). */
export function signedIn(): Me {
  return account.loaded();
}

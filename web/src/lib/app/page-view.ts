// What an administration page shows while and after loading its data: loading, ready, forbidden (naming the
// permission the role lacks) or failed (the server's message); drawn by PageState.svelte.
import { account } from './account.svelte.ts';
import { followSessionAnswer, forbiddenPermission, serverMessage } from './errors.ts';
import type { Permission } from './types.ts';

export type PageView =
  | { status: 'loading' }
  | { status: 'ready' }
  | { status: 'forbidden'; permission: string }
  | { status: 'failed'; message: string | undefined };

/**
 * Loads a page's data with `fetch`, showing each view in turn: forbidden at once without `permission` (null:
 * a page of every signed-in user, such as their own stamps);
 * loading first unless `showLoading` is false (a reload keeps the page as it is); then ready, or forbidden or
 * failed as the server answered (nothing more when the answer was to sign in again).
 */
export async function loadPage(
  permission: Permission | null,
  show: (view: PageView) => void,
  fetch: () => Promise<void>,
  showLoading = true,
): Promise<void> {
  if (permission !== null && !account.can(permission)) {
    show({ status: 'forbidden', permission });
    return;
  }
  if (showLoading) show({ status: 'loading' });
  try {
    await fetch();
    show({ status: 'ready' });
  } catch (error) {
    if (followSessionAnswer(error)) return;
    const denied = forbiddenPermission(error);
    show(
      denied !== undefined
        ? { status: 'forbidden', permission: denied }
        : { status: 'failed', message: serverMessage(error) },
    );
  }
}

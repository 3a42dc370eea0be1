// What the backoffice's page of an organization's users shares (docs/backoffice.md, "Users of an organization"):
// the server's shapes (domain/backoffice-users.ts, types only: the browser bundle gets no zod), the list's
// search, status and page as the address carries them, which actions a user's state allows and which the
// signed-in member of staff's role allows (domain/backoffice-roles.ts, read as the server reads it), and the
// words of the server's 409 codes.
import type { z } from 'zod';
import { backofficeRolesOf } from '../../../../../domain/backoffice-roles.ts';
import type * as users from '../../../../../domain/backoffice-users.ts';

export type OrganizationUser = z.output<typeof users.BackofficeOrganizationUser>;
export type UserAction = users.BackofficeUserAction;
export type UserStatus = OrganizationUser['status'];

export const USER_STATUSES: readonly UserStatus[] = ['invited', 'active', 'deactivated'];
export const USERS_PAGE_SIZE = 25;

export interface UserFilters {
  search: string;
  status: UserStatus | '';
  /** Where the page shown starts (the previous page's `nextCursor`); '' for the first. */
  cursor: string;
}

export function userFiltersOf(query: URLSearchParams): UserFilters {
  const status = query.get('status');
  return {
    search: query.get('search')?.trim() ?? '',
    status: (USER_STATUSES as readonly (string | null)[]).includes(status) ? (status as UserStatus) : '',
    cursor: query.get('cursor') ?? '',
  };
}

/** What backofficeUsers.list takes: only what is chosen. */
export function userQueryOf(filters: UserFilters) {
  return {
    ...(filters.search ? { search: filters.search } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.cursor ? { cursor: filters.cursor } : {}),
  };
}

/** The list's address with these filters (a new search or status starts at the first page). */
export function usersUrlOf(current: URL, filters: UserFilters): URL {
  const url = new URL(current);
  for (const [name, value] of Object.entries({ ...filters, search: filters.search.trim() })) {
    if (value) url.searchParams.set(name, value);
    else url.searchParams.delete(name);
  }
  return url;
}

export function usersHref(organizationId: string): string {
  return `/backoffice/organizations/${encodeURIComponent(organizationId)}/users`;
}

/** Whether a user's sign-in is locked now. */
export function isLocked(user: OrganizationUser, now: number = Date.now()): boolean {
  return user.lockedUntil !== null && Date.parse(user.lockedUntil) > now;
}

/** The actions the user's state allows, in the order the page offers them (the server refuses the others: 409). */
export function actionsAllowed(user: OrganizationUser, now: number = Date.now()): UserAction[] {
  if (user.status === 'invited') return ['resend-invitation'];
  if (user.status === 'deactivated') return [];
  const allowed: UserAction[] = [];
  if (isLocked(user, now)) allowed.push('unlock');
  if (!user.emailVerified) allowed.push('resend-verification');
  if (user.mfaEnabled) allowed.push('reset-mfa');
  allowed.push('deactivate');
  return allowed;
}

/** Whether the signed-in member of staff's role may take the action (the roles table the server checks). */
export function roleAllows(role: string, action: UserAction): boolean {
  const roles: readonly string[] = backofficeRolesOf(
    'POST',
    `/api/backoffice/organizations/{id}/users/{userId}/${action}`,
  );
  return roles.includes(role);
}

/** Each action's words: the button, the dialog's title and body, the message once done. */
export const ACTION_KEYS: Record<UserAction, string> = {
  'reset-mfa': 'backoffice.users.actions.resetMfa',
  'resend-invitation': 'backoffice.users.actions.resendInvitation',
  unlock: 'backoffice.users.actions.unlock',
  'resend-verification': 'backoffice.users.actions.resendVerification',
  deactivate: 'backoffice.users.actions.deactivate',
};

/** The server's 409 codes for the user actions, in the page's words. */
export const CONFLICT_KEYS: Record<string, string> = {
  not_locked: 'backoffice.users.conflicts.notLocked',
  not_unverified: 'backoffice.users.conflicts.notUnverified',
  invitation_pending: 'backoffice.users.conflicts.invitationPending',
  already_deactivated: 'backoffice.users.conflicts.alreadyDeactivated',
  last_owner: 'backoffice.users.conflicts.lastOwner',
  mfa_not_enabled: 'backoffice.users.conflicts.mfaNotEnabled',
  not_invited: 'backoffice.users.conflicts.notInvited',
  rate_limited: 'backoffice.users.conflicts.rateLimited',
};

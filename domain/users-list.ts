// The organization's users list (GET /api/users, docs/administration.md "The users list"): a search on names and
// addresses, filters by role, team and status, a sort, and pages by offset as the app's other lists have them
// (contacts, templates). Plans allow up to 250 users; a page holds at most USER_LIST_LIMITS.page.
import { z } from 'zod';
import { UserList } from './account.ts';
import { offsetPage, safeText, uuidOf } from './common.ts';

export const USER_LIST_LIMITS = {
  /** Users of one page. */
  page: 100,
  /** Characters of a search. */
  search: 100,
} as const;

/**
 * The statuses a list can be filtered by: a user's own (`active`, `invited`, `deactivated`) and `locked`, an
 * active user whose sign-in is locked now after too many wrong passwords (docs/accounts.md, "Abuse").
 */
export const USER_LIST_STATUSES = ['active', 'invited', 'deactivated', 'locked'] as const;
export type UserListStatus = (typeof USER_LIST_STATUSES)[number];

export const USER_LIST_SORTS = ['name', 'email', 'lastLoginAt', 'createdAt'] as const;
export type UserListSort = (typeof USER_LIST_SORTS)[number];

export const UserListQuery = z.strictObject({
  search: safeText()
    .trim()
    .max(USER_LIST_LIMITS.search, `search must be at most ${USER_LIST_LIMITS.search} characters`)
    .optional()
    .describe('Words that must all occur (without regard to case) in the name or the email address'),
  roleId: uuidOf('roleId').optional().describe('Only users with this role'),
  teamId: z
    .union([uuidOf('teamId'), z.literal('none')])
    .optional()
    .describe('Only users of this team; `none`: users without a team'),
  status: z
    .enum(USER_LIST_STATUSES)
    .optional()
    .describe('Only users with this status (`locked`: sign-in locked now)'),
  sort: z
    .enum(USER_LIST_SORTS)
    .default('name')
    .describe('The order: by name (default), email, last sign-in or creation'),
  order: z.enum(['asc', 'desc']).default('asc'),
  ...offsetPage(USER_LIST_LIMITS.page, 'users of the sorted list'),
});
export type UserListQuery = z.output<typeof UserListQuery>;

export const UserListPage = UserList.extend({
  /** How many users match the search and filters. */
  total: z.number().int(),
  /** The `offset` of the next page; null: this is the last. */
  nextOffset: z.number().int().nullable(),
});
export type UserListPage = z.output<typeof UserListPage>;

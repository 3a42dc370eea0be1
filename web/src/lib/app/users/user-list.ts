// The users list's search, filters, sort and page (docs/administration.md, "The users list"), as the address
// keeps them (?search=&status=&roleId=&teamId=&sort=&page=) and as users.list takes them: the page's load reads
// them from the address, the page writes them there.
import type { UserListSort, UserListStatus } from '../../../../../domain/users-list.ts';
import { addressWithFilters, chosenFilters } from '../../ui/list-address.ts';

/** Users of a page (the route allows 100). */
export const USERS_PAGE_SIZE = 50;

export const STATUS_FILTERS: readonly UserListStatus[] = ['active', 'invited', 'deactivated', 'locked'];
/** The orders offered: a sort key and its direction, as one choice. */
export const SORT_CHOICES = ['name', 'email', 'lastLoginAt-desc', 'createdAt-desc'] as const;
export type SortChoice = (typeof SORT_CHOICES)[number];

/** The words of each status filter and order. */
export const STATUS_FILTER_KEYS: Record<UserListStatus, string> = {
  active: 'admin.users.status.active',
  invited: 'admin.users.status.invited',
  deactivated: 'admin.users.status.deactivated',
  locked: 'admin.users.status.locked',
};
export const SORT_KEYS: Record<SortChoice, string> = {
  name: 'admin.users.sortBy.name',
  email: 'admin.users.sortBy.email',
  'lastLoginAt-desc': 'admin.users.sortBy.lastLoginAt-desc',
  'createdAt-desc': 'admin.users.sortBy.createdAt-desc',
};

export interface UserFilters {
  search: string;
  status: UserListStatus | '';
  roleId: string;
  teamId: string;
  sort: SortChoice;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function filtersOf(query: URLSearchParams): UserFilters {
  const teamId = query.get('teamId') ?? '';
  const roleId = query.get('roleId') ?? '';
  return {
    search: (query.get('search') ?? '').trim().slice(0, 100),
    status: STATUS_FILTERS.find((value) => value === query.get('status')) ?? '',
    roleId: UUID.test(roleId) ? roleId : '',
    teamId: teamId === 'none' || UUID.test(teamId) ? teamId : '',
    sort: SORT_CHOICES.find((value) => value === query.get('sort')) ?? 'name',
  };
}

/** The 1-based page of the address (1 when absent or not a page number). */
export function pageOf(query: URLSearchParams): number {
  const page = Number(query.get('page'));
  return Number.isInteger(page) && page >= 1 && page <= 1000 ? page : 1;
}

/** What users.list takes for the filters and the page. */
export function queryOf(filters: UserFilters, page: number) {
  const [sort, order] = filters.sort.split('-') as [UserListSort, 'desc' | undefined];
  const { search, status, roleId, teamId } = chosenFilters({
    search: filters.search,
    status: filters.status,
    roleId: filters.roleId,
    teamId: filters.teamId,
  });
  return {
    ...(search ? { search } : {}),
    ...(status ? { status: status as UserListStatus } : {}),
    ...(roleId ? { roleId } : {}),
    ...(teamId ? { teamId } : {}),
    sort,
    order: order ?? ('asc' as const),
    limit: USERS_PAGE_SIZE,
    offset: (page - 1) * USERS_PAGE_SIZE,
  };
}

/** The page's address with the filters chosen (the default order and page 1 left out). */
export function urlOf(current: URL, filters: UserFilters, page = 1): URL {
  const url = addressWithFilters(current, {
    search: filters.search,
    status: filters.status,
    roleId: filters.roleId,
    teamId: filters.teamId,
    sort: filters.sort === 'name' ? '' : filters.sort,
    page: page > 1 ? String(page) : '',
  });
  return url;
}

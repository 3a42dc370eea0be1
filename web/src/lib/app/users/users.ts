// The users page's choices (docs/administration.md): the roles and teams a user can be given — all of them with
// roles:read and teams:read, else those the users already have.
import type { AppOutputs } from '$lib/shared/app-client';
import type { UserView } from '../types.ts';

export type Option = { id: string; name: string; builtIn?: string | null };

function unique(options: Option[]): Option[] {
  return [...new Map(options.map((option) => [option.id, option])).values()].sort((a, b) =>
    a.name.localeCompare(b.name),
  );
}

export function roleOptions(users: UserView[], roles: AppOutputs['roles']['list'] | undefined): Option[] {
  return roles
    ? roles.roles.map(({ id, name, builtIn }) => ({ id, name, builtIn }))
    : unique(users.map((user) => user.role));
}

export function teamOptions(users: UserView[], teams: AppOutputs['teams']['list'] | undefined): Option[] {
  return teams
    ? teams.teams.map(({ id, name }) => ({ id, name }))
    : unique(users.flatMap((user) => (user.team ? [user.team] : [])));
}

export const STATUS_TONES: Record<UserView['status'], string> = {
  active: 'good',
  invited: 'info',
  deactivated: 'off',
};

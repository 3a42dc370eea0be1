// What an organization user may do: permission names, grouped by area, and the built-in roles. Roles are named
// sets of these names (docs/accounts.md, "Roles and permissions"); every application route declares the one
// permission it needs (api/trpc/init.ts), and the one check compares it with the signed-in user's role.
// `read` lets a user see an area, `manage` lets them change it; `manage` does not imply `read` by itself,
// so a role lists both (the web app's checklist ticks `read` with `manage`). `documents:read_all` widens
// `documents:read` from one's own and one's team's envelopes to every envelope of the organization (the
// checklist ticks `read` with it too).

export const PERMISSION_AREAS = [
  'documents',
  'templates',
  'contacts',
  'users',
  'roles',
  'teams',
  'settings',
  'integrations',
  'billing',
  'reports',
  'security',
] as const;
export type PermissionArea = (typeof PERMISSION_AREAS)[number];

export const PERMISSIONS = [
  'documents:read',
  // Every envelope of the organization, not only one's own and one's team's (docs/documents.md).
  'documents:read_all',
  'documents:manage',
  'templates:read',
  'templates:manage',
  'contacts:read',
  'contacts:manage',
  'users:read',
  'users:manage',
  'roles:read',
  'roles:manage',
  'teams:read',
  'teams:manage',
  'settings:read',
  'settings:manage',
  'integrations:read',
  'integrations:manage',
  'billing:read',
  'billing:manage',
  'reports:read',
  'security:read',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** The built-in roles every organization has: they cannot be deleted or edited. */
export const BUILT_IN_ROLES = ['owner', 'administrator', 'sender', 'member'] as const;
export type BuiltInRole = (typeof BUILT_IN_ROLES)[number];

const READ = PERMISSIONS.filter((permission) => permission.endsWith(':read'));

export const BUILT_IN_ROLE_PERMISSIONS: Record<BuiltInRole, readonly Permission[]> = {
  // Everything; the only role that may manage billing, and the one that cannot lose its last holder.
  owner: PERMISSIONS,
  // Everything but billing changes.
  administrator: PERMISSIONS.filter((permission) => permission !== 'billing:manage'),
  // Sends and follows documents with templates and contacts; sees the organization but changes nothing of it.
  sender: [
    'documents:read',
    'documents:manage',
    'templates:read',
    'templates:manage',
    'contacts:read',
    'contacts:manage',
    'users:read',
    'teams:read',
    'reports:read',
  ],
  // Reads documents, templates, contacts and reports.
  member: ['documents:read', 'templates:read', 'contacts:read', 'users:read', 'teams:read', 'reports:read'],
};

/** Names shown for the built-in roles (the web app translates them by key). */
export const BUILT_IN_ROLE_NAMES: Record<BuiltInRole, string> = {
  owner: 'Owner',
  administrator: 'Administrator',
  sender: 'Sender',
  member: 'Read-only member',
};

/** Every `:read` permission, for checklists that tick `read` with `manage`. */
export const READ_PERMISSIONS: readonly Permission[] = READ;

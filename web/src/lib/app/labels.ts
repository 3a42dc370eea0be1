// Catalog keys of the server's vocabulary (statuses, permission areas, built-in roles, security events), as
// full literal keys: every value has its message, and the types fail when the server adds a value.

import { isPermission } from '../../../../domain/permissions.ts';
import type {
  AuthenticationMethod,
  FieldType,
  IdNumberFormat,
  RecipientType,
} from '../../../../domain/vocabulary.ts';

export { PERMISSION_AREAS } from '../../../../domain/permissions.ts';
export { AUTHENTICATION_METHODS } from '../../../../domain/vocabulary.ts';

import type { Permission, PermissionArea, SecurityEventType, UserStatus } from './types.ts';

export const USER_STATUS_KEYS: Record<UserStatus, string> = {
  invited: 'admin.users.status.invited',
  active: 'admin.users.status.active',
  deactivated: 'admin.users.status.deactivated',
};

/** The permission areas in the order the checklist shows them (domain/permissions.ts, PERMISSION_AREAS). */
export const PERMISSION_AREA_KEYS: Record<PermissionArea, string> = {
  documents: 'admin.permissions.area.documents',
  templates: 'admin.permissions.area.templates',
  contacts: 'admin.permissions.area.contacts',
  users: 'admin.permissions.area.users',
  roles: 'admin.permissions.area.roles',
  teams: 'admin.permissions.area.teams',
  settings: 'admin.permissions.area.settings',
  integrations: 'admin.permissions.area.integrations',
  billing: 'admin.permissions.area.billing',
  reports: 'admin.permissions.area.reports',
  security: 'admin.permissions.area.security',
};

/** A permission's level, the part after its area: `read`, `manage`, and `read_all` (documents). */
export type PermissionLevel = Permission extends `${string}:${infer Level}` ? Level : never;

/** Every level in the order the checklist shows them; the type fails when the server adds a level. */
export const PERMISSION_LEVEL_KEYS: Record<PermissionLevel, string> = {
  read: 'admin.permissions.read',
  read_all: 'admin.permissions.readAll',
  manage: 'admin.permissions.manage',
};
export const PERMISSION_LEVELS = Object.keys(PERMISSION_LEVEL_KEYS) as PermissionLevel[];

/** Each permission by its area and level: `users:manage` → users, manage. */
export function partsOf(permission: Permission): { area: PermissionArea; level: PermissionLevel } {
  const [area, level] = permission.split(':') as [PermissionArea, PermissionLevel];
  return { area, level };
}

/** Permissions as the roles page names them, in a sentence: "Documents: View, Documents: View all". */
export function permissionNames(permissions: readonly string[], t: (key: string) => string): string {
  return permissions
    .map((permission) => {
      const { area, level } = partsOf(permission as Permission);
      return `${t(PERMISSION_AREA_KEYS[area])}: ${t(PERMISSION_LEVEL_KEYS[level])}`;
    })
    .join(', ');
}

export const BUILT_IN_ROLE_KEYS: Record<string, string> = {
  owner: 'admin.roles.builtIn.owner',
  administrator: 'admin.roles.builtIn.administrator',
  sender: 'admin.roles.builtIn.sender',
  member: 'admin.roles.builtIn.member',
};

export const AUTHENTICATION_METHOD_KEYS: Record<AuthenticationMethod, string> = {
  SecureLink: 'admin.settings.authentication.SecureLink',
  OtpSms: 'admin.settings.authentication.OtpSms',
  OtpWhatsApp: 'admin.settings.authentication.OtpWhatsApp',
};

export const SECURITY_EVENT_KEYS: Record<SecurityEventType, string> = {
  'user.registered': 'admin.securityLog.event.userRegistered',
  'user.email_verified': 'admin.securityLog.event.userEmailVerified',
  'user.signed_in': 'admin.securityLog.event.userSignedIn',
  'user.sign_in_failed': 'admin.securityLog.event.userSignInFailed',
  'user.locked_out': 'admin.securityLog.event.userLockedOut',
  'user.signed_out': 'admin.securityLog.event.userSignedOut',
  'user.mfa_enabled': 'admin.securityLog.event.userMfaEnabled',
  'user.mfa_disabled': 'admin.securityLog.event.userMfaDisabled',
  'user.mfa_reset': 'admin.securityLog.event.userMfaReset',
  'user.mfa_failed': 'admin.securityLog.event.userMfaFailed',
  'user.backup_codes_regenerated': 'admin.securityLog.event.userBackupCodesRegenerated',
  'user.password_reset_requested': 'admin.securityLog.event.userPasswordResetRequested',
  'user.password_reset': 'admin.securityLog.event.userPasswordReset',
  'user.password_changed': 'admin.securityLog.event.userPasswordChanged',
  'user.profile_updated': 'admin.securityLog.event.userProfileUpdated',
  'user.email_change_requested': 'admin.securityLog.event.userEmailChangeRequested',
  'user.email_changed': 'admin.securityLog.event.userEmailChanged',
  'user.invited': 'admin.securityLog.event.userInvited',
  'user.invitation_resent': 'admin.securityLog.event.userInvitationResent',
  'user.invitation_accepted': 'admin.securityLog.event.userInvitationAccepted',
  'user.provisioned': 'admin.securityLog.event.userProvisioned',
  'user.updated': 'admin.securityLog.event.userUpdated',
  'user.deactivated': 'admin.securityLog.event.userDeactivated',
  'user.reactivated': 'admin.securityLog.event.userReactivated',
  'user.deleted': 'admin.securityLog.event.userDeleted',
  'role.created': 'admin.securityLog.event.roleCreated',
  'role.updated': 'admin.securityLog.event.roleUpdated',
  'role.deleted': 'admin.securityLog.event.roleDeleted',
  'team.created': 'admin.securityLog.event.teamCreated',
  'team.updated': 'admin.securityLog.event.teamUpdated',
  'team.deleted': 'admin.securityLog.event.teamDeleted',
  'settings.updated': 'admin.securityLog.event.settingsUpdated',
  'secure_signature_policy.updated': 'admin.securityLog.event.secureSignaturePolicyUpdated',
  'api_key.created': 'admin.securityLog.event.apiKeyCreated',
  'api_key.updated': 'admin.securityLog.event.apiKeyUpdated',
  'api_key.deleted': 'admin.securityLog.event.apiKeyDeleted',
  'api_key.secret_rotated': 'admin.securityLog.event.apiKeySecretRotated',
  'api_key.secret_deleted': 'admin.securityLog.event.apiKeySecretDeleted',
  'support.accessed': 'admin.securityLog.event.supportAccessed',
  'user.unlocked': 'admin.securityLog.event.userUnlocked',
  'user.verification_resent': 'admin.securityLog.event.userVerificationResent',
};

/** A role's name as shown: the built-in roles' names translated, the organization's own as typed. */
export function roleLabel(
  role: { name: string; builtIn: string | null },
  translate: (key: string) => string,
): string {
  const key = role.builtIn ? BUILT_IN_ROLE_KEYS[role.builtIn] : undefined;
  return key ? translate(key) : role.name;
}

// ---- Templates (docs/templates.md) ----------------------------------------------------------------------------

export const FIELD_TYPE_KEYS: Record<FieldType, string> = {
  Signature: 'templates.fieldType.signature',
  Initials: 'templates.fieldType.initials',
  'Full name': 'templates.fieldType.fullName',
  Text: 'templates.fieldType.text',
  'Long text': 'templates.fieldType.longText',
  Date: 'templates.fieldType.date',
  Email: 'templates.fieldType.email',
  Phone: 'templates.fieldType.phone',
  'ID number': 'templates.fieldType.idNumber',
  Checkbox: 'templates.fieldType.checkbox',
  Radio: 'templates.fieldType.radio',
  Dropdown: 'templates.fieldType.dropdown',
  'Read-only text': 'templates.fieldType.readOnlyText',
  'File upload': 'templates.fieldType.fileUpload',
  'Image upload': 'templates.fieldType.imageUpload',
  'Company stamp': 'templates.fieldType.companyStamp',
};

export const RECIPIENT_TYPE_KEYS: Record<RecipientType, string> = {
  Signer: 'templates.recipientType.signer',
  FormFiller: 'templates.recipientType.formFiller',
  Approver: 'templates.recipientType.approver',
  Viewer: 'templates.recipientType.viewer',
  Cc: 'templates.recipientType.cc',
};

export const ID_NUMBER_FORMAT_KEYS: Record<IdNumberFormat, string> = {
  Any: 'templates.properties.idAny',
  IsraeliId: 'templates.properties.idIsraeli',
};

/** A permission in words (`Users · Manage`), or '' for one the app does not know (the forbidden page's). */
export function permissionLabel(permission: string, translate: (key: string) => string): string {
  if (!isPermission(permission)) return '';
  const { area, level } = partsOf(permission);
  return `${translate(PERMISSION_AREA_KEYS[area])} · ${translate(PERMISSION_LEVEL_KEYS[level])}`;
}

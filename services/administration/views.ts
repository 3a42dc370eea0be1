// The administration's resources as the application routes show them (domain/account.ts): users, roles,
// teams and the organization's settings.
import type { z } from 'zod';
import type { AppUser, Organization, Role, Team } from '../../db/entities/index.ts';
import type {
  OrganizationSettings,
  RoleView as RoleViewSchema,
  TeamView as TeamViewSchema,
  UserView as UserViewSchema,
} from '../../domain/account.ts';
import { defaultLanguageOf, supportedLanguagesOf } from '../../domain/organization-languages.ts';
import { BUILT_IN_ROLES, type BuiltInRole } from '../../domain/permissions.ts';
import type { AuthenticationMethod } from '../../domain/vocabulary.ts';
import { permissionsOf } from '../accounts/sessions.ts';
import { organizationDeadlineSettings } from '../envelopes/deadline-settings.ts';

export type UserView = z.output<typeof UserViewSchema>;
export type RoleView = z.output<typeof RoleViewSchema>;
export type TeamView = z.output<typeof TeamViewSchema>;

/** `hasPasskey`: whether the user has a passkey (two-step verification is on with an app or a passkey). */
export function userView(
  user: AppUser,
  role: Pick<Role, 'id' | 'name'>,
  team: Team | null,
  hasPasskey: boolean,
): UserView {
  return {
    id: user.id,
    email: user.email,
    fullName: user.fullName,
    status: user.status as UserView['status'],
    role: { id: role.id, name: role.name },
    team: team ? { id: team.id, name: team.name } : null,
    mfaEnabled: user.totpEnabledAt != null || hasPasskey,
    lastLoginAt: user.lastLoginAt?.toISOString() ?? null,
    invitedAt: user.invitedAt?.toISOString() ?? null,
    createdAt: user.createdAt.toISOString(),
  };
}

export function roleView(role: Role, userCount: number): RoleView {
  return {
    id: role.id,
    name: role.name,
    builtIn: role.builtIn ?? null,
    permissions: permissionsOf(role),
    userCount,
  };
}

export function teamView(team: Team, memberCount: number): TeamView {
  return { id: team.id, name: team.name, memberCount };
}

/** Built-in roles first, in their order (owner to member), then the organization's own by name. */
export function compareRoles(a: Role, b: Role): number {
  const rank = (role: Role) =>
    role.builtIn ? BUILT_IN_ROLES.indexOf(role.builtIn as BuiltInRole) : BUILT_IN_ROLES.length;
  return rank(a) - rank(b) || a.name.localeCompare(b.name);
}

export function settingsView(organization: Organization): OrganizationSettings {
  return {
    senderDisplayName: organization.senderDisplayName ?? null,
    replyToEmail: organization.replyToEmail ?? null,
    emailFooter: organization.emailFooter ?? null,
    mfaRequired: organization.mfaRequired,
    sessionTimeoutMinutes: organization.sessionTimeoutMinutes,
    defaultAuthenticationMethod: organization.defaultAuthenticationMethod as AuthenticationMethod,
    defaultExpirationDays: organization.defaultExpirationDays ?? null,
    consentText: organization.consentText ?? null,
    privacyNotice: organization.privacyNotice ?? null,
    retention: {
      completedDays: organization.retentionCompletedDays ?? null,
      unfinishedDays: organization.retentionUnfinishedDays ?? null,
      deletedDays: organization.retentionDeletedDays ?? null,
    },
    attachFinalPdfToCompletedEmail: organization.attachFinalPdfToCompletedEmail,
    ...organizationDeadlineSettings(organization),
    defaultLanguage: defaultLanguageOf(organization.defaultLanguage),
    supportedLanguages: supportedLanguagesOf(organization.supportedLanguages),
  };
}

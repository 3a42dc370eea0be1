// Organization users and what belongs to them: roles, teams, browser sessions, emailed-link tokens, MFA
// backup codes, passkeys, sign-in throttling and the security log (migrations 0012-0014, docs/accounts.md).
import { defineEntity, p } from '@mikro-orm/core';
import { createdAtColumn, sessionLifetimeColumns, tenantKeys, timestampColumns, uuidKey } from './columns.ts';

export const RoleSchema = defineEntity({
  name: 'Role',
  tableName: 'role',
  properties: {
    ...tenantKeys(),
    name: p.string(),
    /** `owner`, `administrator`, `sender` or `member`: permissions from domain/permissions.ts, not stored. */
    builtIn: p.string().nullable(),
    /** A custom role's permissions (empty for built-in roles). */
    permissions: p.array().default([]),
    ...timestampColumns(),
  },
});
export class Role extends RoleSchema.class {}
RoleSchema.setClass(Role);

export const TeamSchema = defineEntity({
  name: 'Team',
  tableName: 'team',
  properties: {
    ...tenantKeys(),
    name: p.string(),
    ...timestampColumns(),
  },
});
export class Team extends TeamSchema.class {}
TeamSchema.setClass(Team);

export const AppUserSchema = defineEntity({
  name: 'AppUser',
  tableName: 'app_user',
  properties: {
    ...tenantKeys(),
    /** Lower-cased; unique among users that are not deleted (but invitations `emailHeldElsewhere`). */
    email: p.string(),
    fullName: p.string(),
    /** The user's own phone number in E.164 form, set on the profile (migration 0041); null: none. */
    phone: p.string().nullable(),
    /** argon2id (services/security/passwords.ts); null until an invited user accepts. */
    passwordHash: p.string().hidden().nullable(),
    /** `invited`, `active`, `deactivated` or `deleted`. */
    status: p.string(),
    emailVerifiedAt: p.datetime().nullable(),
    roleId: p.uuid(),
    teamId: p.uuid().nullable(),
    language: p.string().default('en'),
    /** The authenticator-app secret, encrypted (config/secrets-encryption.ts); null: no TOTP. */
    totpSecretEncrypted: p.string().hidden().nullable(),
    /** A secret being enrolled, until its first code confirms it. */
    totpPendingSecretEncrypted: p.string().hidden().nullable(),
    totpEnabledAt: p.datetime().nullable(),
    /** The last TOTP time step a code was accepted for: no code is accepted twice (migration 0013). */
    totpLastStep: p.bigint('number').nullable(),
    invitedAt: p.datetime().nullable(),
    invitedBy: p.uuid().nullable(),
    /**
     * An invitation to an address that had an account in another organization when invited (migration 0031):
     * no link, never found by sign-in, left out of the address's uniqueness (docs/administration.md).
     */
    emailHeldElsewhere: p.boolean().default(false),
    lastLoginAt: p.datetime().nullable(),
    deletedAt: p.datetime().nullable(),
    ...timestampColumns(),
  },
});
export class AppUser extends AppUserSchema.class {}
AppUserSchema.setClass(AppUser);

export const MfaBackupCodeSchema = defineEntity({
  name: 'MfaBackupCode',
  tableName: 'mfa_backup_code',
  properties: {
    ...uuidKey(),
    userId: p.uuid(),
    /** SHA-256 of the code (ten random characters: no dictionary to try). */
    codeHash: p.string().hidden(),
    usedAt: p.datetime().nullable(),
    ...createdAtColumn(),
  },
});
export class MfaBackupCode extends MfaBackupCodeSchema.class {}
MfaBackupCodeSchema.setClass(MfaBackupCode);

export const PasskeySchema = defineEntity({
  name: 'Passkey',
  tableName: 'passkey',
  properties: {
    ...uuidKey(),
    userId: p.uuid(),
    /** The credential's id as the authenticator made it (base64url); unique. */
    credentialId: p.string(),
    /** The COSE public key (base64url). */
    publicKey: p.string().hidden(),
    /** The authenticator's signature counter; an assertion with a lower one is refused. */
    counter: p.bigint('number').default(0),
    transports: p.array().default([]),
    name: p.string(),
    ...createdAtColumn(),
    lastUsedAt: p.datetime().nullable(),
  },
});
export class Passkey extends PasskeySchema.class {}
PasskeySchema.setClass(Passkey);

export const UserSessionSchema = defineEntity({
  name: 'UserSession',
  tableName: 'user_session',
  properties: {
    ...uuidKey(),
    /** SHA-256 of the cookie's token; the token itself is never stored. */
    tokenHash: p.string().hidden(),
    userId: p.uuid(),
    organizationId: p.uuid(),
    /** `mfa_pending`, `mfa_enrolment_required` or `active`. */
    state: p.string(),
    ...sessionLifetimeColumns(),
    /** Wrong second-factor codes given with this session; the fifth ends it (migration 0013). */
    mfaFailures: p.integer().default(0),
    /** The challenge of the last WebAuthn options (`register:…` or `sign_in:…`), until answered (migration 0014). */
    webauthnChallenge: p.string().hidden().nullable(),
    webauthnChallengeExpiresAt: p.datetime().nullable(),
  },
});
export class UserSession extends UserSessionSchema.class {}
UserSessionSchema.setClass(UserSession);

export const AccountTokenSchema = defineEntity({
  name: 'AccountToken',
  tableName: 'account_token',
  properties: {
    ...uuidKey(),
    tokenHash: p.string().hidden(),
    /** `verify_email`, `reset_password`, `invite` or `change_email` (migration 0041). */
    kind: p.string(),
    /** `change_email`: the lower-cased address the link confirms; null for the other kinds. */
    newEmail: p.string().nullable(),
    userId: p.uuid(),
    expiresAt: p.datetime(),
    usedAt: p.datetime().nullable(),
    ...createdAtColumn(),
  },
});
export class AccountToken extends AccountTokenSchema.class {}
AccountTokenSchema.setClass(AccountToken);

export const LoginThrottleSchema = defineEntity({
  name: 'LoginThrottle',
  tableName: 'login_throttle',
  properties: {
    /** `account:<email>` or `address:<ip>`. */
    key: p.string().primary(),
    failures: p.integer().default(0),
    firstFailureAt: p.datetime(),
    lastFailureAt: p.datetime(),
    lockedUntil: p.datetime().nullable(),
  },
});
export class LoginThrottle extends LoginThrottleSchema.class {}
LoginThrottleSchema.setClass(LoginThrottle);

export const SecurityEventSchema = defineEntity({
  name: 'SecurityEvent',
  tableName: 'security_event',
  properties: {
    ...tenantKeys(),
    type: p.string(),
    actorUserId: p.uuid().nullable(),
    subjectUserId: p.uuid().nullable(),
    subjectEmail: p.string().nullable(),
    ipAddress: p.string().nullable(),
    details: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime().onCreate(() => new Date()),
  },
});
export class SecurityEvent extends SecurityEventSchema.class {}
SecurityEventSchema.setClass(SecurityEvent);

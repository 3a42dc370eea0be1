// The business application's accounts: registration, sign-in, sessions and MFA, and the organization's
// administration (users, roles, teams, settings, security log). The specification names the routes and their
// request body types; their fields are ours (docs/accounts.md lists every route with its fields).
import { z } from 'zod';
import { IsoDateTime, safeText, uuidOf } from './common.ts';
import { RETENTION_DELETED_DAYS } from './document-lifecycle.ts';
import { DEADLINE_SETTING_DEFAULTS, DeadlineSettings, deadlineSetting } from './envelope-settings.ts';
import { OrganizationLanguages, UpdateOrganizationLanguages } from './organization-languages.ts';
import { PERMISSIONS } from './permissions.ts';
import { AUTHENTICATION_METHODS, PLAN_NAMES, type PlanName, SUPPORTED_LANGUAGES } from './vocabulary.ts';

// ---- Building blocks ---------------------------------------------------------------------------------------

/** An email address as typed; stored and compared lower-cased. */
export const EmailAddress = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'email must be at most 254 characters')
  // `.email()` after the trim (zod runs the checks in order), so the document says `format: email`.
  .email({ message: 'email must be an email address' })
  // RFC 5321: at most 64 characters before the @ (the format checkers of clients know it too).
  .refine((email) => email.indexOf('@') <= 64, 'email must have at most 64 characters before the @');

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;

/** A new password: 10 to 200 characters, any characters PostgreSQL can store. */
export const NewPassword = safeText()
  .min(PASSWORD_MIN_LENGTH, `password must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `password must be at most ${PASSWORD_MAX_LENGTH} characters`);

/** A password given to sign in or to confirm an action (checked against the stored hash, not the policy). */
export const GivenPassword = z.string().min(1, 'password is required').max(PASSWORD_MAX_LENGTH);

/** A single-use token from an emailed link (verification, reset, invitation). */
export const LinkToken = z
  .string()
  .trim()
  .min(1, 'token is required')
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, 'token is not a link token');

export const FullName = safeText().trim().min(1, 'fullName is required').max(200);
const Language = z.enum(SUPPORTED_LANGUAGES, { message: 'language must be en or he' });

/** Six digits from an authenticator app. */
const TotpCode = z
  .string()
  .trim()
  .regex(/^\d{6}$/, 'code must be the six digits your authenticator app shows');
/** A backup code as shown (`xxxxx-xxxxx`), with or without the dash. */
const BackupCode = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9]{5}-?[a-z0-9]{5}$/, 'backupCode must be one of your backup codes (xxxxx-xxxxx)')
  .transform((code) => code.replace('-', ''));

// ---- Account and session ------------------------------------------------------------------------------------

/**
 * The plan a self-service sign-up gets: the free one. Paid plans come from a platform administrator
 * (the backoffice, docs/backoffice.md), never from the sign-up form, so `plan` names any other plan in vain:
 * 400 naming `body.plan` rather than an organization on a plan other than the one asked for.
 */
export const SELF_SERVICE_PLAN = 'Starter' satisfies PlanName;
const PAID_PLANS = PLAN_NAMES.filter((plan) => plan !== SELF_SERVICE_PLAN);
const SELF_SERVICE_PLAN_RULE =
  `plan must be ${SELF_SERVICE_PLAN} (the default): sign-up is on the free plan; a paid plan ` +
  `(${PAID_PLANS.join(', ')}) is set by a platform administrator after sign-up`;

export const RegisterRequest = z.strictObject({
  organizationName: safeText().trim().min(1, 'organizationName is required').max(200),
  fullName: FullName,
  email: EmailAddress,
  password: NewPassword,
  language: Language.default('en'),
  plan: z
    .enum([SELF_SERVICE_PLAN], { message: SELF_SERVICE_PLAN_RULE })
    .default(SELF_SERVICE_PLAN)
    .describe(SELF_SERVICE_PLAN_RULE),
});
export type RegisterRequest = z.input<typeof RegisterRequest>;

export const VerifyEmailRequest = z.strictObject({ token: LinkToken });
export const RequestEmailVerificationRequest = z.strictObject({ email: EmailAddress });
export const LoginRequest = z.strictObject({ email: EmailAddress, password: GivenPassword });
/** The second step of a sign-in: a code from the authenticator app, or one backup code. */
export const LoginMfaRequest = z.union([
  z.object({ code: TotpCode }).strict(),
  z.object({ backupCode: BackupCode }).strict(),
]);
export const RequestPasswordResetRequest = z.strictObject({ email: EmailAddress });
export const ClaimPasswordResetRequest = z.strictObject({ token: LinkToken });
export const ResetPasswordRequest = z.strictObject({ token: LinkToken, password: NewPassword });
export const ClaimInviteRequest = z.strictObject({ token: LinkToken });
export const AcceptInviteRequest = z.strictObject({
  token: LinkToken,
  fullName: FullName,
  password: NewPassword,
});
export const UpdateUserPreferencesRequest = z.strictObject({ language: Language });
export const ConfirmTotpRequest = z.strictObject({ code: TotpCode });
/** Re-authentication for turning MFA off or making new backup codes: the password and a current code. */
export const ReauthenticateRequest = z.strictObject({
  password: GivenPassword,
  code: TotpCode.optional(),
  backupCode: BackupCode.optional(),
});

/** What a sign-in step answers: signed in, or what must happen first. */
export const LoginResult = z.object({
  status: z
    .enum(['signed_in', 'mfa_required', 'mfa_enrolment_required'])
    .describe(
      '`mfa_required`: send a code to POST /api/auth/login/mfa; `mfa_enrolment_required`: the organization ' +
        'requires MFA and the user has none: only enrolment (/api/auth/mfa/*) and sign-out are open',
    ),
  /** The second factors the user can use at `mfa_required` (`passkey`: POST /api/auth/login/mfa/passkey). */
  methods: z.array(z.enum(['totp', 'passkey', 'backup_code'])),
});
export type LoginResult = z.output<typeof LoginResult>;

export const Ok = z.object({ ok: z.literal(true) });

export const Me = z.object({
  user: z.object({
    id: z.uuid(),
    email: z.string(),
    fullName: z.string(),
    /** The user's own phone number (E.164), set on the profile; null: none. */
    phone: z.string().nullable(),
    language: Language,
    mfa: z.object({
      totp: z.boolean(),
      backupCodesLeft: z.number().int(),
      /** Passkeys registered as a second factor. */
      passkeys: z.number().int(),
    }),
    lastLoginAt: IsoDateTime.nullable(),
  }),
  organization: z.object({
    id: z.uuid(),
    name: z.string(),
    plan: z.string(),
    mfaRequired: z.boolean(),
  }),
  role: z.object({ id: z.uuid(), name: z.string(), builtIn: z.string().nullable() }),
  team: z.object({ id: z.uuid(), name: z.string() }).nullable(),
  permissions: z.array(z.enum(PERMISSIONS)),
  session: z.object({
    /** `mfa_enrolment_required`: nothing but enrolment and sign-out until the user has MFA. */
    state: z.enum(['active', 'mfa_enrolment_required']),
    idleTimeoutMinutes: z.number().int(),
    expiresAt: IsoDateTime.describe('The absolute end of the session, whatever the activity'),
  }),
});
export type Me = z.output<typeof Me>;

export const ClaimedPasswordReset = z.object({ email: z.string(), fullName: z.string() });
export const ClaimedInvite = z.object({
  email: z.string(),
  fullName: z.string(),
  organizationName: z.string(),
  roleName: z.string(),
});

export const TotpSetup = z.object({
  /** Base32, for typing into an app that cannot scan. */
  secret: z.string(),
  otpauthUrl: z.string(),
  /** The otpauth URL as an SVG QR code. */
  qrCodeSvg: z.string(),
});
export const BackupCodes = z.object({
  /** Ten single-use codes, shown once. */
  backupCodes: z.array(z.string()),
});

// ---- Organization administration -----------------------------------------------------------------------------

const RoleName = safeText().trim().min(1, 'name is required').max(100);
const PermissionList = z
  .array(z.enum(PERMISSIONS, { message: `each permission must be one of: ${PERMISSIONS.join(', ')}` }))
  .max(PERMISSIONS.length * 2)
  .transform((permissions) => [...new Set(permissions)].sort());

export const CreateRoleRequest = z.strictObject({ name: RoleName, permissions: PermissionList });
export const UpdateRoleRequest = z.strictObject({
  name: RoleName.optional(),
  permissions: PermissionList.optional(),
});

export const RoleView = z.object({
  id: z.uuid(),
  name: z.string(),
  /** `owner`, `administrator`, `sender`, `member` for the built-in roles (not editable), else null. */
  builtIn: z.string().nullable(),
  permissions: z.array(z.enum(PERMISSIONS)),
  userCount: z.number().int(),
});
export const RoleList = z.object({ roles: z.array(RoleView), permissions: z.array(z.enum(PERMISSIONS)) });

const TeamName = safeText().trim().min(1, 'name is required').max(100);
export const CreateTeamRequest = z.strictObject({ name: TeamName });
export const UpdateTeamRequest = z.strictObject({ name: TeamName });
export const TeamView = z.object({ id: z.uuid(), name: z.string(), memberCount: z.number().int() });
export const TeamList = z.object({ teams: z.array(TeamView) });

export const USER_STATUSES = ['invited', 'active', 'deactivated'] as const;
export const UserView = z.object({
  id: z.uuid(),
  email: z.string(),
  fullName: z.string(),
  status: z.enum(USER_STATUSES),
  role: z.object({ id: z.uuid(), name: z.string() }),
  team: z.object({ id: z.uuid(), name: z.string() }).nullable(),
  mfaEnabled: z.boolean(),
  lastLoginAt: IsoDateTime.nullable(),
  invitedAt: IsoDateTime.nullable(),
  createdAt: IsoDateTime,
});
export const UserList = z.object({ users: z.array(UserView) });

export const InviteUserRequest = z.strictObject({
  fullName: FullName,
  email: EmailAddress,
  roleId: uuidOf('roleId'),
  teamId: uuidOf('teamId').nullable().optional(),
});
export const UpdateUserRequest = z.strictObject({
  roleId: uuidOf('roleId').optional(),
  teamId: uuidOf('teamId').nullable().optional(),
  /** `deactivated` ends the user's sessions and refuses sign-in; `active` lets them in again. */
  status: z.enum(['active', 'deactivated'], { message: 'status must be active or deactivated' }).optional(),
});

export const SESSION_TIMEOUT_MINUTES = { min: 5, max: 24 * 60, default: 60 } as const;

/**
 * The settings that always have a value, as a new organization has them: what `null` sets them back to
 * (docs/administration.md: "null clears, the default applies").
 */
export const SETTING_DEFAULTS = {
  mfaRequired: false,
  sessionTimeoutMinutes: SESSION_TIMEOUT_MINUTES.default,
  defaultAuthenticationMethod: 'SecureLink',
  attachFinalPdfToCompletedEmail: false,
} as const satisfies {
  mfaRequired: boolean;
  sessionTimeoutMinutes: number;
  defaultAuthenticationMethod: (typeof AUTHENTICATION_METHODS)[number];
  attachFinalPdfToCompletedEmail: boolean;
};

/**
 * The largest final PDF the `completed` email attaches (setting `attachFinalPdfToCompletedEmail`): 10 MB, about
 * 13.4 MB once base64-encoded in the message, under the 20–25 MB most mail servers accept. A larger one is not
 * attached; the email's link to the recipient's downloads is always there.
 */
export const COMPLETED_EMAIL_ATTACHMENT_MAX_BYTES = 10 * 1024 * 1024;

export const OrganizationSettings = z.object({
  /** Shown as the sender of every email; null: the organization's name. */
  senderDisplayName: z.string().nullable(),
  /** Reply-To of every email; null: none. */
  replyToEmail: z.string().nullable(),
  /** Plain text closing every email; null: a default line naming the organization. */
  emailFooter: z.string().nullable(),
  /** Every user must sign in with a second factor. */
  mfaRequired: z.boolean(),
  /** Idle minutes after which a session ends (5 to 1,440). */
  sessionTimeoutMinutes: z.number().int(),
  /** The authentication of recipients created without one (`SecureLink`: no one-time code). */
  defaultAuthenticationMethod: z.enum(AUTHENTICATION_METHODS),
  /** Days from creation to expiry for envelopes created without `expiresAt`; null: 30 days. */
  defaultExpirationDays: z.number().int().nullable(),
  /** The consent a signer accepts on the signer page; null: the default text. */
  consentText: z.string().nullable(),
  /** The privacy notice linked or shown on the signer page; null: none. */
  privacyNotice: z.string().nullable(),
  retention: z.object({
    /** Days completed documents are kept before deletion; null: kept. */
    completedDays: z.number().int().nullable(),
    /** Days declined, cancelled and expired documents are kept; null: kept. */
    unfinishedDays: z.number().int().nullable(),
    /** Days a deleted document's files are kept before they are purged; null: 30. */
    deletedDays: z.number().int().nullable(),
  }),
  /**
   * The `completed` email attaches the final PDF when it is at most 10 MB (COMPLETED_EMAIL_ATTACHMENT_MAX_BYTES);
   * a larger one, or with this off (the default), only links to the recipient's downloads.
   */
  attachFinalPdfToCompletedEmail: z.boolean(),
  // The defaults of new envelopes' reminders and deadline warnings (domain/envelope-settings.ts).
  ...DeadlineSettings.shape,
  // The organization's default and supported languages (domain/organization-languages.ts).
  ...OrganizationLanguages.shape,
});
export type OrganizationSettings = z.output<typeof OrganizationSettings>;

const optionalNullableText = (max: number, kind: 'line' | 'multiline' = 'line') =>
  safeText(kind)
    .trim()
    .max(max)
    .nullable()
    .optional()
    .transform((value) => (value === '' ? null : value));

const Days = (field: string, max: number) =>
  z
    .number({ message: `${field} must be a whole number of days` })
    .int(`${field} must be a whole number of days`)
    .min(1, `${field} must be at least 1`)
    .max(max, `${field} must be at most ${max}`);

export const UpdateOrganizationSettingsRequest = z.strictObject({
  senderDisplayName: optionalNullableText(100),
  replyToEmail: EmailAddress.nullable().optional(),
  emailFooter: optionalNullableText(1000, 'multiline'),
  mfaRequired: z.boolean().nullable().optional().describe('null: the default, off'),
  sessionTimeoutMinutes: z
    .number({ message: 'sessionTimeoutMinutes must be a whole number of minutes' })
    .int('sessionTimeoutMinutes must be a whole number of minutes')
    .min(SESSION_TIMEOUT_MINUTES.min, `sessionTimeoutMinutes must be at least ${SESSION_TIMEOUT_MINUTES.min}`)
    .max(SESSION_TIMEOUT_MINUTES.max, `sessionTimeoutMinutes must be at most ${SESSION_TIMEOUT_MINUTES.max}`)
    .nullable()
    .optional()
    .describe(`null: the default, ${SETTING_DEFAULTS.sessionTimeoutMinutes} minutes`),
  defaultAuthenticationMethod: z
    .enum(AUTHENTICATION_METHODS, {
      message: `defaultAuthenticationMethod must be one of ${AUTHENTICATION_METHODS.join(', ')}`,
    })
    .nullable()
    .optional()
    .describe(`null: the default, ${SETTING_DEFAULTS.defaultAuthenticationMethod}`),
  defaultExpirationDays: Days('defaultExpirationDays', 365).nullable().optional(),
  consentText: optionalNullableText(5000, 'multiline'),
  privacyNotice: optionalNullableText(10000, 'multiline'),
  retention: z
    .strictObject({
      completedDays: Days('retention.completedDays', 3650).nullable().optional(),
      unfinishedDays: Days('retention.unfinishedDays', 3650).nullable().optional(),
      deletedDays: Days('retention.deletedDays', RETENTION_DELETED_DAYS.max).nullable().optional(),
    })
    .nullable()
    .optional()
    .describe('null: all three cleared (completed and unfinished documents kept, deleted files 30 days)'),
  attachFinalPdfToCompletedEmail: z
    .boolean()
    .nullable()
    .optional()
    .describe('null: the default, off (the completed email links to the downloads, without the PDF)'),
  reminderIntervalDays: deadlineSetting('reminderIntervalDays')
    .nullable()
    .optional()
    .describe("Days between new envelopes' automatic reminders; null: none (the default)"),
  maxAutomaticReminders: deadlineSetting('maxAutomaticReminders')
    .nullable()
    .optional()
    .describe(
      `The most automatic reminders of a new envelope; null: the default, ${DEADLINE_SETTING_DEFAULTS.maxAutomaticReminders}`,
    ),
  expiringSoonDays: deadlineSetting('expiringSoonDays')
    .nullable()
    .optional()
    .describe(
      'Days before the deadline when recipients who can act are warned; 0 or null: no warning (the default)',
    ),
  expiredExtensionGraceDays: deadlineSetting('expiredExtensionGraceDays')
    .nullable()
    .optional()
    .describe(
      `Days after expiry during which an extension revives an envelope; null: the default, ${DEADLINE_SETTING_DEFAULTS.expiredExtensionGraceDays}`,
    ),
  ...UpdateOrganizationLanguages.shape,
});
export type UpdateOrganizationSettingsRequest = z.input<typeof UpdateOrganizationSettingsRequest>;

export const SECURITY_EVENT_TYPES = [
  'user.registered',
  'user.email_verified',
  'user.signed_in',
  'user.sign_in_failed',
  'user.locked_out',
  'user.signed_out',
  'user.mfa_enabled',
  'user.mfa_disabled',
  // An administrator or platform staff removed a user's second factors (docs/administration.md).
  'user.mfa_reset',
  'user.mfa_failed',
  'user.backup_codes_regenerated',
  'user.password_reset_requested',
  'user.password_reset',
  // The user's own account on the profile (docs/accounts.md, "Your account").
  'user.password_changed',
  'user.profile_updated',
  'user.email_change_requested',
  'user.email_changed',
  'user.invited',
  'user.invitation_resent',
  'user.invitation_accepted',
  // An account made at its first single sign-on (just-in-time, docs/sso.md).
  'user.provisioned',
  'user.updated',
  'user.deactivated',
  'user.reactivated',
  'user.deleted',
  'role.created',
  'role.updated',
  'role.deleted',
  'team.created',
  'team.updated',
  'team.deleted',
  'settings.updated',
  // The secure-signature policy (docs/sealing.md): level, timestamp, audit-trail seal.
  'secure_signature_policy.updated',
  // OAuth clients of the public API (docs/integrations.md): made, changed, deleted, a secret rotated or deleted.
  'api_key.created',
  'api_key.updated',
  'api_key.deleted',
  'api_key.secret_rotated',
  'api_key.secret_deleted',
  // Platform staff acting on a user from the backoffice (docs/backoffice.md, "Users of an organization").
  'user.unlocked',
  'user.verification_resent',
  // Platform staff looked at or repaired the organization's data, with the reason (docs/backoffice.md, "Support access").
  'support.accessed',
] as const;
export type SecurityEventType = (typeof SECURITY_EVENT_TYPES)[number];

export const SecurityEventView = z.object({
  id: z.uuid(),
  type: z.enum(SECURITY_EVENT_TYPES),
  occurredAt: IsoDateTime,
  /** Who acted (null: no signed-in user, such as a failed sign-in). */
  actor: z.object({ id: z.uuid(), email: z.string(), fullName: z.string() }).nullable(),
  /** Whom it concerns, when another user than the actor (an invited user, a changed role's holder). */
  subject: z.object({ id: z.uuid().nullable(), email: z.string() }).nullable(),
  ipAddress: z.string().nullable(),
  /** What changed, in words of the event (role names, fields, a reason); never a secret. */
  details: z.record(z.string(), z.unknown()),
});
export const SecurityLogQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** Events before this one (the `id` of the last event of the previous page). */
  before: uuidOf('before').optional(),
});
export const SecurityLog = z.object({ events: z.array(SecurityEventView), nextBefore: z.uuid().nullable() });

// ---- Two-step verification (helper A2, MFA) -------------------------------------------------------------------

/** Exactly one second factor: a code from the authenticator app or a backup code. */
const oneSecondFactor = (
  value: { code?: string | undefined; backupCode?: string | undefined },
  context: z.RefinementCtx,
) => {
  if (value.code !== undefined && value.backupCode !== undefined) {
    context.addIssue({
      code: 'custom',
      path: ['backupCode'],
      message: 'send either code or backupCode, not both',
    });
  } else if (value.code === undefined && value.backupCode === undefined) {
    context.addIssue({
      code: 'custom',
      path: ['code'],
      message: 'code (from your authenticator app) or backupCode is required',
    });
  }
};

/**
 * The body of POST /api/auth/login/mfa as the route reads it: LoginMfaRequest's two alternatives as one object
 * (a route's input is an object, which its OpenAPI document describes), exactly one of them given.
 */
export const LoginMfaInput = z
  .object({
    code: TotpCode.optional().describe('Six digits from the authenticator app'),
    backupCode: BackupCode.optional().describe('One of the backup codes (xxxxx-xxxxx); each works once'),
  })
  .strict()
  .superRefine(oneSecondFactor);
export type LoginMfaInput = z.output<typeof LoginMfaInput>;

/** ReauthenticateRequest with exactly one second factor (turning MFA off, new backup codes). */
export const ReauthenticateInput = ReauthenticateRequest.superRefine(oneSecondFactor);
export type ReauthenticateInput = z.output<typeof ReauthenticateInput>;

// ---- Passkeys (WebAuthn) as a second factor ------------------------------------------------------------------

/** A base64url string of a WebAuthn response (what @simplewebauthn/browser and the JSON of the spec give). */
const Base64Url = z
  .string()
  .max(16_384)
  // Whole groups of four, then 2 or 3 more characters (with their padding, if any): a length base64url has.
  .regex(/^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2}(?:==)?|[A-Za-z0-9_-]{3}=?)?$/, 'must be base64url');

/** A PublicKeyCredential's JSON (`toJSON()`): the fields every response has; the rest is passed on as given. */
const credentialJson = <T extends z.ZodRawShape>(response: T) =>
  z.looseObject({
    id: Base64Url.min(1),
    rawId: Base64Url.min(1),
    type: z.literal('public-key', { message: 'type must be public-key' }),
    response: z.looseObject(response),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: safeText().max(50).optional(),
  });

/** RegistrationResponseJSON of navigator.credentials.create(). */
export const PasskeyRegistrationResponse = credentialJson({
  clientDataJSON: Base64Url,
  attestationObject: Base64Url,
  // Kept with the passkey (only the transports WebAuthn names; see passkey-register.ts): storable text.
  transports: z.array(safeText().max(50)).max(10).optional(),
});
/** AuthenticationResponseJSON of navigator.credentials.get(). */
export const PasskeyAuthenticationResponse = credentialJson({
  clientDataJSON: Base64Url,
  authenticatorData: Base64Url,
  signature: Base64Url,
  userHandle: Base64Url.optional(),
});

const PasskeyName = safeText()
  .trim()
  .min(1, 'name is required')
  .max(100, 'name must be at most 100 characters');

export const RegisterPasskeyRequest = z.strictObject({
  name: PasskeyName.describe('What the user calls it (“Work laptop”)'),
  response: PasskeyRegistrationResponse.describe(
    'The RegistrationResponseJSON of navigator.credentials.create() with the registration options',
  ),
});
export const LoginPasskeyRequest = z.strictObject({
  response: PasskeyAuthenticationResponse.describe(
    'The AuthenticationResponseJSON of navigator.credentials.get() with the sign-in options',
  ),
});
/** Removing a passkey: its id and re-authentication (the password and a current code or a backup code). */
export const RemovePasskeyInput = ReauthenticateRequest.extend({ id: uuidOf('id') }).superRefine(
  oneSecondFactor,
);
export type RemovePasskeyInput = z.output<typeof RemovePasskeyInput>;

/** PublicKeyCredentialCreationOptionsJSON: hand it to navigator.credentials.create() (binary fields base64url). */
export const PasskeyRegistrationOptions = z.looseObject({
  challenge: z.string(),
  rp: z.looseObject({ id: z.string().optional(), name: z.string() }),
  user: z.looseObject({ id: z.string(), name: z.string(), displayName: z.string() }),
  pubKeyCredParams: z.array(z.looseObject({ type: z.string(), alg: z.number() })),
  excludeCredentials: z.array(z.looseObject({ id: z.string(), type: z.string() })).optional(),
});
export type PasskeyRegistrationOptions = z.output<typeof PasskeyRegistrationOptions>;
/** PublicKeyCredentialRequestOptionsJSON: hand it to navigator.credentials.get() (binary fields base64url). */
export const PasskeyAuthenticationOptions = z.looseObject({
  challenge: z.string(),
  rpId: z.string().optional(),
  allowCredentials: z.array(z.looseObject({ id: z.string(), type: z.string() })).optional(),
});
export type PasskeyAuthenticationOptions = z.output<typeof PasskeyAuthenticationOptions>;

export const PasskeyView = z.object({
  id: z.uuid(),
  name: z.string(),
  createdAt: IsoDateTime,
  lastUsedAt: IsoDateTime.nullable(),
});
export type PasskeyView = z.output<typeof PasskeyView>;
export const PasskeyList = z.object({ passkeys: z.array(PasskeyView) });
export const RegisteredPasskey = PasskeyView.extend({
  /** Ten single-use backup codes when this passkey is the user's first second factor (shown once), else null. */
  backupCodes: z.array(z.string()).nullable(),
});

// The platform backoffice's administrators and their security (docs/backoffice.md): the request bodies the
// specification names (CreatePlatformAdministratorRequest, RequestPlatformAdminOtpRequest,
// UpsertPlatformAdminIpAllowlistEntryRequest, UpsertPlatformAdminAllowedDomainRequest; their fields are ours),
// the sign-in with the emailed code, and the answers.
import { z } from 'zod';
import { EmailAddress, PASSWORD_MAX_LENGTH } from './account.ts';
import { BACKOFFICE_ROLES } from './backoffice-roles.ts';
import { APPLICATION_DOCUMENT_ONLY, IsoDateTime, safeText, uuidOf } from './common.ts';

/** A backoffice role: `administrator` (everything) or `support` (reads and the safe actions). */
export const BackofficeRoleSchema = z.enum(BACKOFFICE_ROLES, {
  message: 'role must be administrator or support',
});

/** How the backoffice's sign-in and sessions behave; the answers of the security policy say so too. */
export const BACKOFFICE_SECURITY = {
  /** A session ends after this long without a request. */
  idleTimeoutMinutes: 15,
  /** However active, a session ends this long after sign-in. */
  absoluteLifetimeHours: 8,
  codeDigits: 6,
  codeLifetimeMinutes: 10,
  /** Wrong codes given against one code before it is used up. */
  codeMaxAttempts: 5,
} as const;

/** An email domain as administrators' addresses end: `example.com` (lower case, at least two labels). */
export const EmailDomain = z
  .string()
  .trim()
  .toLowerCase()
  .min(1, 'domain is required')
  .max(253, 'domain must be at most 253 characters')
  .regex(
    /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/,
    'domain must be a domain name such as example.com (no @, no scheme, no path)',
  );

export const CreatePlatformAdministratorRequest = z
  .strictObject({
    email: EmailAddress,
    fullName: safeText()
      .trim()
      .min(1, 'fullName is required')
      .max(200, 'fullName must be at most 200 characters'),
    role: BackofficeRoleSchema.default('administrator').describe(
      'The new administrator’s backoffice role (administrator when absent); only an administrator grants one',
    ),
  })
  .meta({ id: 'CreatePlatformAdministratorRequest', ...APPLICATION_DOCUMENT_ONLY });

/** A change of an administrator's backoffice role (additive: PATCH /api/backoffice/platform-admins/{id}). */
export const UpdatePlatformAdministratorRequest = z
  .strictObject({ role: BackofficeRoleSchema })
  .meta({ id: 'UpdatePlatformAdministratorRequest', ...APPLICATION_DOCUMENT_ONLY });

/** The first sign-in step: the right address and password send a code by email. */
export const RequestPlatformAdminOtpRequest = z
  .strictObject({
    email: EmailAddress,
    password: z.string().min(1, 'password is required').max(PASSWORD_MAX_LENGTH),
    language: z
      .enum(['en', 'he'], { message: 'language must be en or he' })
      .optional()
      .describe('The language of the emailed code: the sign-in page’s (English when absent)'),
  })
  .meta({ id: 'RequestPlatformAdminOtpRequest', ...APPLICATION_DOCUMENT_ONLY });

/** The second sign-in step: the emailed code. */
export const PlatformAdminSignInRequest = z
  .strictObject({
    email: EmailAddress,
    code: z
      .string()
      .trim()
      .regex(/^\d{6}$/, 'code must be the 6 digits of the emailed code'),
  })
  .meta({ id: 'PlatformAdminSignInRequest', ...APPLICATION_DOCUMENT_ONLY });

/** An address (`203.0.113.7`) or a CIDR range (`203.0.113.0/24`, IPv4 or IPv6) the backoffice answers. */
export const UpsertPlatformAdminIpAllowlistEntryRequest = z
  .strictObject({
    entry: safeText().trim().min(1, 'entry is required').max(100, 'entry must be at most 100 characters'),
    description: safeText().trim().max(200, 'description must be at most 200 characters').nullish(),
  })
  .meta({ id: 'UpsertPlatformAdminIpAllowlistEntryRequest', ...APPLICATION_DOCUMENT_ONLY });

export const UpsertPlatformAdminAllowedDomainRequest = z
  .strictObject({ domain: EmailDomain })
  .meta({ id: 'UpsertPlatformAdminAllowedDomainRequest', ...APPLICATION_DOCUMENT_ONLY });

export const BackofficeIdParameter = z.strictObject({ id: uuidOf('id') });

/** A backoffice list's paging: `limit` items (1–200, default 50) after the previous page's `nextCursor`. */
export const BACKOFFICE_PAGING = {
  limit: z.coerce
    .number({ message: 'limit must be a whole number' })
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(200, 'limit must be at most 200')
    .default(50),
  cursor: z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9_-]+$/, 'cursor must be the nextCursor of the previous page')
    .optional()
    .describe('The `nextCursor` of the previous page'),
};

export const AuditLogQuery = z.strictObject(BACKOFFICE_PAGING);

// ---- Answers -----------------------------------------------------------------------------------------------

export const PlatformAdministratorView = z
  .object({
    id: z.uuid(),
    email: z.string(),
    fullName: z.string(),
    createdAt: IsoDateTime,
    lastSignInAt: IsoDateTime.nullable(),
    lastSignInAddress: z.string().nullable(),
    role: BackofficeRoleSchema,
    /** The administrator asking. */
    you: z.boolean(),
  })
  .meta({ id: 'PlatformAdministrator', ...APPLICATION_DOCUMENT_ONLY });
export type PlatformAdministratorView = z.output<typeof PlatformAdministratorView>;

export const PlatformAdministratorList = z.object({ administrators: z.array(PlatformAdministratorView) });

/** A new administrator and their first password, shown this once (to hand over in person, never by email). */
export const CreatedPlatformAdministrator = z.object({
  administrator: PlatformAdministratorView,
  password: z.string(),
});

export const PlatformAdminOtpSent = z.object({
  sent: z.literal(true),
  /** When the emailed code stops working. */
  expiresAt: IsoDateTime,
});

export const BackofficeSessionView = z.object({
  administrator: PlatformAdministratorView,
  session: z.object({ createdAt: IsoDateTime, expiresAt: IsoDateTime, idleTimeoutMinutes: z.number() }),
});

export const IpAllowlistEntryView = z
  .object({ id: z.uuid(), entry: z.string(), description: z.string().nullable(), createdAt: IsoDateTime })
  .meta({ id: 'PlatformAdminIpAllowlistEntry', ...APPLICATION_DOCUMENT_ONLY });

export const AllowedDomainView = z
  .object({ id: z.uuid(), domain: z.string(), administrators: z.number().int(), createdAt: IsoDateTime })
  .meta({ id: 'PlatformAdminAllowedDomain', ...APPLICATION_DOCUMENT_ONLY });

export const BackofficeSecurityPolicy = z.object({
  /** Empty: the backoffice answers any address. */
  ipAllowlist: z.array(IpAllowlistEntryView),
  allowedDomains: z.array(AllowedDomainView),
  /** The address this request came from, as the allowlist sees it. */
  yourAddress: z.string(),
  session: z.object({ idleTimeoutMinutes: z.number(), absoluteLifetimeHours: z.number() }),
  signInCode: z.object({ digits: z.number(), lifetimeMinutes: z.number(), maxAttempts: z.number() }),
});

export const BackofficeAuditEventView = z
  .object({
    id: z.uuid(),
    occurredAt: IsoDateTime,
    actor: z.object({
      kind: z.enum(['platform_admin', 'operator_cli', 'visitor']),
      administratorId: z.uuid().nullable(),
      email: z.string().nullable(),
    }),
    ipAddress: z.string().nullable(),
    action: z.string(),
    targetId: z.uuid().nullable(),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'BackofficeAuditEvent', ...APPLICATION_DOCUMENT_ONLY });

export const BackofficeAuditLog = z.object({
  events: z.array(BackofficeAuditEventView),
  nextCursor: z.string().nullable(),
});

export const Ok = z.object({ ok: z.literal(true) });

// The backoffice's shapes: the server's own schemas (domain/backoffice.ts), imported as types only, so the
// browser bundle gets neither zod nor any server code and the pages cannot drift from the routes' contracts.
import type { z } from 'zod';
import type * as backoffice from '../../../../domain/backoffice.ts';

export type PlatformAdministrator = z.output<typeof backoffice.PlatformAdministratorView>;
export type BackofficeSession = z.output<typeof backoffice.BackofficeSessionView>;
export type SecurityPolicy = z.output<typeof backoffice.BackofficeSecurityPolicy>;
export type IpAllowlistEntry = z.output<typeof backoffice.IpAllowlistEntryView>;
export type AllowedDomain = z.output<typeof backoffice.AllowedDomainView>;
export type AuditEvent = z.output<typeof backoffice.BackofficeAuditEventView>;

/** The sign-in code's length (BACKOFFICE_SECURITY.codeDigits): the types fail if the server's value changes. */
export const CODE_DIGITS: typeof backoffice.BACKOFFICE_SECURITY.codeDigits = 6;

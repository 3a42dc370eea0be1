// The business app's shapes: the server's own schemas (domain/account.ts, domain/permissions.ts), imported as
// types only, so the browser bundle gets neither zod nor any server code and the pages cannot drift from the
// routes' contracts. Values the pages need at run time are repeated here with a type check that they match.
import type { z } from 'zod';
import type * as account from '../../../../domain/account.ts';
import type * as contact from '../../../../domain/contact.ts';
import type { Permission, PermissionArea } from '../../../../domain/permissions.ts';

export type { Permission, PermissionArea };
export type Me = z.output<typeof account.Me>;
export type UserView = z.output<typeof account.UserView>;
export type UserStatus = UserView['status'];
export type RoleView = z.output<typeof account.RoleView>;
export type TeamView = z.output<typeof account.TeamView>;
export type OrganizationSettings = z.output<typeof account.OrganizationSettings>;
export type SecurityEventView = z.output<typeof account.SecurityEventView>;
export type SecurityEventType = account.SecurityEventType;
export type TotpSetup = z.output<typeof account.TotpSetup>;
export type LoginResult = z.output<typeof account.LoginResult>;
export type ContactView = z.output<typeof contact.ContactView>;
export type UpsertContactRequest = z.input<typeof contact.UpsertContactRequest>;
export type ImportContactsResult = z.output<typeof contact.ImportContactsResult>;

export { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../shared/password.ts';
export const SESSION_TIMEOUT_MINUTES: typeof account.SESSION_TIMEOUT_MINUTES = {
  min: 5,
  max: 24 * 60,
  default: 60,
};
/** The contact limits the pages check before sending (domain/contact.ts's CONTACT_LIMITS). */
export const CONTACT_NAME_MAX: typeof contact.CONTACT_LIMITS.name = 200;
export const CONTACT_COMPANY_MAX: typeof contact.CONTACT_LIMITS.company = 200;
export const CONTACT_IMPORT_MAX_CHARACTERS: typeof contact.CONTACT_LIMITS.importCharacters = 1_000_000;

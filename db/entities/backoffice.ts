// The platform backoffice's administrators, their sessions and sign-in codes, the allowed email domains, the
// backoffice IP allowlist and the backoffice audit log (migration 0023, docs/backoffice.md).
import { defineEntity, p } from '@mikro-orm/core';
import type { BackofficeRole } from '../../domain/backoffice-roles.ts';
import { createdAtColumn, sessionLifetimeColumns, uuidKey } from './columns.ts';

export const PlatformAdminSchema = defineEntity({
  name: 'PlatformAdmin',
  tableName: 'platform_admin',
  properties: {
    ...uuidKey(),
    /** Lower case. */
    email: p.string(),
    fullName: p.string(),
    passwordHash: p.string().hidden(),
    ...createdAtColumn(),
    lastSignInAt: p.datetime().nullable(),
    lastSignInIp: p.string().nullable(),
    /** `administrator` or `support` (domain/backoffice-roles.ts). */
    role: p.string().$type<BackofficeRole>().default('administrator'),
  },
});
export class PlatformAdmin extends PlatformAdminSchema.class {}
PlatformAdminSchema.setClass(PlatformAdmin);

export const PlatformAdminSessionSchema = defineEntity({
  name: 'PlatformAdminSession',
  tableName: 'platform_admin_session',
  properties: {
    ...uuidKey(),
    /** SHA-256 of the cookie's token; the token itself is never stored. */
    tokenHash: p.string().hidden(),
    adminId: p.uuid(),
    ...sessionLifetimeColumns(),
  },
});
export class PlatformAdminSession extends PlatformAdminSessionSchema.class {}
PlatformAdminSessionSchema.setClass(PlatformAdminSession);

export const PlatformAdminCodeSchema = defineEntity({
  name: 'PlatformAdminCode',
  tableName: 'platform_admin_code',
  properties: {
    ...uuidKey(),
    adminId: p.uuid(),
    /** SHA-256 of `<id>:<code>`; the code itself is only in the email. */
    codeHash: p.string().hidden(),
    ...createdAtColumn(),
    expiresAt: p.datetime(),
    /** Wrong codes given against this one; at the limit it is used up. */
    attempts: p.integer().default(0),
    usedAt: p.datetime().nullable(),
    ipAddress: p.string().nullable(),
  },
});
export class PlatformAdminCode extends PlatformAdminCodeSchema.class {}
PlatformAdminCodeSchema.setClass(PlatformAdminCode);

export const PlatformAdminAllowedDomainSchema = defineEntity({
  name: 'PlatformAdminAllowedDomain',
  tableName: 'platform_admin_allowed_domain',
  properties: {
    ...uuidKey(),
    /** Lower case, e.g. `example.com`; an address's domain matches it exactly. */
    domain: p.string(),
    ...createdAtColumn(),
  },
});
export class PlatformAdminAllowedDomain extends PlatformAdminAllowedDomainSchema.class {}
PlatformAdminAllowedDomainSchema.setClass(PlatformAdminAllowedDomain);

export const PlatformAdminIpAllowlistEntrySchema = defineEntity({
  name: 'PlatformAdminIpAllowlistEntry',
  tableName: 'platform_admin_ip_allowlist',
  properties: {
    ...uuidKey(),
    /** An address or a CIDR range, normalized (services/security/ip-allowlist.ts). */
    entry: p.string(),
    description: p.string().nullable(),
    ...createdAtColumn(),
  },
});
export class PlatformAdminIpAllowlistEntry extends PlatformAdminIpAllowlistEntrySchema.class {}
PlatformAdminIpAllowlistEntrySchema.setClass(PlatformAdminIpAllowlistEntry);

export const BackofficeAuditEventSchema = defineEntity({
  name: 'BackofficeAuditEvent',
  tableName: 'backoffice_audit_event',
  properties: {
    ...uuidKey(),
    occurredAt: p.datetime(),
    actorAdminId: p.uuid().nullable(),
    actorEmail: p.string().nullable(),
    /** `platform_admin`, `operator_cli` or `visitor` (a sign-in attempt). */
    actorKind: p.string(),
    ipAddress: p.string().nullable(),
    action: p.string(),
    targetId: p.uuid().nullable(),
    details: p.json<Record<string, unknown>>(),
  },
});
export class BackofficeAuditEvent extends BackofficeAuditEventSchema.class {}
BackofficeAuditEventSchema.setClass(BackofficeAuditEvent);

// The platform backoffice's administrators, their sessions and sign-in codes, the allowed email domains, the
// backoffice IP allowlist and the backoffice audit log (migration 0023, docs/backoffice.md).
import { defineEntity, p } from '@mikro-orm/core';

export const PlatformAdminSchema = defineEntity({
  name: 'PlatformAdmin',
  tableName: 'platform_admin',
  properties: {
    id: p.uuid().primary(),
    /** Lower case. */
    email: p.string(),
    fullName: p.string(),
    passwordHash: p.string().hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastSignInAt: p.datetime().nullable(),
    lastSignInIp: p.string().nullable(),
  },
});
export class PlatformAdmin extends PlatformAdminSchema.class {}
PlatformAdminSchema.setClass(PlatformAdmin);

export const PlatformAdminSessionSchema = defineEntity({
  name: 'PlatformAdminSession',
  tableName: 'platform_admin_session',
  properties: {
    id: p.uuid().primary(),
    /** SHA-256 of the cookie's token; the token itself is never stored. */
    tokenHash: p.string().hidden(),
    adminId: p.uuid(),
    createdAt: p.datetime().onCreate(() => new Date()),
    lastSeenAt: p.datetime(),
    /** The absolute end, whatever the activity. */
    expiresAt: p.datetime(),
    endedAt: p.datetime().nullable(),
    endedReason: p.string().nullable(),
    ipAddress: p.string().nullable(),
    userAgent: p.string().nullable(),
  },
});
export class PlatformAdminSession extends PlatformAdminSessionSchema.class {}
PlatformAdminSessionSchema.setClass(PlatformAdminSession);

export const PlatformAdminCodeSchema = defineEntity({
  name: 'PlatformAdminCode',
  tableName: 'platform_admin_code',
  properties: {
    id: p.uuid().primary(),
    adminId: p.uuid(),
    /** SHA-256 of `<id>:<code>`; the code itself is only in the email. */
    codeHash: p.string().hidden(),
    createdAt: p.datetime().onCreate(() => new Date()),
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
    id: p.uuid().primary(),
    /** Lower case, e.g. `example.com`; an address's domain matches it exactly. */
    domain: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export class PlatformAdminAllowedDomain extends PlatformAdminAllowedDomainSchema.class {}
PlatformAdminAllowedDomainSchema.setClass(PlatformAdminAllowedDomain);

export const PlatformAdminIpAllowlistEntrySchema = defineEntity({
  name: 'PlatformAdminIpAllowlistEntry',
  tableName: 'platform_admin_ip_allowlist',
  properties: {
    id: p.uuid().primary(),
    /** An address or a CIDR range, normalized (services/security/ip-allowlist.ts). */
    entry: p.string(),
    description: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export class PlatformAdminIpAllowlistEntry extends PlatformAdminIpAllowlistEntrySchema.class {}
PlatformAdminIpAllowlistEntrySchema.setClass(PlatformAdminIpAllowlistEntry);

export const BackofficeAuditEventSchema = defineEntity({
  name: 'BackofficeAuditEvent',
  tableName: 'backoffice_audit_event',
  properties: {
    id: p.uuid().primary(),
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

// Plans (reference data) and organizations, the tenants of Sigil.
import { defineEntity, p } from '@mikro-orm/core';
import type { NotifyAdministrators } from '../../domain/vocabulary.ts';

export const PlanSchema = defineEntity({
  name: 'Plan',
  tableName: 'plan',
  properties: {
    name: p.string().primary(),
    apiAccess: p.boolean(),
    webhookAccess: p.boolean(),
    monthlyDocumentLimit: p.integer().nullable(),
    userLimit: p.integer().nullable(),
    teamLimit: p.integer().nullable(),
    smsCreditsIncluded: p.integer(),
    ratePerMinute: p.integer().fieldName('rate_limit_per_minute').nullable(),
    uploadRatePerMinute: p.integer().fieldName('upload_rate_limit_per_minute').nullable(),
    supportLevel: p.string(),
    sortOrder: p.integer(),
  },
});
export class Plan extends PlanSchema.class {}
PlanSchema.setClass(Plan);

export const OrganizationSchema = defineEntity({
  name: 'Organization',
  tableName: 'organization',
  properties: {
    id: p.uuid().primary(),
    name: p.string(),
    planName: p.string(),
    apiEnabled: p.boolean().default(false),
    defaultLanguage: p.string().default('en'),
    ratePerMinute: p.integer().fieldName('rate_limit_per_minute').nullable(),
    uploadRatePerMinute: p.integer().fieldName('upload_rate_limit_per_minute').nullable(),
    supportedLanguages: p.array().default(['en', 'he']),
    reminderIntervalDays: p.integer().nullable(),
    maxAutomaticReminders: p.integer().default(3),
    expiredExtensionGraceDays: p.integer().default(30),
    /** Days before a deadline when recipients who can still act are warned; 0: off (migration 0038). */
    expiringSoonDays: p.integer().default(0),
    /** The name recipients see in From; null: the organization's name. */
    senderDisplayName: p.string().nullable(),
    /** Reply-To of emails, and where notices to the sender go by default; null: none. */
    replyToEmail: p.string().nullable(),
    /** Plain text closing every email; null: a default line naming the organization. */
    emailFooter: p.text().nullable(),
    /** Sender notifications go to administrators too: `none`, the envelope's `team`'s, the `organization`'s. */
    notifyAdministrators: p.string().$type<NotifyAdministrators>().default('none'),
    /** Every user signs in with a second factor (docs/accounts.md). */
    mfaRequired: p.boolean().default(false),
    /** Idle minutes after which a browser session ends. */
    sessionTimeoutMinutes: p.integer().default(60),
    /** The authentication of recipients created without one. */
    defaultAuthenticationMethod: p.string().default('SecureLink'),
    /** Days from creation to expiry for envelopes created without `expiresAt`; null: 30 days. */
    defaultExpirationDays: p.integer().nullable(),
    /** The consent a signer accepts; null: the default text. */
    consentText: p.text().nullable(),
    /** Shown on the signer page; null: none. */
    privacyNotice: p.text().nullable(),
    /** Days completed documents are kept; null: kept (enforced by the retention schedule). */
    retentionCompletedDays: p.integer().nullable(),
    /** Days declined, cancelled and expired documents are kept; null: kept. */
    retentionUnfinishedDays: p.integer().nullable(),
    /** Days a deleted envelope's files are kept before the retention run purges them; null: 30. */
    retentionDeletedDays: p.integer().nullable(),
    /**
     * The `completed` email carries the final PDF as an attachment while it is at most
     * COMPLETED_EMAIL_ATTACHMENT_MAX_BYTES (domain/account.ts); above that, only the link.
     */
    attachFinalPdfToCompletedEmail: p
      .boolean()
      .fieldName('attach_final_pdf_to_completed_email')
      .default(false),
    /**
     * `active` or `suspended` by a platform administrator (docs/backoffice.md): a suspended organization's users
     * cannot sign in, its sessions and API tokens stop working and it cannot create envelopes; envelopes already
     * sent go on to their end.
     */
    status: p.string().default('active'),
    suspendedAt: p.datetime().nullable(),
    suspendedReason: p.text().nullable(),
    /** Deleted by a platform administrator: refused everywhere like a suspended one; null: not deleted. */
    deletedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export class Organization extends OrganizationSchema.class {}
OrganizationSchema.setClass(Organization);

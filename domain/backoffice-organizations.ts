// The platform backoffice's organizations (docs/backoffice.md, "Organizations"): the list with its search,
// filters and pages, an organization's detail, the change a platform administrator makes
// (BackofficeUpdateOrganizationRequest), its integrations (read-only), and its SMS credits — the grant
// (AddCreditsRequest) and this month's ledger. The request bodies the specification names carry their id.
import { z } from 'zod';
import { ApiKeyList } from './api-key.ts';
import { BACKOFFICE_PAGING } from './backoffice.ts';
import { BillingSummary } from './billing.ts';
import { APPLICATION_DOCUMENT_ONLY, IsoDateTime, safeText, uuidOf } from './common.ts';
import { IntegrationsDiagnostics } from './integrations.ts';
import { PLAN_NAMES } from './vocabulary.ts';
import { WebhookEndpointList } from './webhook.ts';

/** What the backoffice shows of an organization's standing: `deleted` when deleted, else its status. */
export const ORGANIZATION_STANDINGS = ['active', 'suspended', 'deleted'] as const;
/** The statuses an administrator sets (deleting is DELETE). */
export const ORGANIZATION_STATUSES = ['active', 'suspended'] as const;

/** The largest per-minute rate an administrator may agree for an Enterprise organization. */
export const MAX_AGREED_RATE_PER_MINUTE = 1_000_000;
/**
 * Days after its deletion when a deleted organization's data is due for the purge (docs/backoffice.md,
 * "Deletion").
 */
export const ORGANIZATION_PURGE_DAYS = 30;
/** The most SMS credits one grant gives. */
export const MAX_CREDIT_GRANT = 1_000_000;

export const BackofficeOrganizationIdParameter = z.strictObject({ id: uuidOf('id') });

export const BackofficeOrganizationListQuery = z.strictObject({
  search: safeText()
    .trim()
    .max(200, 'search must be at most 200 characters')
    .optional()
    .describe('Part of the name (any case), or an organization’s exact id'),
  plan: z.enum(PLAN_NAMES).optional(),
  apiEnabled: z.enum(['true', 'false']).optional().describe('Whether the organization’s API flag is on'),
  status: z
    .enum(ORGANIZATION_STANDINGS)
    .optional()
    .describe('Absent: active and suspended ones; deleted organizations are listed only with `deleted`'),
  ...BACKOFFICE_PAGING,
});

/** A per-minute rate agreed for an Enterprise organization; null: the plan's (or the configured default). */
const agreedRate = (field: string) =>
  z
    .number({ message: `${field} must be a whole number or null` })
    .int(`${field} must be a whole number`)
    .min(1, `${field} must be at least 1`)
    .max(MAX_AGREED_RATE_PER_MINUTE, `${field} must be at most ${MAX_AGREED_RATE_PER_MINUTE}`)
    .nullable();

export const BackofficeUpdateOrganizationRequest = z
  .strictObject({
    plan: safeText()
      .trim()
      .min(1, 'plan is required')
      .max(100, 'plan must be at most 100 characters')
      .optional()
      .describe('A plan of GET /api/plans'),
    status: z.enum(ORGANIZATION_STATUSES).optional(),
    suspendedReason: safeText('multiline')
      .trim()
      .max(1000, 'suspendedReason must be at most 1000 characters')
      .nullish()
      .describe('Why the organization is suspended (internal; with status `suspended`)'),
    apiEnabled: z.boolean().optional(),
    ratePerMinute: agreedRate('ratePerMinute')
      .optional()
      .describe('Enterprise only: API requests per minute agreed with the organization; null: the default'),
    uploadRatePerMinute: agreedRate('uploadRatePerMinute')
      .optional()
      .describe('Enterprise only: API uploads per minute agreed with the organization; null: the default'),
  })
  .meta({ id: 'BackofficeUpdateOrganizationRequest', ...APPLICATION_DOCUMENT_ONLY });
export type BackofficeUpdateOrganizationRequest = z.output<typeof BackofficeUpdateOrganizationRequest>;

export const AddCreditsRequest = z
  .strictObject({
    amount: z
      .number({ message: 'amount must be a whole number' })
      .int('amount must be a whole number')
      .min(1, 'amount must be at least 1')
      .max(MAX_CREDIT_GRANT, `amount must be at most ${MAX_CREDIT_GRANT}`),
    reason: safeText('multiline')
      .trim()
      .min(1, 'reason is required')
      .max(1000, 'reason must be at most 1000 characters'),
  })
  .meta({ id: 'AddCreditsRequest', ...APPLICATION_DOCUMENT_ONLY });
export type AddCreditsRequest = z.output<typeof AddCreditsRequest>;

// ---- Answers -----------------------------------------------------------------------------------------------

const UsageThisMonth = z.object({
  period: z.object({ start: IsoDateTime, end: IsoDateTime }),
  envelopesSent: z.number().int(),
  /** The plan's monthly document limit; null: unlimited. */
  monthlyDocumentLimit: z.number().int().nullable(),
  smsCreditsIncluded: z.number().int().describe('The plan’s monthly credits and this month’s grants'),
  smsCreditsUsed: z.number().int(),
  smsCreditsRemaining: z.number().int(),
});

export const BackofficeOrganizationSummary = z.object({
  id: z.uuid(),
  name: z.string(),
  plan: z.string(),
  status: z.enum(ORGANIZATION_STANDINGS),
  apiEnabled: z.boolean(),
  users: z.number().int().describe('Active and invited users'),
  createdAt: IsoDateTime,
  usage: UsageThisMonth,
});
export type BackofficeOrganizationSummary = z.output<typeof BackofficeOrganizationSummary>;

export const BackofficeOrganizationList = z.object({
  organizations: z.array(BackofficeOrganizationSummary),
  nextCursor: z.string().nullable(),
});

export const BackofficeOrganizationDetail = BackofficeOrganizationSummary.extend({
  teams: z.number().int(),
  planLimits: z.object({
    apiAccess: z.boolean(),
    webhookAccess: z.boolean(),
    monthlyDocumentLimit: z.number().int().nullable(),
    userLimit: z.number().int().nullable(),
    teamLimit: z.number().int().nullable(),
    smsCreditsIncluded: z.number().int(),
    ratePerMinute: z.number().int().nullable(),
    uploadRatePerMinute: z.number().int().nullable(),
    supportLevel: z.string(),
  }),
  rateLimits: z.object({
    ratePerMinute: z.number().int().nullable().describe('Agreed for this organization; null: the plan’s'),
    uploadRatePerMinute: z.number().int().nullable(),
  }),
  billing: BillingSummary,
  suspendedAt: IsoDateTime.nullable(),
  suspendedReason: z.string().nullable(),
  deletedAt: IsoDateTime.nullable(),
  /** When a deleted organization's data is purged; null: not deleted. */
  purgeAfter: IsoDateTime.nullable(),
  updatedAt: IsoDateTime,
});
export type BackofficeOrganizationDetail = z.output<typeof BackofficeOrganizationDetail>;

export const BackofficeOrganizationIntegrations = z.object({
  organizationId: z.uuid(),
  apiKeys: ApiKeyList,
  webhooks: WebhookEndpointList,
  diagnostics: IntegrationsDiagnostics,
});

const CreditGrantView = z.object({
  id: z.uuid(),
  amount: z.number().int(),
  reason: z.string(),
  grantedBy: z.object({ administratorId: z.uuid().nullable(), email: z.string().nullable() }),
  grantedAt: IsoDateTime,
});

export const SmsCreditLedger = z.object({
  organizationId: z.uuid(),
  period: z.object({ start: IsoDateTime, end: IsoDateTime }),
  planName: z.string(),
  planAllowance: z.number().int().describe('The plan’s monthly credits'),
  grants: z.array(CreditGrantView).describe('This month’s grants, oldest first'),
  granted: z.number().int().describe('The sum of this month’s grants'),
  uses: z
    .object({
      sms: z.number().int(),
      whatsApp: z.number().int(),
      total: z.number().int(),
    })
    .describe('Text messages sent this month (each uses one credit)'),
  balance: z
    .number()
    .int()
    .describe('planAllowance + granted − uses.total (negative when more was sent than included)'),
  held: z
    .number()
    .int()
    .describe(
      'Credits held for messages not sent yet: envelopes’ invitations and first codes, messages on their way, bulk sends in progress',
    ),
  remaining: z
    .number()
    .int()
    .describe('What the billing summary shows: the balance less what is held, at least 0'),
});
export type SmsCreditLedger = z.output<typeof SmsCreditLedger>;

export const CreditGrantAnswer = z.object({
  grant: CreditGrantView,
  ledger: SmsCreditLedger,
});

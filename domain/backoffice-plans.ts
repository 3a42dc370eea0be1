// The plan catalogue as the backoffice edits it (docs/backoffice.md, "Plans"): every plan with its version, how
// many organizations are on it and its history (who changed what, when, why), and the change an administrator
// makes — the version it was read at (another change in between: 409), and, when a lowered limit would put
// organizations over what they already use, `confirm` listing exactly those organizations.
import { z } from 'zod';
import { APPLICATION_DOCUMENT_ONLY, IsoDateTime, safeText, uuidOf } from './common.ts';
import { PlanView } from './plan.ts';

/** The fields of a plan the backoffice changes (the plans' API and webhook access stay as shipped). */
export const EDITABLE_PLAN_FIELDS = [
  'monthlyDocumentLimit',
  'userLimit',
  'teamLimit',
  'smsCreditsIncluded',
  'apiRequestsPerMinute',
  'apiUploadsPerMinute',
  'supportLevel',
] as const;
export type EditablePlanField = (typeof EDITABLE_PLAN_FIELDS)[number];

/** The limits an organization can already be using more of than a lowered value allows. */
export const USED_PLAN_LIMITS = ['monthlyDocumentLimit', 'userLimit', 'teamLimit'] as const;

export const SUPPORT_LEVELS = ['Community', 'Standard', 'Priority', 'Premium', 'Dedicated'] as const;
export const MAX_PLAN_LIMIT = 100_000_000;

const count = (field: string) =>
  z
    .number({ message: `${field} must be a whole number or null` })
    .int(`${field} must be a whole number`)
    .min(0, `${field} must be at least 0`)
    .max(MAX_PLAN_LIMIT, `${field} must be at most ${MAX_PLAN_LIMIT}`);
const rate = (field: string) =>
  z
    .number({ message: `${field} must be a whole number or null` })
    .int(`${field} must be a whole number`)
    .min(1, `${field} must be at least 1`)
    .max(MAX_PLAN_LIMIT, `${field} must be at most ${MAX_PLAN_LIMIT}`)
    .nullable();

export const BackofficePlanParameter = z.strictObject({
  plan: safeText().trim().min(1, 'plan is required').max(100, 'plan must be at most 100 characters'),
});

export const UpdatePlanRequest = z
  .strictObject({
    version: z
      .number({ message: 'version must be the whole number GET /api/backoffice/plans answered' })
      .int('version must be a whole number')
      .min(1, 'version must be at least 1')
      .describe('The version the change was made on (GET /api/backoffice/plans); another change since: 409'),
    monthlyDocumentLimit: count('monthlyDocumentLimit').nullable().optional().describe('null: unlimited'),
    userLimit: count('userLimit').nullable().optional().describe('null: unlimited'),
    teamLimit: count('teamLimit').nullable().optional().describe('null: unlimited'),
    smsCreditsIncluded: count('smsCreditsIncluded').optional(),
    apiRequestsPerMinute: rate('apiRequestsPerMinute')
      .optional()
      .describe('null: agreed per organization (Enterprise), or no API access'),
    apiUploadsPerMinute: rate('apiUploadsPerMinute')
      .optional()
      .describe('null: agreed per organization (Enterprise), or no API access'),
    supportLevel: z
      .enum(SUPPORT_LEVELS, { message: `supportLevel must be one of ${SUPPORT_LEVELS.join(', ')}` })
      .optional(),
    reason: safeText('multiline')
      .trim()
      .max(1000, 'reason must be at most 1000 characters')
      .optional()
      .describe('Why (kept in the plan’s history)'),
    confirm: z
      .array(uuidOf('confirm'))
      .max(10_000)
      .optional()
      .describe(
        'The ids of the organizations a lowered limit puts over what they already use, as the 409 ' +
          '`plan_limit_exceeded` listed them: the change is made only when it names every one of them',
      ),
  })
  .meta({ id: 'UpdatePlanRequest', ...APPLICATION_DOCUMENT_ONLY });
export type UpdatePlanRequest = z.output<typeof UpdatePlanRequest>;

export const PlanChange = z.object({ from: z.unknown(), to: z.unknown() });

export const PlanVersionView = z.object({
  version: z.number().int(),
  changedAt: IsoDateTime,
  changedBy: z.object({ administratorId: z.uuid().nullable(), email: z.string().nullable() }),
  reason: z.string().nullable(),
  /** Each changed field, before and after. */
  changes: z.record(z.string(), PlanChange),
});

export const BackofficePlan = PlanView.extend({
  version: z.number().int(),
  /** Organizations on the plan, deleted ones left out. */
  organizations: z.number().int(),
  /** The plan's changes, newest first (the last 20). */
  history: z.array(PlanVersionView),
});
export type BackofficePlan = z.output<typeof BackofficePlan>;

export const BackofficePlanList = z.object({ plans: z.array(BackofficePlan) });

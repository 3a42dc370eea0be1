// The billing summary and the dashboard, as the application routes answer them (GET /api/billing/summary,
// GET /api/dashboard; docs/billing.md) and the web app's billing and overview pages read them (as types).
// The billing summary holds every item of the specification's "Usage and plan data" — the same figures as the
// public API's GET /api/v1/usage, from the same service — and the counts behind the plan's user and team limits.
//
// No `.meta({ id })` here (see domain/plan.ts): the application routes' document names its own schemas.
import { z } from 'zod';
import { IsoDateTime } from './common.ts';
import { ENVELOPE_STATUSES } from './vocabulary.ts';

/** A count the plan allows; null: unlimited. */
const limit = (description: string) =>
  z
    .number()
    .int()
    .nullable()
    .meta({ description: `${description}; null: unlimited.` });

const count = (description: string) => z.number().int().min(0).meta({ description });

export const BillingSummary = z.object({
  planName: z.string().meta({ description: 'The plan of the organization (Starter … Enterprise).' }),
  subscriptionStatus: z.enum(['active', 'suspended']).meta({
    description:
      'Active (no payments yet), or suspended when a platform administrator suspended or deleted the organization.',
  }),
  billingMode: z.enum(['invoice']).meta({ description: 'Every organization is billed by invoice.' }),
  monthlyDocumentLimit: limit('Envelopes the plan allows to send per calendar month (UTC)'),
  userLimit: limit('Active and invited users the plan allows'),
  teamLimit: limit('Teams the plan allows'),
  apiAccess: z
    .boolean()
    .meta({ description: 'The public API (/api/v1): the plan includes it and it is enabled.' }),
  webhookAccess: z.boolean().meta({ description: 'The plan includes webhooks.' }),
  supportLevel: z.string().meta({ description: 'The support the plan includes.' }),
  period: z
    .object({ start: IsoDateTime, end: IsoDateTime })
    .meta({ description: 'This calendar month (UTC): from start, until end (exclusive).' }),
  envelopesSentThisPeriod: count('Envelopes sent this period'),
  envelopesReserved: count('Envelopes reserved by bulk sends in progress and not sent yet'),
  remainingEnvelopeQuota: limit('Envelopes that may still be sent this period'),
  smsCreditsIncluded: count('SMS and WhatsApp messages the plan includes per month'),
  smsCreditsUsedThisPeriod: count('SMS and WhatsApp messages sent this period'),
  smsCreditsHeld: count(
    'Credits held for messages not sent yet: envelopes’ invitations and first codes, bulk sends in progress',
  ),
  remainingSmsCredits: count('SMS and WhatsApp messages left this period'),
  users: count('Active and invited users (what the user limit counts)'),
  teams: count('Teams of the organization (what the team limit counts)'),
});
export type BillingSummary = z.output<typeof BillingSummary>;

/** How many items each dashboard section lists at most (its count counts them all). */
export const DASHBOARD_ITEMS = 5;
/** Envelopes whose deadline falls within this many days are "expiring soon". */
export const DASHBOARD_EXPIRING_DAYS = 3;
/** How many audit events "recent activity" lists. */
export const DASHBOARD_ACTIVITY = 10;

const DashboardItem = z.object({
  id: z.uuid(),
  title: z.string(),
  status: z.enum(ENVELOPE_STATUSES),
  date: IsoDateTime.meta({
    description:
      'Sent (awaiting signature), created (drafts), last changed (failures) or the deadline (expiring soon).',
  }),
});
export type DashboardItem = z.output<typeof DashboardItem>;

const DashboardSection = z.object({
  count: count('Every envelope of the section'),
  items: z.array(DashboardItem).meta({ description: `The first ${DASHBOARD_ITEMS}` }),
});
export type DashboardSection = z.output<typeof DashboardSection>;

/** The sections of "needs your action", in the order the page shows them. */
export const DASHBOARD_SECTIONS = [
  'awaitingSignature',
  'drafts',
  'deliveryFailed',
  'finalPdfFailed',
  'expiringSoon',
] as const;
export type DashboardSectionName = (typeof DASHBOARD_SECTIONS)[number];

const section = (description: string) => DashboardSection.nullable().meta({ description });

export const DashboardActivity = z.object({
  envelopeId: z.uuid(),
  title: z.string(),
  sequence: z.number().int(),
  type: z.string().meta({ description: 'The audit event (envelope.sent, recipient.completed, …)' }),
  occurredAt: IsoDateTime,
  recipient: z.object({ id: z.uuid(), fullName: z.string() }).nullable(),
  data: z
    .record(z.string(), z.unknown())
    .meta({ description: 'The audit event’s data (reason, expires_at, …)' }),
});
export type DashboardActivity = z.output<typeof DashboardActivity>;

export const Dashboard = z.object({
  generatedAt: IsoDateTime,
  awaitingSignature: section(
    'Envelopes the user sees that wait on them (by their email address) as the recipient in turn; null ' +
      'without documents:read',
  ),
  drafts: section('The user’s own drafts; null without documents:manage'),
  deliveryFailed: section(
    'DeliveryFailed envelopes waiting on the user as their sender (and, with documents:read_all, the public ' +
      'API’s); null without documents:manage',
  ),
  finalPdfFailed: section('FinalPdfFailed envelopes, by the same rule; null without documents:manage'),
  expiringSoon: section(
    `Envelopes the user sees, still being signed, whose deadline is within ${DASHBOARD_EXPIRING_DAYS} days; ` +
      'null without documents:read',
  ),
  usage: BillingSummary.nullable().meta({
    description: 'This month’s usage against the plan; null without billing:read',
  }),
  recentActivity: z
    .array(DashboardActivity)
    .nullable()
    .meta({
      description:
        `The latest ${DASHBOARD_ACTIVITY} audit events of the envelopes the user sees (of their 100 most ` +
        'recently created); null without documents:read',
    }),
});
export type Dashboard = z.output<typeof Dashboard>;

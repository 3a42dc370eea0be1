// The billing summary of an organization (the specification's *Usage and plan data*): plan limits, what
// remains of this month's envelope quota and SMS credits, and the users and teams the plan's limits count. One
// service for GET /api/v1/usage (whose response schema shows the plan and quota items) and the business app's
// GET /api/billing/summary and dashboard (docs/billing.md), which show all of it.

import { Organization, Plan } from '../../db/entities/index.ts';
import { SEATED_USER_STATUSES } from '../administration/administration.ts';
import type { DataContext } from '../context.ts';
import { NotFound } from '../errors.ts';
import { standingOf } from '../organizations/organization-standing.ts';
import { envelopeQuota } from './envelope-quota.ts';
import { smsCredits } from './sms-credits.ts';

export async function usageSummary(ctx: DataContext, organizationId: string, now = new Date()) {
  const em = ctx.em;
  const organization = await em.findOne(Organization, { id: organizationId });
  if (!organization) throw new NotFound('Organization not found.');
  const plan = await em.findOneOrFail(Plan, { name: organization.planName });
  // An envelope counts against the quota in the month its send reserved it (envelope-quota.ts).
  const credits = await smsCredits(em, organizationId, now);
  const quota = await envelopeQuota(em, organizationId, now);
  const seats = await seatCounts(ctx, organizationId);
  return {
    planName: plan.name,
    // Sigil has no payment provider yet: every organization's subscription is active and billed by invoice,
    // unless a platform administrator suspended (or deleted) the organization (docs/backoffice.md).
    subscriptionStatus: (standingOf(organization) === 'active' ? 'active' : 'suspended') as
      | 'active'
      | 'suspended',
    billingMode: 'invoice' as const,
    monthlyDocumentLimit: plan.monthlyDocumentLimit ?? null,
    userLimit: plan.userLimit ?? null,
    teamLimit: plan.teamLimit ?? null,
    apiAccess: plan.apiAccess && organization.apiEnabled,
    webhookAccess: plan.webhookAccess,
    supportLevel: plan.supportLevel,
    period: { start: quota.period.start.toISOString(), end: quota.period.end.toISOString() },
    envelopesSentThisPeriod: quota.sent,
    envelopesReserved: quota.reserved,
    remainingEnvelopeQuota: quota.remaining,
    smsCreditsIncluded: credits.included,
    smsCreditsUsedThisPeriod: credits.used,
    smsCreditsHeld: credits.held,
    remainingSmsCredits: credits.remaining,
    users: seats.users,
    teams: seats.teams,
  };
}

/**
 * SQL: what the plan's user limit counts of the organization `o` — its active and invited users (as inviting one
 * does); the one definition this service and the backoffice's list of organizations read.
 */
export const SEATED_USERS_SQL = `(select count(*) from app_user u
    where u.organization_id = o.id
      and u.status in (${SEATED_USER_STATUSES.map((status) => `'${status}'`).join(', ')}))::int`;

/** What the plan's user and team limits count: active and invited users (as inviting one does), and teams. */
export async function seatCounts(
  ctx: DataContext,
  organizationId: string,
): Promise<{ users: number; teams: number }> {
  const [row] = await ctx.em.execute<{ users: number; teams: number }[]>(
    `select ${SEATED_USERS_SQL} as users,
            (select count(*) from team t where t.organization_id = o.id)::int as teams
       from organization o where o.id = ?`,
    [organizationId],
  );
  return { users: Number(row?.users ?? 0), teams: Number(row?.teams ?? 0) };
}

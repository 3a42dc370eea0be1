// The billing summary of an organization (the specification's *Usage and plan data*): plan limits and
// what remains of this month's envelope quota and SMS credits.
import { Organization, Plan } from '../../../db/entities/index.ts';
import { NotFound } from '../../errors.ts';
import type { DataContext } from '../context.ts';
import { envelopeQuota } from './envelope-quota.ts';
import { smsCredits } from './sms-credits.ts';

export async function usageSummary(ctx: DataContext, organizationId: string, now = new Date()) {
  const em = ctx.em;
  const organization = await em.findOne(Organization, { id: organizationId });
  if (!organization) throw new NotFound('Organization not found.');
  const plan = await em.findOneOrFail(Plan, { name: organization.planName });
  // An envelope counts against the quota in the month it is sent.
  const credits = await smsCredits(em, organizationId, now);
  const quota = await envelopeQuota(em, organizationId, now);
  return {
    planName: plan.name,
    // Sigil has no payment provider yet: every organization's subscription is active and billed by invoice.
    subscriptionStatus: 'active' as const,
    billingMode: 'invoice' as const,
    monthlyDocumentLimit: plan.monthlyDocumentLimit ?? null,
    userLimit: plan.userLimit ?? null,
    teamLimit: plan.teamLimit ?? null,
    apiAccess: plan.apiAccess && organization.apiEnabled,
    webhookAccess: plan.webhookAccess,
    supportLevel: plan.supportLevel,
    period: { start: quota.period.start.toISOString(), end: quota.period.end.toISOString() },
    envelopesSentThisPeriod: quota.sent,
    remainingEnvelopeQuota: quota.remaining,
    smsCreditsIncluded: credits.included,
    smsCreditsUsedThisPeriod: credits.used,
    remainingSmsCredits: credits.remaining,
  };
}

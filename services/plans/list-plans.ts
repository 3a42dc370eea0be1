// Every plan with its limits (GET /api/plans), in the plans' own order (`sort_order`: the shipped ladder
// Starter → Enterprise, then any plan an operator added). Plans are reference data, the same for every
// organization and for visitors, so this needs no organization.
import { Plan } from '../../db/entities/index.ts';
import type { PlanView } from '../../domain/plan.ts';
import type { DataContext } from '../context.ts';

/** What a plan allows, as every view of a plan states it (the plans' list, an organization's limits). */
export function planAllowances(plan: Plan) {
  return {
    apiAccess: plan.apiAccess,
    webhookAccess: plan.webhookAccess,
    monthlyDocumentLimit: plan.monthlyDocumentLimit ?? null,
    userLimit: plan.userLimit ?? null,
    teamLimit: plan.teamLimit ?? null,
    smsCreditsIncluded: plan.smsCreditsIncluded,
  };
}

export async function listPlans(ctx: DataContext): Promise<PlanView[]> {
  const plans = await ctx.em.find(Plan, {}, { orderBy: { sortOrder: 'asc', name: 'asc' } });
  return plans.map((plan) => ({
    name: plan.name,
    ...planAllowances(plan),
    apiRequestsPerMinute: plan.ratePerMinute ?? null,
    apiUploadsPerMinute: plan.uploadRatePerMinute ?? null,
    supportLevel: plan.supportLevel,
  }));
}

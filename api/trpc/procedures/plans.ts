// GET /api/plans: every plan with its limits. Public: it is the pricing list a visitor reads before signing
// up, and holds nothing of any organization.
import { PlanList } from '../../../domain/plan.ts';
import { listPlans } from '../../../services/plans/list-plans.ts';
import { areaRoute, publicProcedure, router } from '../init.ts';

const route = areaRoute('plans');

export const plansRouter = router({
  list: publicProcedure
    .meta(
      route('GET', '/api/plans', {
        summary: 'Every plan with its limits',
        description:
          'From Starter to Enterprise. A null count (documents, users, teams) means unlimited; a null rate ' +
          'limit means agreed per organization, or no public API on the plan. No sign-in needed.',
        access: 'public',
      }),
    )
    .output(PlanList)
    .query(({ ctx }) => listPlans(ctx.services)),
});

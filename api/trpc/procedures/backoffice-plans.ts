// The plan catalogue in the backoffice (docs/backoffice.md, "Plans"): every plan with its version, organizations
// and history, and the versioned change of a plan's limits, rates, credits and support level.
import {
  BackofficePlan,
  BackofficePlanList,
  BackofficePlanParameter,
  UpdatePlanRequest,
} from '../../../domain/backoffice-plans.ts';
import { listBackofficePlans, updateBackofficePlan } from '../../../services/backoffice/plans.ts';
import { procedure, router } from '../init.ts';
import { backofficeActorOf, backofficeRoute } from './backoffice-actor.ts';

export const backofficePlansRouter = router({
  list: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/plans', {
        summary: 'Every plan with its version, organizations and history',
        description:
          'The plans in their order (GET /api/plans’ fields), each with `version` (what a change names), the ' +
          'number of organizations on it (deleted ones left out) and its last 20 changes, newest first: who, ' +
          'when, why, and each field before and after.',
      }),
    )
    .output(BackofficePlanList)
    .query(({ ctx }) => listBackofficePlans(ctx.services)),

  update: procedure
    .meta(
      backofficeRoute('PUT', '/api/backoffice/plans/{plan}', {
        summary: 'Change a plan’s limits, rate limits, credits per month or support level',
        description:
          '`version`: the plan’s version the change was made on; the change makes the next one and is kept in ' +
          'its history. Applies to every organization on the plan from its next request (plans are not ' +
          'cached). 409 `version_conflict` when the plan was changed since `version` (read it again); 409 ' +
          '`plan_limit_exceeded` when a lowered user, team or monthly document limit is below what ' +
          'organizations on the plan already use — `details[]` names each (`organizationId`, the field, used ' +
          'and limit) and the change is made when sent again with `confirm` listing every one of them; 409 ' +
          '`no_change` when no field differs.',
        errors: {
          404: 'No such plan',
          409: 'Changed since `version`, over a limit already used without `confirm`, or no change',
        },
      }),
    )
    .input(UpdatePlanRequest.extend(BackofficePlanParameter.shape))
    .output(BackofficePlan)
    .mutation(({ ctx, input }) => {
      const { plan, ...change } = input;
      return updateBackofficePlan(ctx.services, backofficeActorOf(ctx), plan, change);
    }),
});

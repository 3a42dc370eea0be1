// The plan catalogue edited from the backoffice (docs/backoffice.md, "Plans"). Plans are read on every request
// that needs them (no cache: bearer-auth.ts, rate-limit.ts, the administration's seats and the envelope quota read
// the row), so a change applies to every organization on the plan from the next request. A change is one
// transaction holding the plan's row: it names the version it was made on (another change since: 409
// `version_conflict`, so two editors cannot overwrite each other), is refused (409 `plan_limit_exceeded`, listing
// them) when a lowered limit would put organizations over what they already use unless `confirm` names every one,
// and writes the new version with its history row (who, when, why, each field before and after) and its backoffice
// audit event.
import { randomUUID } from 'node:crypto';
import {
  type BackofficePlan,
  EDITABLE_PLAN_FIELDS,
  type EditablePlanField,
  UpdatePlanRequest,
  USED_PLAN_LIMITS,
} from '../../domain/backoffice-plans.ts';
import { nowOf, type SessionClock } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import { Conflict, type ErrorDetail, NotFound } from '../errors.ts';
import { ENVELOPES_SENT_SQL } from '../usage/envelope-quota.ts';
import { creditPeriod } from '../usage/sms-credits.ts';
import { SEATED_USERS_SQL } from '../usage/usage-summary.ts';
import { parseInput } from '../validation.ts';
import { type BackofficeActor, recordBackofficeEvent } from './audit-log.ts';

/** The history a plan's view carries, newest first. */
const HISTORY_LENGTH = 20;

interface PlanRow {
  name: string;
  api_access: boolean;
  webhook_access: boolean;
  monthly_document_limit: number | null;
  user_limit: number | null;
  team_limit: number | null;
  sms_credits_included: number;
  rate_limit_per_minute: number | null;
  upload_rate_limit_per_minute: number | null;
  support_level: string;
  version: number;
  organizations: number;
}

interface VersionRow {
  plan_name: string;
  version: number;
  changed_at: Date | string;
  changed_by_admin_id: string | null;
  changed_by_email: string | null;
  reason: string | null;
  changes: Record<string, { from: unknown; to: unknown }>;
}

/** Each editable field's column. */
const COLUMNS: Record<EditablePlanField, keyof PlanRow> = {
  monthlyDocumentLimit: 'monthly_document_limit',
  userLimit: 'user_limit',
  teamLimit: 'team_limit',
  smsCreditsIncluded: 'sms_credits_included',
  apiRequestsPerMinute: 'rate_limit_per_minute',
  apiUploadsPerMinute: 'upload_rate_limit_per_minute',
  supportLevel: 'support_level',
};

const PLAN_SQL = `select p.name, p.api_access, p.webhook_access, p.monthly_document_limit, p.user_limit, p.team_limit,
       p.sms_credits_included, p.rate_limit_per_minute, p.upload_rate_limit_per_minute, p.support_level, p.version,
       (select count(*) from organization o where o.plan_name = p.name and o.deleted_at is null)::int as organizations
  from plan p`;

function planView(row: PlanRow, history: VersionRow[]): BackofficePlan {
  return {
    name: row.name,
    apiAccess: row.api_access,
    webhookAccess: row.webhook_access,
    monthlyDocumentLimit: row.monthly_document_limit,
    userLimit: row.user_limit,
    teamLimit: row.team_limit,
    smsCreditsIncluded: row.sms_credits_included,
    apiRequestsPerMinute: row.rate_limit_per_minute,
    apiUploadsPerMinute: row.upload_rate_limit_per_minute,
    supportLevel: row.support_level,
    version: row.version,
    organizations: Number(row.organizations),
    history: history.map((entry) => ({
      version: entry.version,
      changedAt: new Date(entry.changed_at).toISOString(),
      changedBy: { administratorId: entry.changed_by_admin_id, email: entry.changed_by_email },
      reason: entry.reason,
      changes: entry.changes,
    })),
  };
}

async function historyOf(ctx: DataContext, names: string[]): Promise<Map<string, VersionRow[]>> {
  const rows =
    names.length === 0
      ? []
      : await ctx.em.execute<VersionRow[]>(
          `select * from (
             select v.*, row_number() over (partition by v.plan_name order by v.version desc) as n
               from plan_version v where v.plan_name in (?)) ranked
            where n <= ? order by plan_name, version desc`,
          [names, HISTORY_LENGTH],
        );
  const byPlan = new Map<string, VersionRow[]>();
  for (const row of rows) byPlan.set(row.plan_name, [...(byPlan.get(row.plan_name) ?? []), row]);
  return byPlan;
}

/** Every plan in the plans' order, with its version, organizations and history. */
export async function listBackofficePlans(ctx: DataContext): Promise<{ plans: BackofficePlan[] }> {
  const rows = await ctx.em.execute<PlanRow[]>(`${PLAN_SQL} order by p.sort_order, p.name`);
  const history = await historyOf(
    ctx,
    rows.map((row) => row.name),
  );
  return { plans: rows.map((row) => planView(row, history.get(row.name) ?? [])) };
}

interface OverLimitRow {
  id: string;
  name: string;
  users: number;
  teams: number;
  sent: number;
}

/**
 * The organizations on the plan (deleted ones left out) already using more than a lowered limit allows: more
 * active and invited users, more teams, more envelopes sent this month. One detail per organization and limit.
 */
async function organizationsOverLimits(
  ctx: DataContext,
  plan: string,
  lowered: Partial<Record<(typeof USED_PLAN_LIMITS)[number], number>>,
  now: Date,
): Promise<ErrorDetail[]> {
  if (Object.keys(lowered).length === 0) return [];
  const period = creditPeriod(now);
  const rows = await ctx.em.execute<OverLimitRow[]>(
    `select o.id, o.name, ${SEATED_USERS_SQL} as users,
            (select count(*) from team t where t.organization_id = o.id)::int as teams,
            ${ENVELOPES_SENT_SQL} as sent
       from organization o
      where o.plan_name = ? and o.deleted_at is null
      order by o.created_at, o.id`,
    [period.start, period.end, plan],
  );
  const used = { userLimit: 'users', teamLimit: 'teams', monthlyDocumentLimit: 'sent' } as const;
  const words = {
    userLimit: 'active and invited users',
    teamLimit: 'teams',
    monthlyDocumentLimit: 'envelopes sent this month',
  };
  const details: ErrorDetail[] = [];
  for (const row of rows) {
    for (const field of USED_PLAN_LIMITS) {
      const limit = lowered[field];
      const count = Number(row[used[field]]);
      if (limit !== undefined && count > limit) {
        details.push({
          field: `body.${field}`,
          message: `${row.name} has ${count} ${words[field]}, more than ${limit}`,
          organizationId: row.id,
          organizationName: row.name,
          used: count,
          limit,
        });
      }
    }
  }
  return details;
}

/**
 * Changes a plan (see the header). 404 for an unknown plan; 409 `version_conflict` when the plan changed since
 * `version`; 409 `plan_limit_exceeded` listing the organizations a lowered limit puts over what they use, unless
 * `confirm` names each of them. Answers the plan as GET shows it.
 */
export async function updateBackofficePlan(
  ctx: DataContext & SessionClock,
  actor: BackofficeActor,
  planName: string,
  input: unknown,
): Promise<BackofficePlan> {
  const data = parseInput(UpdatePlanRequest, input, 'plan');
  const now = nowOf(ctx);
  await ctx.em.transactional(async (em) => {
    const txCtx = { ...ctx, em };
    const [row] = await em.execute<PlanRow[]>(`${PLAN_SQL} where p.name = ? for update of p`, [planName]);
    if (!row) throw new NotFound(`Plan ${planName} was not found.`);
    if (row.version !== data.version) {
      throw new Conflict(
        `The ${row.name} plan was changed since version ${data.version} (it is at version ${row.version}): read it again and make the change on the new version.`,
        [{ field: 'body.version', message: `the plan is at version ${row.version}`, version: row.version }],
        'version_conflict',
      );
    }
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const field of EDITABLE_PLAN_FIELDS) {
      const to = data[field];
      const from = row[COLUMNS[field]];
      if (to !== undefined && to !== from) changes[field] = { from, to };
    }
    if (Object.keys(changes).length === 0) {
      throw new Conflict(
        `Nothing to change: the ${row.name} plan already has these values.`,
        [{ field: 'body', message: 'no field differs from the plan' }],
        'no_change',
      );
    }
    const lowered: Partial<Record<(typeof USED_PLAN_LIMITS)[number], number>> = {};
    for (const field of USED_PLAN_LIMITS) {
      const to = changes[field]?.to;
      const from = changes[field]?.from;
      if (typeof to === 'number' && (from === null || (typeof from === 'number' && to < from)))
        lowered[field] = to;
    }
    const over = await organizationsOverLimits(txCtx, row.name, lowered, now);
    const overIds = [...new Set(over.map((detail) => detail.organizationId as string))];
    const confirmed = new Set(data.confirm ?? []);
    if (overIds.some((id) => !confirmed.has(id))) {
      throw new Conflict(
        `This change would put ${overIds.length} organization${overIds.length === 1 ? '' : 's'} on the ${row.name} plan over a limit they already use: send it again with confirm listing their ids (details[].organizationId) to make it anyway.`,
        over,
        'plan_limit_exceeded',
      );
    }
    const version = row.version + 1;
    const sets = Object.keys(changes).map((field) => `${COLUMNS[field as EditablePlanField]} = ?`);
    await em.execute(`update plan set ${sets.join(', ')}, version = ? where name = ?`, [
      ...Object.values(changes).map((change) => change.to),
      version,
      row.name,
    ]);
    const admin = actor.kind === 'platform_admin' ? actor.admin : null;
    await em.execute(
      `insert into plan_version (id, plan_name, version, changed_at, changed_by_admin_id, changed_by_email, reason, changes)
       values (?, ?, ?, ?, ?, ?, ?, ?::jsonb)`,
      [
        randomUUID(),
        row.name,
        version,
        now,
        admin?.id ?? null,
        admin?.email ?? null,
        data.reason ?? null,
        JSON.stringify(changes),
      ],
    );
    recordBackofficeEvent(txCtx, actor, {
      action: 'plan.updated',
      targetId: null,
      details: {
        plan: row.name,
        version,
        changes,
        reason: data.reason ?? null,
        ...(overIds.length > 0 ? { confirmedOrganizations: overIds } : {}),
      },
    });
    await em.flush();
  });
  const { plans } = await listBackofficePlans(ctx);
  const plan = plans.find((candidate) => candidate.name === planName);
  if (!plan) throw new NotFound(`Plan ${planName} was not found.`);
  return plan;
}

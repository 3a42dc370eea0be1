// The backoffice's organizations (docs/backoffice.md, "Organizations"): the list (search by name or exact id,
// filters by plan, API flag and standing, newest first a page at a time, with this month's usage), one
// organization's detail (its plan's limits, agreed rate limits, counts, the billing summary, its standing), the
// change of its plan, status, API flag and agreed rates, its soft deletion, and its integrations (read-only).
// Every change is one transaction with its backoffice audit event (before and after).
//
// The usage figures are the usage services' own SQL expressions (envelope-quota.ts, sms-credits.ts,
// usage-summary.ts): the list reads every organization of a page in one statement, with the same definitions
// the billing summary uses for one organization.
import { LockMode } from '@mikro-orm/core';
import { Organization, Plan, UserSession } from '../../db/entities/index.ts';
import {
  type BackofficeOrganizationDetail,
  type BackofficeOrganizationSummary,
  type BackofficeUpdateOrganizationRequest,
  ORGANIZATION_PURGE_DAYS,
} from '../../domain/backoffice-organizations.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import { nowOf, type SessionClock } from '../accounts/sessions.ts';
import type { DataContext, RequestServiceContext } from '../context.ts';
import { type ErrorDetail, InvalidRequest, NotFound } from '../errors.ts';
import { listApiKeys } from '../oauth-clients/list-api-keys.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { type OrganizationStanding, standingOf } from '../organizations/organization-standing.ts';
import { planAllowances } from '../plans/list-plans.ts';
import { ENVELOPES_SENT_SQL } from '../usage/envelope-quota.ts';
import { integrationsDiagnostics } from '../usage/integrations-diagnostics.ts';
import { creditPeriod, SMS_CREDITS_INCLUDED_SQL, SMS_CREDITS_USED_SQL } from '../usage/sms-credits.ts';
import { SEATED_USERS_SQL, seatCounts, usageSummary } from '../usage/usage-summary.ts';
import { listWebhookEndpointsWithActivity } from '../webhooks/list-webhook-endpoints.ts';
import { type BackofficeActor, recordBackofficeEvent } from './audit-log.ts';
import { recordStaffAccess, type StaffActor } from './staff-access.ts';

/** The plan whose API rate limits are agreed per organization (its plan row has none). */
export const AGREED_RATES_PLAN = 'Enterprise';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface OrganizationListFilters {
  search?: string | undefined;
  plan?: string | undefined;
  apiEnabled?: 'true' | 'false' | undefined;
  status?: OrganizationStanding | undefined;
  limit: number;
  cursor?: string | undefined;
}

interface SummaryRow {
  id: string;
  name: string;
  plan_name: string;
  status: string;
  deleted_at: Date | string | null;
  api_enabled: boolean;
  created_at: Date | string;
  monthly_document_limit: number | null;
  users: number;
  sent: number;
  sms_included: number;
  sms_used: number;
}

/** `\`, `%` and `_` of a LIKE pattern, escaped with `\`. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/**
 * The page's organizations with their usage this month, in one statement: each figure is the usage services'
 * own expression (a count over an index per organization of the page).
 */
async function summaryRows(
  ctx: DataContext,
  conditions: { sql: string; params: unknown[] }[],
  limit: number,
  now: Date,
): Promise<SummaryRow[]> {
  const period = creditPeriod(now);
  const where = conditions.length > 0 ? conditions.map((c) => `(${c.sql})`).join(' and ') : 'true';
  return ctx.em.execute<SummaryRow[]>(
    `select o.id, o.name, o.plan_name, o.status, o.deleted_at, o.api_enabled, o.created_at,
            p.monthly_document_limit,
            ${SEATED_USERS_SQL} as users,
            ${ENVELOPES_SENT_SQL} as sent,
            ${SMS_CREDITS_INCLUDED_SQL} as sms_included,
            ${SMS_CREDITS_USED_SQL} as sms_used
       from organization o join plan p on p.name = o.plan_name
      where ${where}
      order by o.created_at desc, o.id desc
      limit ?`,
    [
      period.start,
      period.end,
      period.start,
      period.end,
      period.start,
      period.end,
      ...conditions.flatMap((c) => c.params),
      limit,
    ],
  );
}

const iso = (value: Date | string) => new Date(value).toISOString();

function summaryOf(row: SummaryRow, now: Date): BackofficeOrganizationSummary {
  const period = creditPeriod(now);
  const included = Number(row.sms_included);
  const used = Number(row.sms_used);
  return {
    id: row.id,
    name: row.name,
    plan: row.plan_name,
    status: standingOf({ status: row.status, deletedAt: row.deleted_at ? new Date(row.deleted_at) : null }),
    apiEnabled: row.api_enabled,
    users: Number(row.users),
    createdAt: iso(row.created_at),
    usage: {
      period: { start: period.start.toISOString(), end: period.end.toISOString() },
      envelopesSent: Number(row.sent),
      monthlyDocumentLimit: row.monthly_document_limit ?? null,
      smsCreditsIncluded: included,
      smsCreditsUsed: used,
      smsCreditsRemaining: Math.max(0, included - used),
    },
  };
}

/** The cursor of a page's last organization: its id (the next page continues after it, newest first). */
const encodeCursor = (id: string) => Buffer.from(id, 'utf8').toString('base64url');

function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!UUID_PATTERN.test(id)) {
    throw new InvalidRequest('cursor is not the nextCursor of a previous page.', [
      { field: 'querystring.cursor', message: 'not the nextCursor of a previous page' },
    ]);
  }
  return id;
}

/** A page of organizations, newest first; `nextCursor` reads the next (older) page, null at the end. */
export async function listOrganizations(
  ctx: DataContext,
  filters: OrganizationListFilters,
  now = new Date(),
) {
  const conditions: { sql: string; params: unknown[] }[] = [];
  if (filters.status === 'deleted') conditions.push({ sql: 'o.deleted_at is not null', params: [] });
  else {
    conditions.push({ sql: 'o.deleted_at is null', params: [] });
    if (filters.status) conditions.push({ sql: 'o.status = ?', params: [filters.status] });
  }
  if (filters.plan) conditions.push({ sql: 'o.plan_name = ?', params: [filters.plan] });
  if (filters.apiEnabled) {
    conditions.push({ sql: 'o.api_enabled = ?', params: [filters.apiEnabled === 'true'] });
  }
  const search = filters.search?.trim();
  if (search) {
    const byName = { sql: `o.name ilike ? escape '\\'`, params: [`%${escapeLike(search)}%`] };
    conditions.push(
      UUID_PATTERN.test(search)
        ? { sql: `${byName.sql} or o.id = ?::uuid`, params: [...byName.params, search.toLowerCase()] }
        : byName,
    );
  }
  if (filters.cursor) {
    const after = decodeCursor(filters.cursor);
    // Keyset on (created_at, id), read from the row itself: exact to the microsecond.
    conditions.push({
      sql: '(o.created_at, o.id) < (select c.created_at, c.id from organization c where c.id = ?::uuid)',
      params: [after],
    });
  }
  const rows = await summaryRows(ctx, conditions, filters.limit + 1, now);
  const page = rows.slice(0, filters.limit);
  const last = page.at(-1);
  return {
    organizations: page.map((row) => summaryOf(row, now)),
    nextCursor: rows.length > filters.limit && last ? encodeCursor(last.id) : null,
  };
}

/** The organization of a backoffice path, or 404 (a malformed id too). */
async function organizationOf(ctx: DataContext, id: string): Promise<Organization> {
  return findOrganization(ctx, id);
}

/**
 * A member of staff opened an organization's page or its integrations (docs/backoffice.md, "Support access
 * recorded"): one entry in the backoffice audit log and `support.accessed` in the organization's security log.
 */
export async function recordOrganizationLook(
  ctx: DataContext & SessionClock,
  actor: StaffActor,
  organizationId: string,
  action: 'organization.viewed' | 'organization.integrations_viewed',
): Promise<void> {
  recordStaffAccess(ctx, actor, { organizationId, action, targetId: organizationId, reason: null });
  await ctx.em.flush();
}

/** When a deleted organization's data is due for the purge. */
export const purgeAfterOf = (deletedAt: Date) =>
  new Date(deletedAt.getTime() + ORGANIZATION_PURGE_DAYS * DAY_MS);

/** One organization, deleted ones too: what the list shows and its plan, limits, counts, billing and standing. */
export async function organizationDetail(
  ctx: DataContext,
  id: string,
  now = new Date(),
): Promise<BackofficeOrganizationDetail> {
  const organization = await organizationOf(ctx, id);
  const [row] = await summaryRows(ctx, [{ sql: 'o.id = ?::uuid', params: [organization.id] }], 1, now);
  if (!row) throw new NotFound(`Organization ${id} was not found.`);
  const plan = await ctx.em.findOneOrFail(Plan, { name: organization.planName });
  const seats = await seatCounts(ctx, organization.id);
  return {
    ...summaryOf(row, now),
    teams: seats.teams,
    planLimits: {
      ...planAllowances(plan),
      ratePerMinute: plan.ratePerMinute ?? null,
      uploadRatePerMinute: plan.uploadRatePerMinute ?? null,
      supportLevel: plan.supportLevel,
    },
    rateLimits: {
      ratePerMinute: organization.ratePerMinute ?? null,
      uploadRatePerMinute: organization.uploadRatePerMinute ?? null,
    },
    billing: await usageSummary(ctx, organization.id, now),
    suspendedAt: organization.suspendedAt?.toISOString() ?? null,
    suspendedReason: organization.suspendedReason ?? null,
    deletedAt: organization.deletedAt?.toISOString() ?? null,
    purgeAfter: organization.deletedAt ? purgeAfterOf(organization.deletedAt).toISOString() : null,
    updatedAt: organization.updatedAt.toISOString(),
  };
}

/** What an update changes, as the audit event records it before and after. */
function settingsOf(organization: Organization) {
  return {
    plan: organization.planName,
    status: organization.status,
    suspendedReason: organization.suspendedReason ?? null,
    apiEnabled: organization.apiEnabled,
    ratePerMinute: organization.ratePerMinute ?? null,
    uploadRatePerMinute: organization.uploadRatePerMinute ?? null,
  };
}

const bodyProblem = (field: string, message: string): ErrorDetail => ({ field: `body.${field}`, message });

function refuse(problems: ErrorDetail[]): never {
  const [first] = problems;
  throw new InvalidRequest(`Invalid request: ${first?.field}: ${first?.message}`, problems);
}

/** The organization locked for a change; 404 for an unknown or deleted one. */
async function lockedForChange(em: DataContext['em'], id: string): Promise<Organization> {
  const organization = UUID_PATTERN.test(id)
    ? await em.findOne(Organization, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE })
    : null;
  if (!organization || organization.deletedAt) throw new NotFound(`Organization ${id} was not found.`);
  return organization;
}

/**
 * Changes an organization's plan, status (with the suspension's reason), API flag and agreed rates: at least one
 * field. The plan must exist; the API flag needs a plan with API access; agreed rates are for the Enterprise plan
 * only (moving to another plan clears them). Suspending ends the organization's sessions.
 */
export async function updateOrganization(
  ctx: DataContext & SessionClock,
  actor: BackofficeActor,
  id: string,
  input: BackofficeUpdateOrganizationRequest,
): Promise<void> {
  const given = Object.entries(input).filter(([, value]) => value !== undefined);
  if (given.length === 0) {
    refuse([{ field: 'body', message: 'give at least one field to change' }]);
  }
  await ctx.em.transactional(async (em) => {
    const organization = await lockedForChange(em, id);
    const before = settingsOf(organization);
    const problems: ErrorDetail[] = [];

    const plan = await em.findOne(Plan, { name: input.plan ?? organization.planName });
    if (!plan) problems.push(bodyProblem('plan', `no plan is called ${input.plan}`));
    const status = input.status ?? organization.status;
    if (input.suspendedReason && status !== 'suspended') {
      problems.push(bodyProblem('suspendedReason', 'only a suspended organization has a reason'));
    }
    const apiEnabled = input.apiEnabled ?? organization.apiEnabled;
    if (plan && input.apiEnabled === true && !plan.apiAccess) {
      problems.push(bodyProblem('apiEnabled', `the ${plan.name} plan does not include API access`));
    }
    const agreed = plan?.name === AGREED_RATES_PLAN;
    for (const field of ['ratePerMinute', 'uploadRatePerMinute'] as const) {
      if (plan && !agreed && input[field] !== undefined && input[field] !== null) {
        problems.push(
          bodyProblem(
            field,
            `rates are agreed only for the ${AGREED_RATES_PLAN} plan (this is ${plan.name})`,
          ),
        );
      }
    }
    if (problems.length > 0 || !plan) refuse(problems);

    const now = nowOf(ctx);
    organization.planName = plan.name;
    organization.apiEnabled = apiEnabled;
    if (agreed) {
      if (input.ratePerMinute !== undefined) organization.ratePerMinute = input.ratePerMinute;
      if (input.uploadRatePerMinute !== undefined)
        organization.uploadRatePerMinute = input.uploadRatePerMinute;
    } else {
      // Another plan has its own limits: what was agreed for Enterprise no longer applies.
      organization.ratePerMinute = null;
      organization.uploadRatePerMinute = null;
    }
    if (status === 'suspended') {
      if (organization.status !== 'suspended') organization.suspendedAt = now;
      organization.status = 'suspended';
      if (input.suspendedReason !== undefined) organization.suspendedReason = input.suspendedReason || null;
    } else {
      organization.status = 'active';
      organization.suspendedAt = null;
      organization.suspendedReason = null;
    }
    const after = settingsOf(organization);
    const changed = Object.keys(after).filter(
      (key) => before[key as keyof typeof before] !== after[key as keyof typeof after],
    );
    if (before.status !== 'suspended' && after.status === 'suspended') {
      await endOrganizationSessions(em, organization.id, now, 'organization_suspended');
    }
    recordBackofficeEvent({ ...ctx, em }, actor, {
      action: 'organization.updated',
      targetId: organization.id,
      details: { name: organization.name, before, after, changed },
    });
    await em.flush();
  });
}

async function endOrganizationSessions(
  em: DataContext['em'],
  organizationId: string,
  now: Date,
  reason: string,
): Promise<number> {
  return em.nativeUpdate(
    UserSession,
    { organizationId, endedAt: null },
    { endedAt: now, endedReason: reason },
  );
}

/**
 * Deletes an organization softly: `deleted_at` is set, its sessions end, and from then on it is refused
 * everywhere like a suspended one and listed only under `deleted`. 404 for an unknown or already deleted one.
 */
export async function deleteOrganization(
  ctx: DataContext & SessionClock,
  actor: BackofficeActor,
  id: string,
): Promise<{ deletedAt: Date; purgeAfter: Date }> {
  return ctx.em.transactional(async (em) => {
    const organization = await lockedForChange(em, id);
    const now = nowOf(ctx);
    organization.deletedAt = now;
    await endOrganizationSessions(em, organization.id, now, 'organization_deleted');
    const purgeAfter = purgeAfterOf(now);
    recordBackofficeEvent({ ...ctx, em }, actor, {
      action: 'organization.deleted',
      targetId: organization.id,
      details: {
        name: organization.name,
        plan: organization.planName,
        status: organization.status,
        purgeAfter: purgeAfter.toISOString(),
      },
    });
    await em.flush();
    return { deletedAt: now, purgeAfter };
  });
}

/**
 * The organization's integrations as its own Integrations area shows them, read-only: the OAuth clients (never a
 * secret: its hint only), the webhook endpoints (never their signing secrets) with their deliveries, and the
 * diagnostics of both.
 */
export async function organizationIntegrations(ctx: RequestServiceContext, id: string) {
  const organization = await organizationOf(ctx, id);
  return {
    organizationId: organization.id,
    apiKeys: await listApiKeys(ctx, organization.id),
    webhooks: await listWebhookEndpointsWithActivity(ctx, organization.id),
    diagnostics: await integrationsDiagnostics(ctx, organization.id),
  };
}

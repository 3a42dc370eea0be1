// SMS credits a platform administrator gives an organization, and this month's ledger (docs/backoffice.md,
// "Credits"). A grant counts in the calendar month (UTC) it is given, like the plan's own monthly credits: the
// credits of a month are the plan's allowance plus that month's grants (sms-credits.ts reads them so, for the
// billing summary, GET /api/v1/usage and every send and one-time code), less the text messages sent in it, less
// the credits held for messages not sent yet (db/usage-reservations.ts).
import { randomUUID } from 'node:crypto';
import { IsolationLevel, LockMode } from '@mikro-orm/core';
import { Organization, Plan, SmsCreditGrant } from '../../db/entities/index.ts';
import type { AddCreditsRequest, SmsCreditLedger } from '../../domain/backoffice-organizations.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import { nowOf, type SessionClock } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import { NotFound } from '../errors.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { creditPeriod, smsCredits } from '../usage/sms-credits.ts';
import { type BackofficeActor, recordBackofficeEvent } from './audit-log.ts';

function grantView(grant: SmsCreditGrant) {
  return {
    id: grant.id,
    amount: grant.amount,
    reason: grant.reason,
    grantedBy: { administratorId: grant.grantedByAdminId ?? null, email: grant.grantedByEmail ?? null },
    grantedAt: grant.createdAt.toISOString(),
  };
}

/**
 * The month's ledger of an organization (deleted ones too): the plan's allowance, every grant of the month, the
 * messages sent (SMS and WhatsApp, counted as sms-credits.ts counts them), the balance, the credits held and what
 * remains — read in one snapshot, so allowance + grants − uses − held is exactly what the billing summary shows.
 */
export async function creditLedger(ctx: DataContext, id: string, now = new Date()): Promise<SmsCreditLedger> {
  const organization = await findOrganization(ctx, id);
  const period = creditPeriod(now);
  return ctx.em.fork().transactional(
    async (em) => {
      const plan = await em.findOneOrFail(Plan, { name: organization.planName });
      const grants = await em.find(
        SmsCreditGrant,
        { organizationId: organization.id, createdAt: { $gte: period.start, $lt: period.end } },
        { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
      );
      const [uses] = await em.execute<{ sms: number; whatsapp: number }[]>(
        `select count(*) filter (where n.channel = 'Sms')::int as sms,
                count(*) filter (where n.channel = 'WhatsApp')::int as whatsapp
           from notification n
          where n.organization_id = ? and n.status = 'sent' and n.channel in ('Sms', 'WhatsApp')
            and n.sent_at >= ? and n.sent_at < ?`,
        [organization.id, period.start, period.end],
      );
      const credits = await smsCredits(em, organization.id, now);
      const granted = grants.reduce((sum, grant) => sum + grant.amount, 0);
      const sms = Number(uses?.sms ?? 0);
      const whatsApp = Number(uses?.whatsapp ?? 0);
      return {
        organizationId: organization.id,
        period: { start: period.start.toISOString(), end: period.end.toISOString() },
        planName: plan.name,
        planAllowance: plan.smsCreditsIncluded,
        grants: grants.map(grantView),
        granted,
        uses: { sms, whatsApp, total: credits.used },
        balance: credits.included - credits.used,
        held: credits.held,
        remaining: credits.remaining,
      };
    },
    // One snapshot for every statement: a message sent meanwhile is in all of them or in none.
    { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true },
  );
}

/**
 * Gives an organization SMS credits for this month, with the reason, in one transaction with its audit event;
 * answers the grant and the month's ledger. 404 for an unknown or deleted organization.
 */
export async function addCredits(
  ctx: DataContext & SessionClock,
  actor: BackofficeActor,
  id: string,
  input: AddCreditsRequest,
) {
  const grant = await ctx.em.transactional(async (em) => {
    const organization = UUID_PATTERN.test(id)
      ? await em.findOne(Organization, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE })
      : null;
    if (!organization || organization.deletedAt) throw new NotFound(`Organization ${id} was not found.`);
    const created = em.create(SmsCreditGrant, {
      id: randomUUID(),
      organizationId: organization.id,
      amount: input.amount,
      reason: input.reason,
      grantedByAdminId: actor.kind === 'platform_admin' ? actor.admin.id : null,
      grantedByEmail: actor.kind === 'platform_admin' ? actor.admin.email : null,
      createdAt: nowOf(ctx),
    });
    recordBackofficeEvent({ ...ctx, em }, actor, {
      action: 'organization.credits_granted',
      targetId: organization.id,
      details: { name: organization.name, grantId: created.id, amount: input.amount, reason: input.reason },
    });
    await em.flush();
    return created;
  });
  return { grant: grantView(grant), ledger: await creditLedger(ctx, id, grant.createdAt) };
}

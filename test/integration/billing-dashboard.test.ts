// The billing summary and the dashboard (docs/billing.md) through HTTP on real PostgreSQL. One organization on
// the Business plan with an owner, an administrator, senders in two teams, a read-only member, an invited and a
// deactivated user, envelopes made by the envelope service and put in each state with SQL (sent this month and
// last month, waiting on a user as the recipient in turn, drafts, delivery and final-PDF failures, deadlines
// soon and later), SMS/WhatsApp notifications, audit events; and another organization with the same kinds of
// rows, never counted. Checked: every figure of GET /api/billing/summary against what the test seeded, the same
// figures as GET /api/v1/usage (one service) whose answer keeps its shape, billing:read (403 for the others),
// and the dashboard's sections for a sender, a member and the owner (who sees which envelope).
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppUser } from '../../db/entities/index.ts';
import { createEnvelope, type EnvelopeSender } from '../../services/envelopes/create-envelope.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { callAs, expectJson } from '../support/app-requests.ts';
import { createOrganizationWithTemplate } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let organizationId: string;
let templateId: string;
let otherOrganizationId: string;
let otherTemplateId: string;
let owner: SignedInUser;
let admin: SignedInUser;
let senderA: SignedInUser;
let senderB: SignedInUser;
let senderC: SignedInUser;
let member: SignedInUser;
let stranger: SignedInUser;
let sales: string;
let support: string;

const DAY = 24 * 60 * 60 * 1000;
const now = new Date();
const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
const nextMonthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
/** A moment of this month before now (the seeded sends). */
const thisMonth = new Date(Math.max(monthStart.getTime(), now.getTime() - 60_000));
const lastMonth = new Date(monthStart.getTime() - 2 * DAY);

/** The envelopes, by what they are for. */
const E = {} as Record<
  | 'sentA1'
  | 'sentA2'
  | 'sentC'
  | 'sentLastMonth'
  | 'waitingOnB'
  | 'waitingOnBOtherTeam'
  | 'waitingOnBCompleted'
  | 'draftA'
  | 'draftB'
  | 'deliveryFailedA'
  | 'deliveryFailedC'
  | 'finalPdfFailedB'
  | 'expiringA'
  | 'expiringC'
  | 'expiringLater'
  | 'otherSent'
  | 'otherWaitingOnB',
  string
>;

function sql(statement: string, params: unknown[] = []) {
  return harness.ctx.orm.em.fork().execute(statement, params);
}

async function envelope(
  org: string,
  template: string,
  sender: EnvelopeSender | undefined,
  title: string,
  recipientEmail = 'dana@example.com',
): Promise<string> {
  const made = await createEnvelope(
    harness.ctx,
    {
      organizationId: org,
      templateId: template,
      title,
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: recipientEmail, deliveryChannel: 'ManualLink' },
        {
          roleName: 'Provider',
          fullName: 'Sam Cohen',
          email: 'sam@example.com',
          deliveryChannel: 'ManualLink',
        },
      ],
    } as never,
    sender,
  );
  return made.id;
}

/** The envelope's status and dates, set as its workflow would have left them. */
async function setState(
  id: string,
  state: { status: string; sentAt?: Date | null; expiresAt?: Date | null; createdAt?: Date },
): Promise<void> {
  await sql(
    `update envelope set status = ?, sent_at = ?, expires_at = ?,
            created_at = coalesce(?, created_at), updated_at = now() where id = ?`,
    [state.status, state.sentAt ?? null, state.expiresAt ?? null, state.createdAt ?? null, id],
  );
}

/** The envelope's first recipient (the one in turn) as the workflow leaves them: invited. */
async function inTurn(id: string, status = 'InvitationSent'): Promise<void> {
  await sql(`update recipient set status = ? where envelope_id = ? and role_name = 'Client'`, [status, id]);
}

async function notification(org: string, channel: string, status: string, sentAt: Date | null) {
  await sql(
    `insert into notification (id, organization_id, kind, channel, to_address, language, provider, status,
                               attempts, last_attempt_at, sent_at)
     values (?, ?, 'invitation', ?, '+972500000000', 'en', 'dev-capture', ?, 1, now(), ?)`,
    [randomUUID(), org, channel, status, sentAt],
  );
}

async function auditEvent(envelopeId: string, org: string, sequence: number, type: string, at: Date) {
  await sql(
    `insert into audit_event (id, envelope_id, organization_id, sequence, type, data, occurred_at)
     values (?, ?, ?, ?, ?, '{}', ?)`,
    [randomUUID(), envelopeId, org, sequence, type, at],
  );
}

beforeAll(async () => {
  harness = await openApiHarness();
  const made = await createOrganizationWithTemplate(harness.ctx);
  organizationId = made.organization.id;
  templateId = made.template.id;
  const other = await createOrganizationWithTemplate(harness.ctx);
  otherOrganizationId = other.organization.id;
  otherTemplateId = other.template.id;

  owner = await signedInUser(harness, { role: 'owner', organizationId, fullName: 'Olivia Owner' });
  const team = async (name: string) =>
    expectJson<{ id: string }>(
      await harness.app.inject({
        method: 'POST',
        url: '/api/teams',
        headers: owner.headers,
        payload: { name },
      }),
    ).id;
  sales = await team('Sales');
  support = await team('Support');
  const user = async (role: string, fullName: string, teamId: string | null) => {
    const made = await signedInUser(harness, { role, organizationId, fullName });
    if (teamId) await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: made.user.id }, { teamId });
    return made;
  };
  admin = await user('administrator', 'Adam Admin', null);
  senderA = await user('sender', 'Avi Sender', sales);
  senderB = await user('sender', 'Bella Sender', sales);
  senderC = await user('sender', 'Carmel Sender', support);
  member = await user('member', 'Mor Member', sales);
  const invited = await user('member', 'Ido Invited', null);
  const gone = await user('member', 'Dov Deactivated', null);
  await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: invited.user.id }, { status: 'invited' });
  await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: gone.user.id }, { status: 'deactivated' });
  stranger = await signedInUser(harness, {
    role: 'owner',
    organizationId: otherOrganizationId,
    fullName: 'Someone Else',
  });

  const A = { userId: senderA.user.id, teamId: sales };
  const B = { userId: senderB.user.id, teamId: sales };
  const C = { userId: senderC.user.id, teamId: support };
  const mk = (sender: EnvelopeSender | undefined, title: string, email?: string) =>
    envelope(organizationId, templateId, sender, title, email);

  // Sent this month: counted against the quota, whatever became of them since.
  E.sentA1 = await mk(A, 'Alpha completed');
  await setState(E.sentA1, { status: 'Completed', sentAt: thisMonth });
  E.sentA2 = await mk(A, 'Alpha cancelled');
  await setState(E.sentA2, { status: 'Cancelled', sentAt: thisMonth });
  E.sentC = await mk(C, 'Gamma declined');
  await setState(E.sentC, { status: 'Declined', sentAt: thisMonth });
  E.sentLastMonth = await mk(A, 'Alpha of last month');
  await setState(E.sentLastMonth, { status: 'Completed', sentAt: lastMonth });

  // Waiting on Bella (her address, in capitals on one) as the recipient in turn.
  E.waitingOnB = await mk(A, 'Beta waits on Bella', senderB.email.toUpperCase());
  await setState(E.waitingOnB, { status: 'WaitingForNextSigner', sentAt: thisMonth });
  await inTurn(E.waitingOnB);
  // Another team's envelope waiting on her: she does not see it, so it is not hers on the dashboard either.
  E.waitingOnBOtherTeam = await mk(C, 'Support waits on Bella', senderB.email);
  await setState(E.waitingOnBOtherTeam, { status: 'Sent', sentAt: thisMonth });
  await inTurn(E.waitingOnBOtherTeam);
  // She has signed this one: nothing waits on her.
  E.waitingOnBCompleted = await mk(A, 'Bella signed already', senderB.email);
  await setState(E.waitingOnBCompleted, { status: 'InProgress', sentAt: thisMonth });
  await inTurn(E.waitingOnBCompleted, 'Completed');

  E.draftA = await mk(A, 'Alpha draft');
  E.draftB = await mk(B, 'Beta draft');

  E.deliveryFailedA = await mk(A, 'Alpha bounced');
  await setState(E.deliveryFailedA, { status: 'DeliveryFailed', sentAt: thisMonth });
  E.deliveryFailedC = await mk(C, 'Gamma bounced');
  await setState(E.deliveryFailedC, { status: 'DeliveryFailed', sentAt: thisMonth });
  E.finalPdfFailedB = await mk(B, 'Beta render failed');
  await setState(E.finalPdfFailedB, { status: 'FinalPdfFailed', sentAt: thisMonth });

  E.expiringA = await mk(A, 'Alpha expires tomorrow');
  await setState(E.expiringA, {
    status: 'Sent',
    sentAt: thisMonth,
    expiresAt: new Date(now.getTime() + DAY),
  });
  E.expiringC = await mk(C, 'Gamma expires in two days');
  await setState(E.expiringC, {
    status: 'Opened',
    sentAt: thisMonth,
    expiresAt: new Date(now.getTime() + 2 * DAY),
  });
  E.expiringLater = await mk(A, 'Alpha expires next week');
  await setState(E.expiringLater, {
    status: 'Sent',
    sentAt: thisMonth,
    expiresAt: new Date(now.getTime() + 7 * DAY),
  });

  // Another organization: sends, a text message and an envelope waiting on Bella's address — never counted.
  E.otherSent = await envelope(otherOrganizationId, otherTemplateId, undefined, 'Elsewhere sent');
  await setState(E.otherSent, { status: 'Completed', sentAt: thisMonth });
  E.otherWaitingOnB = await envelope(
    otherOrganizationId,
    otherTemplateId,
    undefined,
    'Elsewhere',
    senderB.email,
  );
  await setState(E.otherWaitingOnB, {
    status: 'Sent',
    sentAt: thisMonth,
    expiresAt: new Date(now.getTime() + DAY),
  });
  await inTurn(E.otherWaitingOnB);
  await notification(otherOrganizationId, 'Sms', 'sent', thisMonth);

  // Text messages: three sent this month (SMS and WhatsApp); a failed one, an email and last month's are not.
  await notification(organizationId, 'Sms', 'sent', thisMonth);
  await notification(organizationId, 'Sms', 'sent', thisMonth);
  await notification(organizationId, 'WhatsApp', 'sent', thisMonth);
  await notification(organizationId, 'Sms', 'failed', null);
  await notification(organizationId, 'Email', 'sent', thisMonth);
  await notification(organizationId, 'Sms', 'sent', lastMonth);

  // Activity: the newest events are Support's (Bella does not see them) and the other organization's.
  await auditEvent(E.waitingOnB, organizationId, 1, 'envelope.sent', new Date(now.getTime() - 50_000));
  await auditEvent(E.sentA1, organizationId, 1, 'envelope.sent', new Date(now.getTime() - 40_000));
  await auditEvent(E.sentA1, organizationId, 2, 'envelope.completed', new Date(now.getTime() - 30_000));
  await auditEvent(E.sentC, organizationId, 1, 'envelope.sent', new Date(now.getTime() - 20_000));
  await auditEvent(E.otherSent, otherOrganizationId, 1, 'envelope.sent', new Date(now.getTime() - 10_000));
});
afterAll(() => harness?.close());

interface Summary {
  planName: string;
  monthlyDocumentLimit: number | null;
  userLimit: number | null;
  teamLimit: number | null;
  envelopesSentThisPeriod: number;
  remainingEnvelopeQuota: number | null;
  smsCreditsIncluded: number;
  smsCreditsUsedThisPeriod: number;
  remainingSmsCredits: number;
  users: number;
  teams: number;
  period: { start: string; end: string };
  [key: string]: unknown;
}

async function v1Usage(org: string): Promise<LightMyRequestResponse> {
  const client = await createOAuthClient(harness.ctx, {
    organizationId: org,
    name: 'Billing',
    scopes: ['usage.read'],
  });
  const token = await harness.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: 'grant_type=client_credentials',
  });
  return harness.app.inject({
    method: 'GET',
    url: '/api/v1/usage',
    headers: { authorization: `Bearer ${token.json().access_token}` },
  });
}

describe('GET /api/billing/summary', () => {
  it('answers every item of the specification with the figures the organization’s rows give', async () => {
    const [plan] = (await sql(
      `select p.* from plan p join organization o on o.plan_name = p.name where o.id = ?`,
      [organizationId],
    )) as {
      name: string;
      monthly_document_limit: number | null;
      user_limit: number | null;
      team_limit: number | null;
      sms_credits_included: number;
      support_level: string;
      webhook_access: boolean;
    }[];
    if (!plan) throw new Error('no plan');
    const summary = await callAs<Summary>(harness.app, owner, 'GET', '/api/billing/summary');
    // Sent this month: sentA1, sentA2, sentC, waitingOnB, waitingOnBOtherTeam, waitingOnBCompleted,
    // deliveryFailedA, deliveryFailedC, finalPdfFailedB, expiringA, expiringC, expiringLater.
    const sent = 12;
    // Owner, administrator, three senders, the member and the invited user; not the deactivated one.
    const users = 7;
    expect(summary).toEqual({
      planName: 'Business',
      subscriptionStatus: 'active',
      billingMode: 'invoice',
      monthlyDocumentLimit: plan.monthly_document_limit,
      userLimit: plan.user_limit,
      teamLimit: plan.team_limit,
      apiAccess: true,
      webhookAccess: plan.webhook_access,
      supportLevel: plan.support_level,
      period: { start: monthStart.toISOString(), end: nextMonthStart.toISOString() },
      envelopesSentThisPeriod: sent,
      envelopesReserved: 0,
      remainingEnvelopeQuota:
        plan.monthly_document_limit === null ? null : Math.max(0, plan.monthly_document_limit - sent),
      smsCreditsIncluded: plan.sms_credits_included,
      smsCreditsUsedThisPeriod: 3,
      smsCreditsHeld: 0,
      remainingSmsCredits: Math.max(0, plan.sms_credits_included - 3),
      users,
      teams: 2,
    });
  });

  it('moves with the rows: a Starter plan, one more send, a team fewer', async () => {
    await sql(`update organization set plan_name = 'Starter' where id = ?`, [organizationId]);
    const extra = await envelope(organizationId, templateId, undefined, 'One more');
    await setState(extra, { status: 'Completed', sentAt: thisMonth });
    await sql(`update app_user set team_id = null where team_id = ?`, [support]);
    await sql(`update envelope set team_id = null where team_id = ?`, [support]);
    await sql(`delete from team where id = ?`, [support]);
    try {
      const [starter] = (await sql(`select * from plan where name = 'Starter'`)) as {
        monthly_document_limit: number;
        user_limit: number | null;
      }[];
      const summary = await callAs<Summary>(harness.app, owner, 'GET', '/api/billing/summary');
      expect(summary).toMatchObject({
        planName: 'Starter',
        monthlyDocumentLimit: starter?.monthly_document_limit,
        userLimit: starter?.user_limit,
        envelopesSentThisPeriod: 13,
        remainingEnvelopeQuota: Math.max(0, (starter?.monthly_document_limit ?? 0) - 13),
        teams: 1,
      });
    } finally {
      await sql(`update organization set plan_name = 'Business' where id = ?`, [organizationId]);
      await sql(`update envelope set sent_at = ? where id = ?`, [lastMonth, extra]);
      await sql(`insert into team (id, organization_id, name) values (?, ?, 'Support')`, [
        support,
        organizationId,
      ]);
      await sql(`update app_user set team_id = ? where id = ?`, [support, senderC.user.id]);
      await sql(`update envelope set team_id = ? where created_by_user_id = ?`, [support, senderC.user.id]);
    }
  });

  it('gives the same figures as GET /api/v1/usage, whose answer keeps its shape', async () => {
    const summary = await callAs<Summary>(harness.app, owner, 'GET', '/api/billing/summary');
    const usage = expectJson<Record<string, unknown>>(await v1Usage(organizationId));
    const { users, teams, ...planAndQuota } = summary;
    expect(usage).toEqual(planAndQuota);
    expect(Object.keys(usage).sort()).toEqual(
      [
        'planName',
        'subscriptionStatus',
        'billingMode',
        'monthlyDocumentLimit',
        'userLimit',
        'teamLimit',
        'apiAccess',
        'webhookAccess',
        'supportLevel',
        'period',
        'envelopesSentThisPeriod',
        // Added by issue 30 (the v1 contract is additive): what bulk sends and unsent messages hold.
        'envelopesReserved',
        'remainingEnvelopeQuota',
        'smsCreditsIncluded',
        'smsCreditsUsedThisPeriod',
        'smsCreditsHeld',
        'remainingSmsCredits',
      ].sort(),
    );
    expect(users).toBeGreaterThan(0);
    expect(teams).toBe(2);
  });

  it('counts another organization’s own rows only', async () => {
    const summary = await callAs<Summary>(harness.app, stranger, 'GET', '/api/billing/summary');
    expect(summary).toMatchObject({
      envelopesSentThisPeriod: 2,
      smsCreditsUsedThisPeriod: 1,
      users: 1,
      teams: 0,
    });
  });

  it('needs billing:read: an administrator may, a sender and a member get 403, nobody signed in 401', async () => {
    await callAs(harness.app, admin, 'GET', '/api/billing/summary');
    for (const user of [senderA, member]) {
      const refused = await callAs<{ error: { code: string; details: { permission: string }[] } }>(
        harness.app,
        user,
        'GET',
        '/api/billing/summary',
        undefined,
        { status: 403 },
      );
      expect(refused.error.details[0]?.permission).toBe('billing:read');
    }
    const anonymous = await harness.app.inject({ method: 'GET', url: '/api/billing/summary' });
    expect(anonymous.statusCode).toBe(401);
  });
});

interface Section {
  count: number;
  items: { id: string; title: string; status: string; date: string }[];
}
interface DashboardAnswer {
  awaitingSignature: Section | null;
  drafts: Section | null;
  deliveryFailed: Section | null;
  finalPdfFailed: Section | null;
  expiringSoon: Section | null;
  usage: Summary | null;
  recentActivity: { envelopeId: string; type: string; title: string }[] | null;
}

const idsOf = (section: Section | null) => (section ? section.items.map((item) => item.id).sort() : null);
const sorted = (...values: string[]) => [...values].sort();

describe('GET /api/dashboard', () => {
  it('shows a sender what waits on her among the envelopes she sees, and no usage', async () => {
    const board = await callAs<DashboardAnswer>(harness.app, senderB, 'GET', '/api/dashboard');
    expect(board.awaitingSignature?.count).toBe(1);
    expect(board.awaitingSignature?.items).toEqual([
      {
        id: E.waitingOnB,
        title: 'Beta waits on Bella',
        status: 'WaitingForNextSigner',
        date: thisMonth.toISOString(),
      },
    ]);
    expect(board.drafts).toMatchObject({ count: 1 });
    expect(idsOf(board.drafts)).toEqual([E.draftB]);
    expect(board.deliveryFailed).toEqual({ count: 0, items: [] });
    expect(idsOf(board.finalPdfFailed)).toEqual([E.finalPdfFailedB]);
    // Her team's envelope expiring tomorrow; not Support's, not next week's, not another organization's.
    expect(board.expiringSoon?.count).toBe(1);
    expect(board.expiringSoon?.items[0]).toMatchObject({ id: E.expiringA, status: 'Sent' });
    expect(board.usage).toBeNull();
    // Activity of her team's envelopes only, newest first.
    expect(board.recentActivity?.map((event) => [event.envelopeId, event.type])).toEqual([
      [E.sentA1, 'envelope.completed'],
      [E.sentA1, 'envelope.sent'],
      [E.waitingOnB, 'envelope.sent'],
    ]);
  });

  it('shows another sender his own drafts and failures', async () => {
    const board = await callAs<DashboardAnswer>(harness.app, senderA, 'GET', '/api/dashboard');
    expect(board.awaitingSignature).toEqual({ count: 0, items: [] });
    expect(idsOf(board.drafts)).toEqual([E.draftA]);
    expect(idsOf(board.deliveryFailed)).toEqual([E.deliveryFailedA]);
    expect(board.finalPdfFailed).toEqual({ count: 0, items: [] });
    const support = await callAs<DashboardAnswer>(harness.app, senderC, 'GET', '/api/dashboard');
    expect(idsOf(support.deliveryFailed)).toEqual([E.deliveryFailedC]);
    expect(idsOf(support.expiringSoon)).toEqual([E.expiringC]);
    expect(idsOf(support.awaitingSignature)).toEqual([]);
  });

  it('shows the owner every envelope’s deadlines and activity, their own drafts, and the usage', async () => {
    const board = await callAs<DashboardAnswer>(harness.app, owner, 'GET', '/api/dashboard');
    expect(board.expiringSoon?.count).toBe(2);
    // Soonest first.
    expect(board.expiringSoon?.items.map((item) => item.id)).toEqual([E.expiringA, E.expiringC]);
    expect(board.expiringSoon?.items[0]?.date).toBe(new Date(now.getTime() + DAY).toISOString());
    expect(board.drafts).toEqual({ count: 0, items: [] });
    // "Action needed"'s rule: failures wait on their sender, not on the owner.
    expect(board.deliveryFailed?.count).toBe(0);
    expect(board.awaitingSignature?.count).toBe(0);
    expect(board.recentActivity?.map((event) => event.envelopeId)).toEqual([
      E.sentC,
      E.sentA1,
      E.sentA1,
      E.waitingOnB,
    ]);
    const summary = await callAs<Summary>(harness.app, owner, 'GET', '/api/billing/summary');
    expect(board.usage).toEqual(summary);
  });

  it('shows a read-only member the envelopes of her team that wait, but no drafts, failures or usage', async () => {
    const board = await callAs<DashboardAnswer>(harness.app, member, 'GET', '/api/dashboard');
    expect(board.drafts).toBeNull();
    expect(board.deliveryFailed).toBeNull();
    expect(board.finalPdfFailed).toBeNull();
    expect(board.usage).toBeNull();
    expect(idsOf(board.expiringSoon)).toEqual([E.expiringA]);
    expect(board.awaitingSignature).toEqual({ count: 0, items: [] });
  });

  it('never counts another organization’s envelopes, and counts the other organization’s for its owner', async () => {
    const board = await callAs<DashboardAnswer>(harness.app, stranger, 'GET', '/api/dashboard');
    expect(idsOf(board.expiringSoon)).toEqual([E.otherWaitingOnB]);
    expect(board.recentActivity?.map((event) => event.envelopeId)).toEqual([E.otherSent]);
    expect(board.usage?.envelopesSentThisPeriod).toBe(2);
    // Bella's address is waited on in the other organization too: only her own organization's counts for her.
    const bella = await callAs<DashboardAnswer>(harness.app, senderB, 'GET', '/api/dashboard');
    expect(idsOf(bella.awaitingSignature)).toEqual(sorted(E.waitingOnB));
  });

  it('lists at most five items while counting them all', async () => {
    const more: string[] = [];
    for (let index = 0; index < 6; index += 1) {
      more.push(
        await envelope(
          organizationId,
          templateId,
          { userId: senderB.user.id, teamId: sales },
          `Draft ${index}`,
        ),
      );
    }
    try {
      const board = await callAs<DashboardAnswer>(harness.app, senderB, 'GET', '/api/dashboard');
      expect(board.drafts?.count).toBe(7);
      expect(board.drafts?.items).toHaveLength(5);
      // Newest first.
      expect(board.drafts?.items[0]?.id).toBe(more[5]);
    } finally {
      await sql(`delete from envelope where id in (${more.map(() => '?').join(', ')})`, more);
    }
  });

  it('needs a session', async () => {
    const anonymous = await harness.app.inject({ method: 'GET', url: '/api/dashboard' });
    expect(anonymous.statusCode).toBe(401);
  });
});

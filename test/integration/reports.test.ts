// The reports (docs/reports.md) through HTTP on real PostgreSQL: GET /api/reports/summary. One organization with an
// owner, senders in two teams and one without a team, a read-only member, two templates, and envelopes seeded by
// SQL with known statuses, send and completion times, senders, teams, templates and ending events (declines with
// reasons, a cancellation, an expiry, an expiry that was extended, a delivery failure), archived and deleted
// ones, and SMS/WhatsApp and failed messages; another organization with the same kinds of rows. The test computes
// every figure itself from the seed (counts, rate, median and 90th percentile, breakdowns, reasons, the days in
// Asia/Jerusalem) and compares with the route's answer for each viewer; then the scope rule, another
// organization's rows, bad input (400 naming the field) and reports:read (403, 401).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppUser } from '../../db/entities/index.ts';
import type { ReportSummary } from '../../domain/report.ts';
import type { TemplateDefinition } from '../../domain/template.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { callAs, expectJson } from '../support/app-requests.ts';
import { createOrganizationWithTemplate } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let organizationId: string;
let otherOrganizationId: string;
const users = {} as Record<
  'owner' | 'A' | 'B' | 'C' | 'D' | 'member' | 'stranger' | 'noReports',
  SignedInUser
>;
const teams = {} as Record<'sales' | 'support', string>;
const templates = {} as Record<'T1' | 'T2' | 'other', { id: string; name: string }>;

const TIME_ZONE = 'Asia/Jerusalem';
// March 2025 in Jerusalem: from local midnight (UTC+2) to local midnight of April 1st (UTC+3, summer time began
// on March 28th).
const FROM = '2025-02-28T22:00:00.000Z';
const TO = '2025-03-31T21:00:00.000Z';
const RANGE = `from=${encodeURIComponent('2025-03-01T00:00:00+02:00')}&to=${encodeURIComponent('2025-04-01T00:00:00+03:00')}&timeZone=${encodeURIComponent(TIME_ZONE)}`;

type Who = 'A' | 'B' | 'C' | 'D' | 'api';
type Tpl = 'T1' | 'T2' | null;

interface SeedEvent {
  type: 'recipient.declined' | 'envelope.cancelled' | 'envelope.expired' | 'envelope.delivery_failed';
  at: string;
  reason?: string;
}

interface SeedEnvelope {
  key: string;
  org?: 'other';
  sender: Who;
  /** The team recorded on the envelope; absent: the sender's team. */
  team?: 'sales' | 'support' | null;
  template: Tpl;
  status: string;
  previous?: string;
  sentAt: string | null;
  completedAt?: string;
  events?: SeedEvent[];
  id?: string;
}

const TEAM_OF: Record<Who, 'sales' | 'support' | null> = {
  A: 'sales',
  B: 'sales',
  C: 'support',
  D: null,
  api: null,
};

const SEED: SeedEnvelope[] = [
  {
    key: 'e1',
    sender: 'A',
    template: 'T1',
    status: 'Completed',
    sentAt: '2025-03-02T10:00:00Z',
    completedAt: '2025-03-02T12:00:00Z',
  },
  {
    key: 'e2',
    sender: 'A',
    template: 'T1',
    status: 'Completed',
    sentAt: '2025-03-05T09:00:00Z',
    completedAt: '2025-03-08T09:00:00Z',
  },
  // Sent before the range, completed in it.
  {
    key: 'e3',
    sender: 'B',
    template: 'T2',
    status: 'Completed',
    sentAt: '2025-02-20T08:00:00Z',
    completedAt: '2025-03-01T01:00:00Z',
  },
  {
    key: 'e4',
    sender: 'B',
    template: 'T1',
    status: 'Declined',
    sentAt: '2025-03-10T08:00:00Z',
    events: [{ type: 'recipient.declined', at: '2025-03-11T08:00:00Z', reason: 'Price too high' }],
  },
  {
    key: 'e5',
    sender: 'C',
    template: 'T2',
    status: 'Declined',
    sentAt: '2025-03-12T08:00:00Z',
    events: [{ type: 'recipient.declined', at: '2025-03-12T15:00:00Z', reason: '  Price too high ' }],
  },
  {
    key: 'e6',
    sender: 'C',
    template: 'T1',
    status: 'Declined',
    sentAt: '2025-03-15T08:00:00Z',
    events: [{ type: 'recipient.declined', at: '2025-03-20T08:00:00Z', reason: 'Wrong name' }],
  },
  {
    key: 'e7',
    sender: 'A',
    template: null,
    status: 'Cancelled',
    sentAt: '2025-03-03T08:00:00Z',
    events: [{ type: 'envelope.cancelled', at: '2025-03-04T08:00:00Z' }],
  },
  // The public API's: no sender, no team. Sent before the range, expired in it.
  {
    key: 'e8',
    sender: 'api',
    template: 'T1',
    status: 'Expired',
    sentAt: '2025-02-01T08:00:00Z',
    events: [{ type: 'envelope.expired', at: '2025-03-06T08:00:00Z' }],
  },
  // Expired, then extended within the grace window: being signed again, so not counted as expired.
  {
    key: 'e9',
    sender: 'B',
    template: 'T1',
    status: 'Sent',
    sentAt: '2025-03-07T08:00:00Z',
    events: [{ type: 'envelope.expired', at: '2025-03-09T08:00:00Z' }],
  },
  { key: 'e10', sender: 'A', template: 'T2', status: 'InProgress', sentAt: '2025-03-25T08:00:00Z' },
  {
    key: 'e11',
    sender: 'C',
    template: 'T2',
    status: 'DeliveryFailed',
    sentAt: '2025-03-26T08:00:00Z',
    events: [{ type: 'envelope.delivery_failed', at: '2025-03-26T08:05:00Z' }],
  },
  // Archived after completing: counted as Completed. Sent at 01:30 on March 29th in Jerusalem (UTC+3).
  {
    key: 'e12',
    sender: 'A',
    template: 'T1',
    status: 'Archived',
    previous: 'Completed',
    sentAt: '2025-03-28T22:30:00Z',
    completedAt: '2025-03-30T10:00:00Z',
  },
  // Deleted: nobody's.
  {
    key: 'e13',
    sender: 'B',
    template: 'T1',
    status: 'Deleted',
    previous: 'Completed',
    sentAt: '2025-03-05T08:00:00Z',
    completedAt: '2025-03-06T08:00:00Z',
  },
  // After the range (sent at 01:00 on April 1st in Jerusalem).
  {
    key: 'e14',
    sender: 'A',
    template: 'T1',
    status: 'Completed',
    sentAt: '2025-03-31T22:00:00Z',
    completedAt: '2025-04-02T08:00:00Z',
  },
  // Exactly at `from`: in; exactly at `to`: out.
  { key: 'e15', sender: 'B', template: 'T2', status: 'Opened', sentAt: FROM },
  { key: 'e16', sender: 'C', template: 'T1', status: 'Sent', sentAt: TO },
  // Created by A before joining Sales: A's own, not the team's.
  {
    key: 'e17',
    sender: 'A',
    team: null,
    template: 'T1',
    status: 'Completed',
    sentAt: '2025-03-18T08:00:00Z',
    completedAt: '2025-03-19T20:00:00Z',
  },
  { key: 'e19', sender: 'A', template: 'T1', status: 'Draft', sentAt: null },
  {
    key: 'e20',
    sender: 'C',
    template: 'T1',
    status: 'Archived',
    previous: 'Declined',
    sentAt: '2025-03-13T08:00:00Z',
    events: [{ type: 'recipient.declined', at: '2025-03-14T08:00:00Z', reason: 'Wrong name' }],
  },
  // Declined before the range.
  {
    key: 'e21',
    sender: 'A',
    template: 'T1',
    status: 'Declined',
    sentAt: '2025-02-10T08:00:00Z',
    events: [{ type: 'recipient.declined', at: '2025-02-15T08:00:00Z', reason: 'Old reason' }],
  },
  // D has no team.
  {
    key: 'e22',
    sender: 'D',
    template: 'T2',
    status: 'Completed',
    sentAt: '2025-03-20T08:00:00Z',
    completedAt: '2025-03-21T14:30:00Z',
  },
  // Another organization's: never counted here.
  {
    key: 'o1',
    org: 'other',
    sender: 'api',
    template: null,
    status: 'Completed',
    sentAt: '2025-03-02T08:00:00Z',
    completedAt: '2025-03-03T08:00:00Z',
  },
  {
    key: 'o2',
    org: 'other',
    sender: 'api',
    template: null,
    status: 'Declined',
    sentAt: '2025-03-02T08:00:00Z',
    events: [{ type: 'recipient.declined', at: '2025-03-04T08:00:00Z', reason: 'Other organization' }],
  },
];

interface SeedMessage {
  org?: 'other';
  envelope: string | null;
  channel: 'Sms' | 'WhatsApp' | 'Email';
  status: 'sent' | 'failed';
  at: string;
}

const MESSAGES: SeedMessage[] = [
  { envelope: 'e1', channel: 'Sms', status: 'sent', at: '2025-03-02T10:01:00Z' },
  { envelope: 'e11', channel: 'WhatsApp', status: 'sent', at: '2025-03-26T08:01:00Z' },
  { envelope: null, channel: 'Sms', status: 'sent', at: '2025-03-15T08:00:00Z' },
  { envelope: 'e1', channel: 'Email', status: 'sent', at: '2025-03-02T10:01:00Z' },
  { envelope: 'e4', channel: 'Sms', status: 'sent', at: '2025-02-20T08:00:00Z' },
  { envelope: 'e4', channel: 'Sms', status: 'failed', at: '2025-03-10T08:01:00Z' },
  { envelope: 'e11', channel: 'Email', status: 'failed', at: '2025-03-26T08:04:00Z' },
  { envelope: 'e7', channel: 'Email', status: 'failed', at: '2025-02-26T08:04:00Z' },
  { org: 'other', envelope: 'o1', channel: 'Sms', status: 'sent', at: '2025-03-02T08:01:00Z' },
  { org: 'other', envelope: 'o1', channel: 'Email', status: 'failed', at: '2025-03-02T08:01:00Z' },
];

function sql(statement: string, params: unknown[] = []) {
  return harness.ctx.orm.em.fork().execute(statement, params);
}

// ---- The figures, computed here from the seed by the definitions of docs/reports.md ----

type Viewer = 'owner' | 'A' | 'C' | 'D' | 'member';
const VIEWER: Record<Viewer, { readsAll: boolean; user: Who | null; team: 'sales' | 'support' | null }> = {
  owner: { readsAll: true, user: null, team: null },
  A: { readsAll: false, user: 'A', team: 'sales' },
  C: { readsAll: false, user: 'C', team: 'support' },
  D: { readsAll: false, user: 'D', team: null },
  member: { readsAll: false, user: null, team: 'sales' },
};

const teamOf = (e: SeedEnvelope) => (e.team === undefined ? TEAM_OF[e.sender] : e.team);
const statusOf = (e: SeedEnvelope) => (e.status === 'Archived' ? (e.previous as string) : e.status);
const inRange = (at: string | null | undefined) =>
  at != null && Date.parse(at) >= Date.parse(FROM) && Date.parse(at) < Date.parse(TO);

function visibleEnvelopes(viewer: Viewer): SeedEnvelope[] {
  const v = VIEWER[viewer];
  return SEED.filter(
    (e) =>
      !e.org &&
      e.status !== 'Deleted' &&
      (v.readsAll || (v.user !== null && e.sender === v.user) || (v.team !== null && teamOf(e) === v.team)),
  );
}

function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const position = p * (sorted.length - 1);
  const low = Math.floor(position);
  const high = Math.ceil(position);
  const [a, b] = [sorted[low] as number, sorted[high] as number];
  return a + (b - a) * (position - low);
}

const ENDINGS = {
  declined: ['recipient.declined', 'Declined'],
  cancelled: ['envelope.cancelled', 'Cancelled'],
  expired: ['envelope.expired', 'Expired'],
} as const;

function figures(envelopes: SeedEnvelope[]) {
  const sent = envelopes.filter((e) => inRange(e.sentAt));
  const completed = envelopes.filter((e) => inRange(e.completedAt));
  const ended = (kind: keyof typeof ENDINGS) =>
    envelopes.filter(
      (e) =>
        statusOf(e) === ENDINGS[kind][1] &&
        (e.events ?? []).some((event) => event.type === ENDINGS[kind][0] && inRange(event.at)),
    ).length;
  const times = completed.map(
    (e) => (Date.parse(e.completedAt as string) - Date.parse(e.sentAt as string)) / 1000,
  );
  const sentAndCompleted = sent.filter((e) => statusOf(e) === 'Completed').length;
  const unfinished = [
    'Sent',
    'Opened',
    'InProgress',
    'WaitingForNextSigner',
    'DeliveryFailed',
    'ProcessingFinalPdf',
    'FinalPdfFailed',
  ];
  return {
    sent: sent.length,
    completed: completed.length,
    declined: ended('declined'),
    cancelled: ended('cancelled'),
    expired: ended('expired'),
    inProgress: sent.filter((e) => unfinished.includes(statusOf(e))).length,
    sentAndCompleted,
    completionRate: sent.length === 0 ? null : sentAndCompleted / sent.length,
    medianSecondsToComplete: percentile(times, 0.5),
    p90SecondsToComplete: percentile(times, 0.9),
  };
}

const involved = (envelopes: SeedEnvelope[]) =>
  envelopes.filter(
    (e) =>
      inRange(e.sentAt) ||
      inRange(e.completedAt) ||
      (e.events ?? []).some(
        (event) =>
          inRange(event.at) &&
          (event.type === 'envelope.delivery_failed' ||
            statusOf(e) ===
              ENDINGS[
                event.type === 'recipient.declined'
                  ? 'declined'
                  : event.type === 'envelope.cancelled'
                    ? 'cancelled'
                    : 'expired'
              ][1]),
      ),
  );

function localDay(at: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(at));
}

function expected(viewer: Viewer) {
  const visible = visibleEnvelopes(viewer);
  const keys = new Set(visible.map((e) => e.key));
  const v = VIEWER[viewer];
  const messages = MESSAGES.filter(
    (m) => !m.org && (v.readsAll || (m.envelope !== null && keys.has(m.envelope))),
  );
  const group = <K>(keyOf: (e: SeedEnvelope) => K) => {
    const groups = new Map<K, SeedEnvelope[]>();
    for (const e of involved(visible)) groups.set(keyOf(e), [...(groups.get(keyOf(e)) ?? []), e]);
    return [...groups].map(([key, envelopes]) => ({ key, ...figures(envelopes) }));
  };
  const reasons = new Map<string, { count: number; last: string }>();
  for (const e of visible)
    for (const event of e.events ?? [])
      if (event.type === 'recipient.declined' && inRange(event.at)) {
        const reason = (event.reason ?? '').trim();
        const seen = reasons.get(reason);
        reasons.set(reason, {
          count: (seen?.count ?? 0) + 1,
          last: seen && seen.last > event.at ? seen.last : event.at,
        });
      }
  const days = Array.from({ length: 31 }, (_, i) => `2025-03-${String(i + 1).padStart(2, '0')}`);
  return {
    totals: {
      ...figures(visible),
      deliveryFailures: visible.filter((e) =>
        (e.events ?? []).some((event) => event.type === 'envelope.delivery_failed' && inRange(event.at)),
      ).length,
      failedMessages: messages.filter((m) => m.status === 'failed' && inRange(m.at)).length,
      smsCreditsUsed: messages.filter((m) => m.status === 'sent' && m.channel !== 'Email' && inRange(m.at))
        .length,
    },
    bySender: group((e) => e.sender),
    byTeam: group(teamOf),
    byTemplate: group((e) => e.template),
    declineReasons: [...reasons]
      .map(([reason, { count, last }]) => ({ reason, count, lastDeclinedAt: new Date(last).toISOString() }))
      .sort((a, b) => b.count - a.count || b.lastDeclinedAt.localeCompare(a.lastDeclinedAt)),
    daily: days.map((date) => ({
      date,
      sent: visible.filter((e) => inRange(e.sentAt) && localDay(e.sentAt as string) === date).length,
      completed: visible.filter((e) => inRange(e.completedAt) && localDay(e.completedAt as string) === date)
        .length,
    })),
  };
}

const close = (value: number | null) => (value === null ? null : expect.closeTo(value, 6));
const approx = <T extends Record<string, unknown>>(row: T) => ({
  ...row,
  completionRate: close(row.completionRate as number | null),
  medianSecondsToComplete: close(row.medianSecondsToComplete as number | null),
  p90SecondsToComplete: close(row.p90SecondsToComplete as number | null),
});

const userIdOf = (who: Who) => (who === 'api' ? null : users[who].user.id);
const teamIdOf = (team: 'sales' | 'support' | null) => (team ? teams[team] : null);

async function report(viewer: Viewer | 'stranger'): Promise<ReportSummary> {
  return await callAs<ReportSummary>(harness.app, users[viewer], 'GET', `/api/reports/summary?${RANGE}`);
}

beforeAll(async () => {
  harness = await openApiHarness();
  const made = await createOrganizationWithTemplate(harness.ctx);
  organizationId = made.organization.id;
  templates.T1 = { id: made.template.id, name: 'Demo services agreement' };
  const nda = await createTemplate(harness.ctx, {
    organizationId,
    pdf: await buildDemoPdf(),
    filename: 'nda.pdf',
    definition: { ...(DEMO_TEMPLATE_DEFINITION as unknown as TemplateDefinition), name: 'Mutual NDA' },
    publish: true,
  });
  templates.T2 = { id: nda.id, name: 'Mutual NDA' };
  const other = await createOrganizationWithTemplate(harness.ctx);
  otherOrganizationId = other.organization.id;
  templates.other = { id: other.template.id, name: 'Other' };

  users.owner = await signedInUser(harness, { role: 'owner', organizationId, fullName: 'Olivia Owner' });
  const team = async (name: string) =>
    expectJson<{ id: string }>(
      await harness.app.inject({
        method: 'POST',
        url: '/api/teams',
        headers: users.owner.headers,
        payload: { name },
      }),
    ).id;
  teams.sales = await team('Sales');
  teams.support = await team('Support');
  const user = async (role: string, fullName: string, teamId: string | null) => {
    const signed = await signedInUser(harness, { role, organizationId, fullName });
    if (teamId) await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: signed.user.id }, { teamId });
    return signed;
  };
  users.A = await user('sender', 'Avi Sender', teams.sales);
  users.B = await user('sender', 'Bella Sender', teams.sales);
  users.C = await user('sender', 'Carmel Sender', teams.support);
  users.D = await user('sender', 'Dor Loner', null);
  users.member = await user('member', 'Mor Member', teams.sales);
  const role = expectJson<{ id: string }>(
    await harness.app.inject({
      method: 'POST',
      url: '/api/roles',
      headers: users.owner.headers,
      payload: { name: 'Documents only', permissions: ['documents:read', 'documents:read_all'] },
    }),
  );
  users.noReports = await user(role.id, 'Nir NoReports', teams.sales);
  users.stranger = await signedInUser(harness, {
    role: 'owner',
    organizationId: otherOrganizationId,
    fullName: 'Someone Else',
  });

  for (const e of SEED) {
    e.id = randomUUID();
    const org = e.org ? otherOrganizationId : organizationId;
    await sql(
      `insert into envelope (id, organization_id, template_id, title, workflow_type, status, previous_status,
                             sent_at, completed_at, created_by_user_id, team_id, created_at)
       values (?, ?, ?, ?, 'Parallel', ?, ?, ?, ?, ?, ?, ?)`,
      [
        e.id,
        org,
        e.template ? templates[e.template].id : null,
        `Report ${e.key}`,
        e.status,
        e.previous ?? null,
        e.sentAt,
        e.completedAt ?? null,
        e.org ? null : userIdOf(e.sender),
        e.org ? null : teamIdOf(teamOf(e)),
        e.sentAt ?? '2025-03-01T00:00:00Z',
      ],
    );
    let sequence = 1;
    for (const event of e.events ?? []) {
      await sql(
        `insert into audit_event (id, envelope_id, organization_id, sequence, type, data, occurred_at)
         values (?, ?, ?, ?, ?, ?::jsonb, ?)`,
        [
          randomUUID(),
          e.id,
          org,
          sequence++,
          event.type,
          JSON.stringify(event.reason ? { reason: event.reason } : {}),
          event.at,
        ],
      );
    }
  }
  const idOf = (key: string) => SEED.find((e) => e.key === key)?.id ?? null;
  for (const m of MESSAGES) {
    await sql(
      `insert into notification (id, organization_id, envelope_id, kind, channel, to_address, language, provider,
                                 status, attempts, created_at, last_attempt_at, sent_at)
       values (?, ?, ?, 'invitation', ?, '+972500000000', 'en', 'dev-capture', ?, 1, ?, ?, ?)`,
      [
        randomUUID(),
        m.org ? otherOrganizationId : organizationId,
        m.envelope ? idOf(m.envelope) : null,
        m.channel,
        m.status,
        m.at,
        m.at,
        m.status === 'sent' ? m.at : null,
      ],
    );
  }
});

afterAll(async () => {
  await harness?.close();
});

describe('GET /api/reports/summary', () => {
  it.each(['owner', 'A', 'C', 'D', 'member'] as const)('answers the seeded figures to %s', async (viewer) => {
    const answer = await report(viewer);
    const want = expected(viewer);
    expect(answer.from).toBe(FROM);
    expect(answer.to).toBe(TO);
    expect(answer.timeZone).toBe(TIME_ZONE);
    expect(answer.scope).toBe(viewer === 'owner' ? 'organization' : viewer === 'D' ? 'own' : 'team');
    expect(answer.totals).toEqual(approx(want.totals));
    expect(answer.daily).toEqual(want.daily);
    expect(answer.declineReasons).toEqual(want.declineReasons);

    const sorted = <T extends { sent: number; completed: number; declined: number }>(rows: T[]) =>
      [...rows].sort((a, b) => b.sent - a.sent || b.completed - a.completed || b.declined - a.declined);
    const key = (row: { key: unknown }) => String(row.key);
    expect(new Set(answer.bySender.map((r) => String(r.userId)))).toEqual(
      new Set(want.bySender.map((r) => String(userIdOf(r.key)))),
    );
    for (const row of want.bySender) {
      const { key: who, ...figures } = row;
      const got = answer.bySender.find((r) => r.userId === userIdOf(who));
      expect(got, key(row)).toEqual({
        ...approx(figures),
        userId: userIdOf(who),
        name: who === 'api' ? null : users[who].user.fullName,
        email: who === 'api' ? null : users[who].email,
      });
    }
    expect(answer.byTeam).toHaveLength(want.byTeam.length);
    for (const row of want.byTeam) {
      const { key: team, ...figures } = row;
      const got = answer.byTeam.find((r) => r.teamId === teamIdOf(team));
      expect(got, key(row)).toEqual({
        ...approx(figures),
        teamId: teamIdOf(team),
        name: team === 'sales' ? 'Sales' : team === 'support' ? 'Support' : null,
      });
    }
    expect(answer.byTemplate).toHaveLength(want.byTemplate.length);
    for (const row of want.byTemplate) {
      const { key: template, ...figures } = row;
      const got = answer.byTemplate.find((r) => r.templateId === (template ? templates[template].id : null));
      expect(got, key(row)).toEqual({
        ...approx(figures),
        templateId: template ? templates[template].id : null,
        name: template ? templates[template].name : null,
      });
    }
    // The most sent first.
    expect(answer.bySender.map((r) => r.sent)).toEqual(sorted(answer.bySender).map((r) => r.sent));
  });

  it('counts what the seed says for the organization, spelled out', async () => {
    const { totals, declineReasons, daily } = await report('owner');
    // e1, e2, e4, e5, e6, e7, e9, e10, e11, e12, e15, e17, e20, e22 (not e13 deleted, e14/e16 after, e3/e8 before).
    expect(totals.sent).toBe(14);
    // e1, e2, e3, e12, e17, e22.
    expect(totals.completed).toBe(6);
    expect(totals.declined).toBe(4);
    expect(totals.cancelled).toBe(1);
    // e8, not e9 (extended since).
    expect(totals.expired).toBe(1);
    // e9, e10, e11, e15.
    expect(totals.inProgress).toBe(4);
    expect(totals.sentAndCompleted).toBe(5);
    expect(totals.completionRate).toBeCloseTo(5 / 14, 10);
    // 2h, 3d, 8d17h (e3), 1d11.5h (e12), 1d12h (e17), 1d6.5h (e22): median of the six is between 1d11.5h and 1d12h.
    expect(totals.medianSecondsToComplete).toBeCloseTo((127_800 + 129_600) / 2, 6);
    expect(totals.deliveryFailures).toBe(1);
    expect(totals.failedMessages).toBe(2);
    expect(totals.smsCreditsUsed).toBe(3);
    expect(declineReasons).toEqual([
      // Two each: the more recent first.
      { reason: 'Wrong name', count: 2, lastDeclinedAt: '2025-03-20T08:00:00.000Z' },
      { reason: 'Price too high', count: 2, lastDeclinedAt: '2025-03-12T15:00:00.000Z' },
    ]);
    expect(declineReasons.map((r) => r.reason)).not.toContain('Old reason');
    // e12 was sent at 01:30 on the 29th in Jerusalem; e15 at midnight on the 1st.
    expect(daily.find((d) => d.date === '2025-03-29')?.sent).toBe(1);
    expect(daily[0]).toMatchObject({ date: '2025-03-01', sent: 1, completed: 1 });
    expect(daily).toHaveLength(31);
  });

  it('shows a user their own and their team’s envelopes only', async () => {
    const a = await report('A');
    // Avi sees e17 (his own, made without a team) but Bella does not.
    expect(a.bySender.map((r) => r.userId)).not.toContain(users.C.user.id);
    expect(a.bySender.map((r) => r.userId)).not.toContain(null);
    const b = await callAs<ReportSummary>(harness.app, users.B, 'GET', `/api/reports/summary?${RANGE}`);
    expect(b.totals.completed).toBe(a.totals.completed - 1);
    const d = await report('D');
    expect(d.totals).toMatchObject({ sent: 1, completed: 1, declined: 0, smsCreditsUsed: 0 });
    expect(d.scope).toBe('own');
  });

  it('never counts another organization’s envelopes', async () => {
    const mine = await report('owner');
    expect(mine.declineReasons.map((r) => r.reason)).not.toContain('Other organization');
    const theirs = await report('stranger');
    expect(theirs.totals).toMatchObject({
      sent: 2,
      completed: 1,
      declined: 1,
      smsCreditsUsed: 1,
      failedMessages: 1,
    });
    expect(theirs.declineReasons).toEqual([
      { reason: 'Other organization', count: 1, lastDeclinedAt: '2025-03-04T08:00:00.000Z' },
    ]);
    expect(theirs.bySender).toEqual([expect.objectContaining({ userId: null, name: null, sent: 2 })]);
  });

  it('defaults to UTC days and answers an empty range with zeros', async () => {
    const answer = await callAs<ReportSummary>(
      harness.app,
      users.owner,
      'GET',
      '/api/reports/summary?from=2020-01-01T00:00:00Z&to=2020-01-03T00:00:00Z',
    );
    expect(answer.timeZone).toBe('UTC');
    expect(answer.daily).toEqual([
      { date: '2020-01-01', sent: 0, completed: 0 },
      { date: '2020-01-02', sent: 0, completed: 0 },
    ]);
    expect(answer.totals).toMatchObject({
      sent: 0,
      completed: 0,
      completionRate: null,
      medianSecondsToComplete: null,
    });
    expect(answer.bySender).toEqual([]);
    expect(answer.declineReasons).toEqual([]);
  });

  it.each([
    ['', 'querystring.from'],
    ['to=2025-02-01T00:00:00Z', 'querystring.from'],
    ['from=2025-01-01T00:00:00Z', 'querystring.to'],
    ['from=yesterday&to=2025-02-01T00:00:00Z', 'querystring.from'],
    ['from=2025-01-01T00:00:00Z&to=2025-13-01', 'querystring.to'],
    ['from=2025-02-01T00:00:00Z&to=2025-02-01T00:00:00Z', 'querystring.to'],
    ['from=2025-03-01T00:00:00Z&to=2025-02-01T00:00:00Z', 'querystring.to'],
    ['from=2024-01-01T00:00:00Z&to=2025-01-02T00:00:01Z', 'querystring.to'],
    ['from=2025-01-01T00:00:00Z&to=2025-02-01T00:00:00Z&timeZone=Mars%2FOlympus', 'querystring.timeZone'],
    ['from=1969-12-31T00:00:00Z&to=1970-01-02T00:00:00Z', 'querystring.from'],
    ['from=9998-12-31T00:00:00Z&to=9999-12-31T23:59:59Z', 'querystring.to'],
  ])('refuses %s with 400 naming %s', async (query, field) => {
    const body = await callAs<{
      error: { code: string; message: string; details: { field: string }[]; request_id: string };
    }>(harness.app, users.owner, 'GET', `/api/reports/summary?${query}`, undefined, { status: 400 });
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details.map((d) => d.field)).toContain(field);
    expect(body.error.message).toContain(field);
    expect(typeof body.error.request_id).toBe('string');
  });

  it('accepts a range of exactly 366 days', async () => {
    await callAs(
      harness.app,
      users.owner,
      'GET',
      '/api/reports/summary?from=2024-01-01T00:00:00Z&to=2025-01-01T00:00:00Z',
    );
  });

  it('needs reports:read (403 in the error body) and a session (401)', async () => {
    const refused = await callAs<{ error: { code: string; details: { permission?: string }[] } }>(
      harness.app,
      users.noReports,
      'GET',
      `/api/reports/summary?${RANGE}`,
      undefined,
      { status: 403 },
    );
    expect(refused.error.code).toBe('forbidden');
    expect(refused.error.details).toEqual([expect.objectContaining({ permission: 'reports:read' })]);
    await callAs(harness.app, null, 'GET', `/api/reports/summary?${RANGE}`, undefined, { status: 401 });
  });
});

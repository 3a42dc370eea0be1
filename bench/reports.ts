// `npm run bench:reports`: the business app's reports summary and dashboard (docs/reports.md, docs/billing.md;
// issue 16) with 100,000 envelopes and 1,000,000 audit events in one organization, through HTTP to the API app
// in production configuration, on real PostgreSQL.
// 1. Seeds the documents benchmark's organization (bench/seed-documents.ts: BENCH_ENVELOPES envelopes, default
//    100,000, over the last year in every status, five senders in two teams and the public API, four
//    templates; and a second organization), then with SQL: BENCH_AUDIT_EVENTS audit events (default 1,000,000,
//    spread over the organization's envelopes as their lifecycles would write them: created, sent, opened,
//    authentication, completed, declined with a reason, cancelled, expired, delivery failures, final PDF) and
//    the messages sent (an invitation per recipient of a sent envelope, a share of them by SMS or WhatsApp, a
//    few failed). VACUUM ANALYZE.
// 2. Measures GET /api/dashboard and GET /api/reports/summary (the last 30 days, this year, the whole year
//    back) as the owner (documents:read_all: the organization's figures) and as a sender (their own and their
//    team's), each BENCH_REQUESTS times (default 100; fewer when a route has used BENCH_ROUTE_SECONDS, default
//    15) after BENCH_WARMUP (default 5): p50, p99, requests per second, and the ratio to GET /api/plans (no
//    session) measured in the same run.
// 3. Prints EXPLAIN (ANALYZE, BUFFERS) of every statement each route sent (caught from MikroORM's query log):
//    execution time, buffers, the indexes read and the sequential scans.
// Prints tables; asserts nothing.
import { cpus, loadavg, totalmem } from 'node:os';
import type pg from 'pg';
import {
  type Explained,
  explain,
  type Measured,
  measure as measureRoute,
  queryCatcher,
  timingTable,
} from './route-timing.ts';
import { thousands, withDocumentsBench } from './seed-documents.ts';

const whole = (name: string, fallback: number) => {
  const given = process.env[name];
  const value = Number(given ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1: ${given}`);
  return value;
};
const ENVELOPES = whole('BENCH_ENVELOPES', 100_000);
const AUDIT_EVENTS = whole('BENCH_AUDIT_EVENTS', 1_000_000);
const OTHER_ENVELOPES = whole('BENCH_OTHER_ENVELOPES', 2_000);
const timing = {
  requests: whole('BENCH_REQUESTS', 100),
  warmup: Number(process.env.BENCH_WARMUP ?? 5),
  concurrency: whole('BENCH_CONCURRENCY', 1),
  routeSeconds: whole('BENCH_ROUTE_SECONDS', 15),
  say: (line: string) => process.stdout.write(`[bench] ${line}\n`),
};
const { say } = timing;
const out = (line = '') => process.stdout.write(`${line}\n`);
/** Envelopes whose audit events one insert statement writes. */
const CHUNK = 10_000;

const DECLINE_REASONS = [
  'The price is not what we agreed',
  'Wrong company name on page 2',
  'We found another supplier',
  'The start date must move to next month',
  'Legal has not approved this version',
  'Please send it to our CFO instead',
];

/**
 * The organization's audit events, exactly `total` of them (at least one per envelope): a draft gets its
 * creation; every other envelope its lifecycle's events (created, sent, per recipient opened / verified /
 * completed, then how it ended) and, to reach the total, as many reminders-like "opened" events again as its
 * share allows — the shares of the envelopes that are not drafts differ by at most one. One statement per CHUNK
 * envelopes.
 */
async function seedAuditEvents(db: pg.Client, organizationId: string, total: number): Promise<number> {
  const started = performance.now();
  const { rows } = await db.query('select count(*)::int as n from envelope where organization_id = $1', [
    organizationId,
  ]);
  const envelopes = (rows[0] as { n: number }).n;
  await db.query('drop table if exists seed_order');
  // i: the envelope's place in the organization; j: its place among the drafts, or among the others.
  await db.query(
    `create temp table seed_order as
       select id, row_number() over (order by created_at, id) as i,
              row_number() over (partition by coalesce(previous_status, status) = 'Draft'
                                 order by created_at, id) as j,
              coalesce(previous_status, status) = 'Draft' as draft
       from envelope where organization_id = $1`,
    [organizationId],
  );
  const { rows: counted } = await db.query(
    'select count(*) filter (where draft)::int as drafts from seed_order',
  );
  const drafts = (counted[0] as { drafts: number }).drafts;
  const others = envelopes - drafts;
  const share = Math.max(0, total - drafts);
  // Every envelope that is not a draft gets `perEnvelope` events, the first `extra` of them one more.
  const perEnvelope = others > 0 ? Math.max(2, Math.floor(share / others)) : 1;
  const extra = others > 0 && share >= 2 * others ? share - perEnvelope * others : 0;
  let written = 0;
  for (let from = 1; from <= envelopes; from += CHUNK) {
    const to = Math.min(envelopes, from + CHUNK - 1);
    // Event k of an envelope (1 … perEnvelope): 1 created; 2 sent (drafts stop at 1); the last its ending
    // (completed, declined with a reason, cancelled, expired, delivery failed); between, the recipients'
    // opened, authentication_verified and completed in turn. Times between its creation and its end.
    const inserted = await db.query(
      `insert into audit_event (id, envelope_id, organization_id, sequence, type, recipient_id, data, occurred_at)
       select gen_random_uuid(), e.id, e.organization_id, k,
              case
                when k = 1 then 'envelope.created'
                when k = 2 then 'envelope.sent'
                when k = last then case phase
                  when 'Completed' then 'envelope.completed'
                  when 'Declined' then 'recipient.declined'
                  when 'Cancelled' then 'envelope.cancelled'
                  when 'Expired' then 'envelope.expired'
                  when 'DeliveryFailed' then 'envelope.delivery_failed'
                  else 'recipient.opened' end
                when k = last - 1 and phase = 'Completed' then 'document.final_pdf_ready'
                else (array['recipient.opened', 'recipient.authentication_verified', 'recipient.completed'])[
                  1 + (k % 3)] end,
              null,
              case when k = last and phase = 'Declined' then
                     jsonb_build_object('reason', ($1::text[])[1 + (abs(hashtext(e.id::text)) % $2::int)])
                   when k = last and phase = 'Cancelled' then jsonb_build_object('reason', 'No longer needed')
                   else '{}'::jsonb end,
              e.created_at + (k::float8 / last) *
                (coalesce(e.completed_at, least(now(), e.expires_at)) - e.created_at)
       from (
         select e.*, coalesce(e.previous_status, e.status) as phase,
                case when o.draft then 1 else $3::int + (o.j <= $6::int)::int end as last
         from seed_order o join envelope e on e.id = o.id
         where o.i between $4::int and $5::int
       ) as e
       cross join lateral generate_series(1, e.last) as k`,
      [DECLINE_REASONS, DECLINE_REASONS.length, perEnvelope, from, to, extra],
    );
    written += inserted.rowCount ?? 0;
    say(
      `audit events: ${thousands(to)} / ${thousands(envelopes)} envelopes, ${thousands(written)} events ` +
        `(${((performance.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
  await db.query('drop table seed_order');
  return written;
}

/**
 * The messages the organization sent: an invitation to every recipient of a sent envelope (a fifth of them
 * by SMS, a twentieth by WhatsApp, the rest by email; one in fifty failed), sent when the envelope was.
 */
async function seedNotifications(db: pg.Client, organizationId: string): Promise<number> {
  const inserted = await db.query(
    `insert into notification (id, organization_id, envelope_id, recipient_id, kind, channel, to_address,
       language, provider, status, attempts, last_error, created_at, last_attempt_at, sent_at)
     select gen_random_uuid(), e.organization_id, e.id, r.id, 'invitation', x.channel, r.email, 'en',
            case when x.channel = 'Email' then 'smtp' else 'twilio' end,
            case when x.failed then 'failed' else 'sent' end,
            case when x.failed then 3 else 1 end,
            case when x.failed then 'mailbox unavailable' end,
            e.sent_at, e.sent_at, case when not x.failed then e.sent_at end
     from envelope e join recipient r on r.envelope_id = e.id
     cross join lateral (
       -- Referring to r makes the subquery run once per recipient (its own random numbers).
       select case when r.id is null then null when random() < 0.2 then 'Sms' when random() < 0.06
                then 'WhatsApp' else 'Email' end as channel,
              random() < 0.02 as failed
     ) as x
     where e.organization_id = $1 and e.sent_at is not null`,
    [organizationId],
  );
  return inserted.rowCount ?? 0;
}

const options = { envelopes: ENVELOPES, otherEnvelopes: OTHER_ENVELOPES, say };
await withDocumentsBench(options, async ({ bench, db, seeded }) => {
  const { app, infrastructure } = bench;
  const { organizationId, owner, bella } = seeded;
  const auditStarted = performance.now();
  const events = await seedAuditEvents(db, organizationId, AUDIT_EVENTS);
  say('messages sent…');
  const messages = await seedNotifications(db, organizationId);
  say('VACUUM ANALYZE audit_event, notification…');
  await db.query('vacuum (analyze) audit_event, notification');
  say(
    `seeded ${thousands(events)} audit events and ${thousands(messages)} messages in ` +
      `${((performance.now() - auditStarted) / 1000).toFixed(1)} s`,
  );
  const one = async <T>(sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows[0] as T;
  const sizes = await one<{ envelope: string; audit: string; notification: string }>(
    `select pg_size_pretty(pg_total_relation_size('envelope')) as envelope,
            pg_size_pretty(pg_total_relation_size('audit_event')) as audit,
            pg_size_pretty(pg_total_relation_size('notification')) as notification`,
  );
  const indexes = await db.query(
    `select tablename, indexname from pg_indexes
     where tablename in ('envelope', 'audit_event', 'notification', 'recipient') order by tablename, indexname`,
  );
  const server = await one<{ version: string; buffers: string }>(
    `select current_setting('server_version') as version, current_setting('shared_buffers') as buffers`,
  );

  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const day = 86_400_000;
  const now = new Date();
  const yearStart = new Date(Date.UTC(now.getUTCFullYear(), 0, 1));
  const summary = (from: Date, to: Date) =>
    `/api/reports/summary?${new URLSearchParams({ from: from.toISOString(), to: to.toISOString() })}`;
  interface Case {
    label: string;
    who: 'owner' | 'sender';
    path: string;
  }
  const cases: Case[] = [];
  for (const who of ['owner', 'sender'] as const) {
    cases.push(
      { label: 'GET /api/dashboard', who, path: '/api/dashboard' },
      {
        label: 'report: last 30 days',
        who,
        path: summary(new Date(now.getTime() - 30 * day), now),
      },
      { label: 'report: this year', who, path: summary(yearStart, now) },
      { label: 'report: 365 days', who, path: summary(new Date(now.getTime() - 365 * day), now) },
    );
  }
  const cookieOf = (who: Case['who']) => (who === 'owner' ? owner.cookie : bella.cookie);
  for (const item of cases) {
    const answer = await fetch(`${base}${item.path}`, { headers: { cookie: cookieOf(item.who) } });
    if (answer.status !== 200) {
      throw new Error(`${item.who} · ${item.label}: ${answer.status} ${await answer.text()}`);
    }
  }

  const plans = await measureRoute(timing, base, 'GET /api/plans (no session)', '—', '/api/plans');
  const results: Measured[] = [];
  for (const item of cases) {
    results.push(await measureRoute(timing, base, item.label, item.who, item.path, cookieOf(item.who)));
  }

  say('EXPLAIN (ANALYZE, BUFFERS) of the SQL each route sent…');
  const catching = queryCatcher(infrastructure.orm);
  const explained: { route: string; statements: Explained[] }[] = [];
  for (const item of cases) {
    const sent = await catching(() =>
      fetch(`${base}${item.path}`, { headers: { cookie: cookieOf(item.who) } }).then((r) => r.text()),
    );
    const statements: Explained[] = [];
    for (const [index, sql] of sent.entries()) {
      // The session's and the plan's lookups are the same for every route: only the route's own reads.
      if (!/envelope|audit_event|notification/.test(sql) || /^\s*(insert|update|delete)/i.test(sql)) continue;
      statements.push(
        await explain(db, `#${index + 1} ${sql.replace(/\s+/g, ' ').slice(0, 60)}`, item.who, sql, false),
      );
    }
    explained.push({ route: `${item.who} · ${item.label}`, statements });
  }

  // ---- Report.
  out();
  out(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ` +
      `load average ${loadavg()
        .map((n) => n.toFixed(2))
        .join(
          ' ',
        )}; PostgreSQL ${server.version} (embedded, shared_buffers ${server.buffers}); Node ${process.version}`,
  );
  out(
    `data: ${thousands(seeded.main.envelopes)} envelopes (${sizes.envelope}), ${thousands(events)} audit events ` +
      `(${sizes.audit}), ${thousands(messages)} messages (${sizes.notification}) in the organization; ` +
      `${thousands(seeded.second.envelopes)} envelopes in a second one`,
  );
  out(`owner: ${owner.email} (documents:read_all); sender: ${bella.email} (Sales, with Avi and Carmel)`);
  const byTable = new Map<string, string[]>();
  for (const row of indexes.rows as { tablename: string; indexname: string }[]) {
    byTable.set(row.tablename, [...(byTable.get(row.tablename) ?? []), row.indexname]);
  }
  for (const [table, names] of byTable) out(`indexes of ${table}: ${names.join(', ')}`);
  out(
    `n requests per row (${timing.requests}, or fewer when ${timing.routeSeconds} s ran out) after ` +
      `${timing.warmup} to warm up, ${timing.concurrency} at a time, the client in the server's process`,
  );
  out();
  const format = { labelWidth: 28, msWidth: 10, rateDigits: 1, rateWidth: 7, shareDigits: 4 };
  for (const line of timingTable([plans, ...results], plans, format)) out(line);
  out('\nEXPLAIN (ANALYZE, BUFFERS) of each statement a route sent (one run, after the measurements):');
  for (const { route, statements } of explained) {
    out(`\n${route}`);
    for (const e of statements) {
      out(
        `  ${e.label.padEnd(66)} ${`${e.execution.toFixed(2)} ms`.padStart(10)} ` +
          `${thousands(e.hit + e.read).padStart(8)} buf  ${e.indexes.join(', ') || '—'}` +
          `${e.seqScans.length ? ` (seq scan: ${e.seqScans.join(', ')})` : ''}`,
      );
    }
  }
  for (const r of [plans, ...results].filter((item) => item.errors > 0)) {
    out(`!! ${r.who} · ${r.label}: ${JSON.stringify(r.statuses)}`);
  }
});

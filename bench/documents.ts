// `npm run bench:documents`: the business app's documents list (docs/documents.md, issue 15) with 100,000
// envelopes in one organization, through HTTP to the API app in production configuration, on real PostgreSQL.
// 1. Seeds, with SQL (`insert … select … generate_series`, in chunks, with progress lines) into the tables of the
//    migrations: one organization with an owner, five senders in two teams (Sales: Avi, Bella, Carmel; Support:
//    Dan, Eden) and the public API (no sending user), four templates, BENCH_ENVELOPES envelopes (default
//    100,000) created over the last year in every status of the tabs (archived and deleted ones too), two or
//    three recipients each (names and addresses from pools, some of them the organization's own users, some in
//    capitals), titles (a kind of document and a company), external references; and a second, small
//    organization (BENCH_OTHER_ENVELOPES, default 2,000) sharing the recipients' address space, so that the
//    tenant filter and the recipients' search across organizations are real. Then VACUUM ANALYZE.
// 2. Measures GET /api/documents as the owner (documents:read_all) and as a sender (own and team): the first
//    page of the default tab, the next page, status tabs, the sender, template and date filters, searches (a
//    common and a rare title word, a recipient's address, a domain, an external reference), "action needed",
//    and GET /api/documents/filters (the tab counts); each BENCH_REQUESTS times (default 200; fewer when a
//    route has used BENCH_ROUTE_SECONDS, default 10) after BENCH_WARMUP (default 20), BENCH_CONCURRENCY at a
//    time (default 1): p50, p99, requests per second, and the ratio to GET /api/plans (no session) measured in
//    the same run; GET /api/auth/me shows the session's cost.
// 3. Catches the SQL each request sent (MikroORM's query log: the statement exactly as sent to PostgreSQL) and
//    prints EXPLAIN (ANALYZE, BUFFERS) of it: execution time, buffers, the indexes read, sequential scans, how
//    many envelopes it matches; the whole plan of the main list query and of the search queries
//    (BENCH_PLANS=all: every plan).
// Prints tables; asserts nothing. `npm run bench:documents -- --envelopes 20000` is BENCH_ENVELOPES=20000;
// BENCH_KEEP=1 keeps PostgreSQL and the API up after the report until Enter, to look at the data by hand.
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import {
  type Explained,
  explain,
  type Measured,
  measure as measureRoute,
  queryCatcher,
  timingTable,
} from './route-timing.ts';
import { DOMAINS, thousands, withDocumentsBench } from './seed-documents.ts';

const { values: flags } = parseArgs({ options: { envelopes: { type: 'string' } }, strict: true });
const whole = (name: string, fallback: number, given = process.env[name]) => {
  const value = Number(given ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1: ${given}`);
  return value;
};
const ENVELOPES = whole('BENCH_ENVELOPES', 100_000, flags.envelopes ?? process.env.BENCH_ENVELOPES);
const OTHER_ENVELOPES = whole('BENCH_OTHER_ENVELOPES', 2_000);
const REQUESTS = whole('BENCH_REQUESTS', 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const CONCURRENCY = whole('BENCH_CONCURRENCY', 1);
/** A route stops early after this many seconds of measuring (a slow one on a busy machine). */
const ROUTE_SECONDS = whole('BENCH_ROUTE_SECONDS', 10);
const ALL_PLANS = process.env.BENCH_PLANS === 'all';
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const timing = {
  requests: REQUESTS,
  warmup: WARMUP,
  concurrency: CONCURRENCY,
  routeSeconds: ROUTE_SECONDS,
  say,
};
const measure = (base: string, label: string, who: string, path: string, cookie?: string) =>
  measureRoute(timing, base, label, who, path, cookie);

/** The statements of GET /api/documents/filters (services/documents/document-filters.ts), recognized. */
const FILTER_STATEMENTS: [string, RegExp][] = [
  ['filters: counts by status', /group by e\.status/],
  ['filters: action_needed count', /^select count\(\*\) as count from envelope e where/],
  ['filters: senders (exists per user)', /^select u\.id, u\.full_name from app_user u/],
  ['filters: teams (exists per team)', /^select t\.id, t\.name from team t/],
  ['filters: templates (exists per one)', /^select tp\.id, tp\.name from template tp/],
  ['filters: integrations (exists)', /as found\s*$/],
];

// ---------------------------------------------------------------------------------------------------------

const options = { envelopes: ENVELOPES, otherEnvelopes: OTHER_ENVELOPES, say };
await withDocumentsBench(options, async ({ bench, db, seeded }) => {
  const { app, infrastructure } = bench;
  const { organizationId, owner, bella, templateIds, main, second } = seeded;

  // What the searches look for, from the data: the first recipient of Bella's newest envelope (so both the
  // owner and Bella find it), the newest reference of the public API.
  const one = async <T>(sql: string, params: unknown[]) => (await db.query(sql, params)).rows[0] as T;
  const { email } = await one<{ email: string }>(
    `select lower(r.email) as email from envelope e join recipient r on r.envelope_id = e.id
     where e.organization_id = $1 and e.created_by_user_id = $2 and e.status <> 'Deleted'
       and lower(r.email) not like '%@bench-org.example'
     order by e.created_at desc, r.signing_order limit 1`,
    [organizationId, bella.user.id],
  );
  const { reference } = await one<{ reference: string }>(
    `select external_reference as reference from envelope
     where organization_id = $1 and external_reference like 'ERP-%' and status <> 'Deleted'
     order by created_at desc limit 1`,
    [organizationId],
  );
  const domain = `@${DOMAINS[2]}`;
  const shares = await db.query(
    `select status, count(*)::int as n from envelope where organization_id = $1 group by status order by n desc`,
    [organizationId],
  );
  const sizes = await one<{ envelope: string; recipient: string }>(
    `select pg_size_pretty(pg_total_relation_size('envelope')) as envelope,
            pg_size_pretty(pg_total_relation_size('recipient')) as recipient`,
    [],
  );
  const server = await one<{ version: string; buffers: string }>(
    `select current_setting('server_version') as version, current_setting('shared_buffers') as buffers`,
    [],
  );

  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const day = 86_400_000;
  const midnight = (ago: number) => new Date(Math.floor((Date.now() - ago * day) / day) * day).toISOString();
  const query = (parameters: Record<string, string>) =>
    `/api/documents?${new URLSearchParams(parameters).toString()}`.replace(/\?$/, '');
  const firstPage = (await (
    await fetch(`${base}/api/documents`, { headers: { cookie: owner.cookie } })
  ).json()) as { nextCursor: string | null };

  interface Case {
    label: string;
    who: 'owner' | 'sender';
    path: string;
    /** Print the whole plan. */
    plan?: boolean;
  }
  const ownerCases: Case[] = [
    { label: 'all: first page', who: 'owner', path: '/api/documents', plan: true },
    { label: 'all: next page (cursor)', who: 'owner', path: query({ cursor: firstPage.nextCursor ?? '' }) },
    { label: 'tab in_progress', who: 'owner', path: query({ tab: 'in_progress' }) },
    { label: 'tab declined', who: 'owner', path: query({ tab: 'declined' }) },
    { label: 'sender = Bella', who: 'owner', path: query({ sender: bella.user.id }) },
    { label: 'sender = api', who: 'owner', path: query({ sender: 'api' }) },
    { label: 'template filter', who: 'owner', path: query({ templateId: templateIds[2] as string }) },
    { label: 'date range (30 days)', who: 'owner', path: query({ from: midnight(60), to: midnight(30) }) },
    { label: 'search title "lease" (1 in 4)', who: 'owner', path: query({ search: 'lease' }), plan: true },
    { label: 'search title "Quayside" (1 in 50)', who: 'owner', path: query({ search: 'Quayside' }) },
    { label: 'search recipient address', who: 'owner', path: query({ search: email }), plan: true },
    { label: `search domain "${domain}"`, who: 'owner', path: query({ search: domain }) },
    { label: 'search external reference', who: 'owner', path: query({ search: reference }) },
    { label: 'tab action_needed', who: 'owner', path: query({ tab: 'action_needed' }) },
    { label: 'GET /api/documents/filters', who: 'owner', path: '/api/documents/filters' },
  ];
  const senderCases: Case[] = [
    { label: 'all: first page', who: 'sender', path: '/api/documents', plan: true },
    { label: 'tab in_progress', who: 'sender', path: query({ tab: 'in_progress' }) },
    { label: 'search title "lease" (1 in 4)', who: 'sender', path: query({ search: 'lease' }), plan: true },
    { label: 'search recipient address', who: 'sender', path: query({ search: email }) },
    { label: 'tab action_needed', who: 'sender', path: query({ tab: 'action_needed' }) },
    { label: 'GET /api/documents/filters', who: 'sender', path: '/api/documents/filters' },
  ];
  const cookieOf = (who: Case['who']) => (who === 'owner' ? owner.cookie : bella.cookie);

  const plans = await measure(base, 'GET /api/plans (no session)', '—', '/api/plans');
  const me = await measure(base, 'GET /api/auth/me', 'owner', '/api/auth/me', owner.cookie);
  const results: Measured[] = [];
  for (const item of [...ownerCases, ...senderCases]) {
    results.push(await measure(base, item.label, item.who, item.path, cookieOf(item.who)));
  }

  // The plans: each list request once more with its SQL caught, then EXPLAIN of that SQL.
  say('EXPLAIN (ANALYZE, BUFFERS) of the SQL each route sent…');
  const catching = queryCatcher(infrastructure.orm);
  const explained: (Explained & { plan: boolean })[] = [];
  for (const item of [...ownerCases, ...senderCases]) {
    const sent = await catching(() =>
      fetch(`${base}${item.path}`, { headers: { cookie: cookieOf(item.who) } }).then((r) => r.text()),
    );
    if (item.path.startsWith('/api/documents/filters')) {
      for (const [label, pattern] of FILTER_STATEMENTS) {
        // The integrations' query runs only for a role that reads every envelope.
        const statement = sent.find((sql) => pattern.test(sql));
        if (statement)
          explained.push({ ...(await explain(db, label, item.who, statement, false)), plan: ALL_PLANS });
      }
      continue;
    }
    const list = sent.find(
      (sql) =>
        /order by e\.created_at desc, e\.id desc\s+limit \d+\s*$/.test(sql) ||
        /^\s*with matches as/.test(sql),
    );
    if (!list) throw new Error(`no list query caught for ${item.label}`);
    explained.push({
      ...(await explain(db, item.label, item.who, list, true)),
      plan: ALL_PLANS || item.plan === true,
    });
  }

  // ---- Report.
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  out();
  out(
    `machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(
        ' ',
      )}; PostgreSQL ${server.version} (embedded, shared_buffers ${server.buffers}); Node ${process.version}`,
  );
  out(
    `data: ${thousands(main.envelopes)} envelopes, ${thousands(main.recipients)} recipients in the organization ` +
      `(5 senders in 2 teams + the public API, ${templateIds.length} templates); ${thousands(second.envelopes)} ` +
      `envelopes in a second organization; envelope ${sizes.envelope}, recipient ${sizes.recipient} with indexes`,
  );
  out(
    `statuses: ${(shares.rows as { status: string; n: number }[]).map((row) => `${row.status} ${thousands(row.n)}`).join(', ')}`,
  );
  out(
    `owner: ${owner.email} (documents:read_all); sender: ${bella.email} (Sales, with Avi and Carmel); ` +
      `searched: "lease", "Quayside", "${email}", "${domain}", "${reference}"`,
  );
  out(
    `n requests per row (${REQUESTS}, or fewer when ${ROUTE_SECONDS} s ran out) after ${WARMUP} to warm up, ` +
      `${CONCURRENCY} at a time, the client in the server's process (keep-alive); page: rows of the first ` +
      `page ("+": more pages)`,
  );
  out();
  const format = {
    labelWidth: 40,
    msWidth: 9,
    rateDigits: 0,
    rateWidth: 8,
    shareDigits: 3,
    extra: { head: 'page', width: 4, cell: (r: Measured) => r.page ?? '' },
  };
  for (const line of timingTable([plans, me, ...results], plans, format)) out(line);

  out('\nEXPLAIN (ANALYZE, BUFFERS) of the statement each route sent (one run, after the measurements):\n');
  out(
    [
      'query'.padEnd(40),
      'who'.padEnd(6),
      'matches'.padStart(8),
      'exec'.padStart(9),
      'plan'.padStart(8),
      'buffers'.padStart(8),
      ' indexes (seq scans)',
    ].join(' '),
  );
  for (const e of explained) {
    out(
      [
        e.label.padEnd(40),
        e.who.padEnd(6),
        (e.matches === undefined ? '' : thousands(e.matches)).padStart(8),
        `${e.execution.toFixed(2)} ms`.padStart(9),
        `${e.planning.toFixed(2)} ms`.padStart(8),
        thousands(e.hit + e.read).padStart(8),
        ` ${e.indexes.join(', ') || '—'}${e.seqScans.length ? ` (seq scan: ${e.seqScans.join(', ')})` : ''}`,
      ].join(' '),
    );
  }
  out('\n(matches: envelopes the statement finds without its limit; buffers: shared blocks hit + read)');
  for (const e of explained.filter((item) => item.plan)) {
    out(
      `\n${e.who} · ${e.label}: execution ${e.execution.toFixed(2)} ms, planning ${e.planning.toFixed(2)} ms`,
    );
    for (const line of e.tree) out(line);
  }
  const failed = [plans, me, ...results].filter((r) => r.errors > 0);
  for (const r of failed) out(`!! ${r.who} · ${r.label}: ${JSON.stringify(r.statuses)}`);
  const slow = results.filter((r) => r.p99 > 100);
  for (const r of slow) out(`!! ${r.who} · ${r.label}: p99 ${r.p99.toFixed(1)} ms is above 100 ms`);
  if (process.env.BENCH_KEEP === '1') {
    // To look at the seeded database by hand: it stays until Enter (or the end of the input).
    out(`\nBENCH_KEEP=1: ${bench.infrastructure.databaseUrl} and ${base} stay up until Enter`);
    await new Promise((resolve) => {
      process.stdin.once('data', resolve).once('end', resolve).resume();
    });
    process.stdin.pause();
  }
});

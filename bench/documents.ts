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
import { randomUUID } from 'node:crypto';
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import type { LogContext } from '@mikro-orm/core';
import pg from 'pg';
import { createTemplate } from '../api/services/templates/create-template.ts';
import { AppUser, Team } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../scripts/demo/demo-pdf.ts';
import { createOrganizationWithTemplate } from '../test/support/context.ts';
import { type SignedInUser, signedInUser } from '../test/support/signed-in-user.ts';
import { startBenchApi } from './support.ts';

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
/** Envelopes per insert statement (their recipients follow in one more). */
const CHUNK = 10_000;
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);
const thousands = (n: number) => n.toLocaleString('en-US');

// ---------------------------------------------------------------------------------------------------------
// What the envelopes are made of.

/** Each status's share of the envelopes (the cumulative shares pick one per envelope). */
const STATUS_SHARES: [string, number][] = [
  ['Completed', 0.455],
  ['Draft', 0.08],
  ['Sent', 0.04],
  ['Opened', 0.03],
  ['InProgress', 0.03],
  ['WaitingForNextSigner', 0.04],
  ['DeliveryFailed', 0.01],
  ['ProcessingFinalPdf', 0.002],
  ['FinalPdfFailed', 0.003],
  ['Declined', 0.05],
  ['Cancelled', 0.05],
  ['Expired', 0.06],
  ['Archived', 0.12],
  ['Deleted', 0.03],
];
/** Signing or rendering: created within the last 12 days (deadlines of 14 days and more have not passed). */
const IN_FLIGHT = [
  'Sent',
  'Opened',
  'InProgress',
  'WaitingForNextSigner',
  'DeliveryFailed',
  'ProcessingFinalPdf',
  'FinalPdfFailed',
];
const KINDS = [
  'Services agreement',
  'Mutual NDA',
  'Residential lease',
  'Commercial lease',
  'Equipment lease',
  'Purchase order',
  'Employment offer',
  'Consulting agreement',
  'Sales quote',
  'Consent form',
  'Loan agreement',
  'Supplier contract',
];
const COMPANIES = [
  'Oakridge Properties',
  'Blue Harbor Logistics',
  'Cedar & Finch',
  'Northwind Traders',
  'Helios Solar',
  'Granite Peak Capital',
  'Silverline Media',
  'Red Dune Foods',
  'Aurora Health',
  'Keystone Builders',
  'Lumen Analytics',
  'Maple Street Dental',
  'Orchid Hotels',
  'Pioneer Freight',
  'Quartz Labs',
  'Riverbend Farms',
  'Summit Legal',
  'Tidewater Marine',
  'Urban Nest Realty',
  'Vantage Security',
  'Willow Creek School',
  'Yellowstone Outfitters',
  'Zenith Aerospace',
  'Atlas Printing',
  'Beacon Insurance',
  'Crescent Bakery',
  'Delta Dynamics',
  'Evergreen Clinics',
  'Falcon Motors',
  'Golden Gate Studios',
  'Harbor Light Cafe',
  'Ironwood Furniture',
  'Jasper Consulting',
  'Kestrel Robotics',
  'Lighthouse Charity',
  'Meridian Bank',
  'Nimbus Cloud',
  'Opal Jewelers',
  'Prairie Wind Energy',
  'Quayside Apartments',
  'Rosewood Events',
  'Sapphire Travel',
  'Timberline Construction',
  'Unity Credit Union',
  'Vertex Pharma',
  'Westgate Mall',
  'Xylo Music',
  'Yarrow Gardens',
  'Zephyr Airlines',
  'Harmony Day Care',
];
const FIRST_NAMES = [
  'Dana',
  'Sam',
  'Noa',
  'Yossi',
  'Maya',
  'Omer',
  'Tamar',
  'Eitan',
  'Shira',
  'Amit',
  'Yael',
  'Ron',
  'Lior',
  'Gal',
  'Roni',
  'Itai',
  'Michal',
  'Avi',
  'Hila',
  'Nadav',
  'Emma',
  'Liam',
  'Olivia',
  'Noah',
  'Sofia',
  'Lucas',
  'Chloe',
  'Mateo',
  'Aisha',
  'Omar',
  'Fatima',
  'Yusuf',
  'Hannah',
  'Jonas',
  'Clara',
  'Felix',
  'Ines',
  'Hugo',
  'Lea',
  'Marco',
];
const LAST_NAMES = [
  'Levi',
  'Cohen',
  'Mizrahi',
  'Peretz',
  'Biton',
  'Dahan',
  'Avraham',
  'Friedman',
  'Azoulay',
  'Katz',
  'Shapiro',
  'Goldberg',
  'Rosen',
  'Ben-David',
  'Haddad',
  'Nasser',
  'Khoury',
  'Smith',
  'Johnson',
  'Garcia',
  'Martinez',
  'Brown',
  'Wilson',
  'Taylor',
  'Anderson',
  'Thomas',
  'Moreau',
  'Dubois',
  'Rossi',
  'Bianchi',
  'Novak',
  'Horvat',
  'Schmidt',
  'Weber',
  'Jansen',
  'Silva',
  'Santos',
  'Okafor',
  'Mensah',
  'Tanaka',
];
const DOMAINS = [
  'gmail.example',
  'outlook.example',
  'northwind.example',
  'oakridge.example',
  'blueharbor.example',
  'helios.example',
  'summitlegal.example',
  'meridianbank.example',
  'aurorahealth.example',
  'keystone.example',
  'lumen.example',
  'pioneer.example',
  'quartzlabs.example',
  'tidewater.example',
  'vantage.example',
  'zenith.example',
  'beacon.example',
  'evergreen.example',
  'falcon.example',
  'nimbus.example',
];
/** Share of envelopes whose recipient in turn is one of the organization's own users. */
const INSIDER_RATE = 0.03;

interface SeedPlan {
  label: string;
  organizationId: string;
  count: number;
  /** Who creates the envelopes, with their share; a null user is the public API. */
  senders: { userId: string | null; teamId: string | null; share: number }[];
  templates: { id: string; clientRoleId: string; providerRoleId: string }[];
  /** People with a user in the organization who also sign some of its envelopes (their "action needed"). */
  insiders: { fullName: string; email: string }[];
  /** The prefix of the references of envelopes created in the app (the public API's are `ERP-…`). */
  referencePrefix: string;
}

/** `[0, a, a+b, …]`: the lower bounds `width_bucket` picks an index with, from shares that add up to 1. */
function bounds(shares: number[]): number[] {
  const lower = [0];
  for (const share of shares.slice(0, -1)) lower.push((lower.at(-1) as number) + share);
  return lower;
}

/**
 * The envelopes of one organization, decided first in a temporary table (status, sender, template, dates…:
 * `random()` per row, after `setseed`, so a run is repeatable), then inserted CHUNK at a time with their
 * recipients.
 */
async function seed(db: pg.Client, plan: SeedPlan): Promise<{ envelopes: number; recipients: number }> {
  const started = performance.now();
  await db.query('select setseed(0.42)');
  await db.query('drop table if exists seed_envelope');
  await db.query(
    `create temp table seed_envelope as
     with raw as materialized (
       select i, random() as r_status, random() as r_previous, random() as r_sender, random() as r_template,
              random() as r_kind, random() as r_company, random() as r_workflow, random() as r_recipients,
              random() as r_reference, random() as r_age, random() as r_sent, random() as r_done,
              random() as r_expiry
       from generate_series(1, $1::int) as i
     ), picked as (
       select raw.*, ($2::text[])[width_bucket(r_status, $3::float8[])] as status,
              width_bucket(r_sender, $4::float8[]) as sender
       from raw
     ), closed as (
       -- An archived or deleted envelope keeps the status it had (mostly a completed one) as previous_status.
       select picked.*,
              case when status in ('Archived', 'Deleted') then
                case when r_previous < 0.85 then 'Completed' when r_previous < 0.95 then 'Cancelled'
                     else 'Expired' end
              end as previous_status
       from picked
     ), dated as (
       select closed.*, coalesce(previous_status, status) as phase,
              now() - case
                when status = any($5::text[]) then r_age * 12
                when coalesce(previous_status, status) = 'Expired' then 61 + r_age * 300
                else r_age * 365
              end * interval '1 day' as created_at
       from closed
     )
     select i, gen_random_uuid() as id, status, previous_status, phase, sender,
            1 + floor(r_template * $6::int)::int as template,
            1 + floor(r_kind * $7::int)::int as kind,
            1 + floor(r_company * $8::int)::int as company,
            case when r_workflow < 0.7 then 'Sequential' when r_workflow < 0.95 then 'Parallel'
                 else 'GroupedRounds' end as workflow_type,
            case when r_recipients < 0.8 then 2 else 3 end as recipient_count,
            r_reference < 0.4 as has_reference,
            created_at,
            created_at + case when r_expiry < 0.7 then 30 when r_expiry < 0.9 then 14 else 60 end
              * interval '1 day' as expires_at,
            case when phase <> 'Draft' then created_at + r_sent * interval '2 hours' end as sent_at,
            case when phase = 'Completed' then
              least(now(), created_at + (0.1 + r_done * 10) * interval '1 day') end as completed_at
     from dated`,
    [
      plan.count,
      STATUS_SHARES.map(([status]) => status),
      bounds(STATUS_SHARES.map(([, share]) => share)),
      bounds(plan.senders.map((sender) => sender.share)),
      IN_FLIGHT,
      plan.templates.length,
      KINDS.length,
      COMPANIES.length,
    ],
  );
  const users = plan.senders.map((sender) => sender.userId);
  let recipients = 0;
  for (let from = 1; from <= plan.count; from += CHUNK) {
    const to = Math.min(plan.count, from + CHUNK - 1);
    await db.query(
      `insert into envelope (id, organization_id, template_id, created_by_user_id, team_id, title, workflow_type,
         status, previous_status, expires_at, external_reference, external_system, workflow_id, sent_at,
         completed_at, archived_at, deleted_at, created_at, updated_at)
       select s.id, $1::uuid, ($2::uuid[])[s.template], ($3::uuid[])[s.sender], ($4::uuid[])[s.sender],
              ($5::text[])[s.kind] || ' — ' || ($6::text[])[s.company],
              s.workflow_type, s.status, s.previous_status, s.expires_at,
              case when ($3::uuid[])[s.sender] is null then 'ERP-' || lpad(s.i::text, 7, '0')
                   when s.has_reference then $7::text || '-' || (100000 + s.i) end,
              case when ($3::uuid[])[s.sender] is null then 'erp' end,
              case when s.sent_at is not null then 'envelope/' || s.id end,
              s.sent_at, s.completed_at,
              case when s.status = 'Archived' then
                least(now(), coalesce(s.completed_at, s.sent_at, s.created_at) + interval '20 days') end,
              case when s.status = 'Deleted' then
                least(now(), coalesce(s.completed_at, s.sent_at, s.created_at) + interval '20 days') end,
              s.created_at, greatest(s.created_at, s.sent_at, s.completed_at)
       from seed_envelope s where s.i between $8::int and $9::int`,
      [
        plan.organizationId,
        plan.templates.map((template) => template.id),
        users,
        plan.senders.map((sender) => sender.teamId),
        KINDS,
        COMPANIES,
        plan.referencePrefix,
        from,
        to,
      ],
    );
    // The recipient in turn (the first; the second while the envelope waits for its next signer) is now and
    // then one of the organization's users, a quarter of those times with the address in capitals. The third
    // recipient, when there is one, is a Cc of the Client role.
    const inserted = await db.query(
      `insert into recipient (id, envelope_id, role_id, role_name, full_name, email, signing_order,
         delivery_channel, authentication_method, type, required, status, completed_at, created_at, updated_at)
       select gen_random_uuid(), y.id,
              case when y.j = 2 then ($2::uuid[])[y.template] else ($1::uuid[])[y.template] end,
              case when y.j = 2 then 'Provider' else 'Client' end,
              case when y.insider then ($6::text[])[y.who] else ($3::text[])[y.f] || ' ' || ($4::text[])[y.l] end,
              case when y.insider and y.r_case < 0.25 then upper(($7::text[])[y.who])
                   when y.insider then ($7::text[])[y.who]
                   else lower(replace(($3::text[])[y.f] || '.' || ($4::text[])[y.l], '-', '')) || '@'
                        || ($5::text[])[y.d] end,
              case when y.workflow_type = 'Parallel' or y.j = 3 then 1 else y.j end,
              case when y.insider then 'Email'
                   when ($10::uuid[])[y.sender] is null and y.r_channel < 0.3 then 'Api'
                   when y.r_channel < 0.08 then 'ManualLink' else 'Email' end,
              'SecureLink',
              case when y.j = 3 then 'Cc' else 'Signer' end,
              y.j < 3,
              y.recipient_status,
              case when y.recipient_status = 'Completed' then
                coalesce(y.completed_at, y.sent_at + interval '1 day') end,
              y.created_at,
              coalesce(y.completed_at, y.sent_at, y.created_at)
       from (
         select x.*,
                x.j = case when x.phase = 'WaitingForNextSigner' then 2 else 1 end and x.r_insider < $8::float8 as insider,
                case
                  when x.j = 3 or x.phase = 'Draft' then 'Pending'
                  when x.phase in ('Completed', 'ProcessingFinalPdf', 'FinalPdfFailed') then 'Completed'
                  when x.phase = 'Declined' then case when x.j = 1 then 'Declined' else 'Cancelled' end
                  when x.phase in ('Cancelled', 'Expired') then x.phase
                  when x.phase = 'WaitingForNextSigner' then
                    case when x.j = 1 then 'Completed' else 'InvitationSent' end
                  when x.workflow_type <> 'Parallel' and x.j = 2 then 'WaitingForTurn'
                  when x.phase = 'Sent' then 'InvitationSent'
                  when x.phase = 'Opened' then case when x.r_step < 0.5 then 'LinkOpened' else 'Viewed' end
                  when x.phase = 'InProgress' then 'InProgress'
                  else 'DeliveryFailed'
                end as recipient_status
         from (
           select s.*, j, 1 + floor(random() * $11::int)::int as f, 1 + floor(random() * $12::int)::int as l,
                  1 + floor(random() * $13::int)::int as d, 1 + floor(random() * $14::int)::int as who,
                  random() as r_insider, random() as r_case, random() as r_channel, random() as r_step
           from seed_envelope s cross join lateral generate_series(1, s.recipient_count) as j
           where s.i between $9::int and $15::int
         ) as x
       ) as y`,
      [
        plan.templates.map((template) => template.clientRoleId),
        plan.templates.map((template) => template.providerRoleId),
        FIRST_NAMES,
        LAST_NAMES,
        DOMAINS,
        plan.insiders.map((insider) => insider.fullName),
        plan.insiders.map((insider) => insider.email),
        plan.insiders.length > 0 ? INSIDER_RATE : 0,
        from,
        users,
        FIRST_NAMES.length,
        LAST_NAMES.length,
        DOMAINS.length,
        Math.max(1, plan.insiders.length),
        to,
      ],
    );
    recipients += inserted.rowCount ?? 0;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    say(
      `${plan.label}: ${thousands(to)} / ${thousands(plan.count)} envelopes, ${thousands(recipients)} recipients (${seconds} s)`,
    );
  }
  await db.query('drop table seed_envelope');
  return { envelopes: plan.count, recipients };
}

// ---------------------------------------------------------------------------------------------------------
// Measuring.

interface Measured {
  label: string;
  who: string;
  path: string;
  p50: number;
  p99: number;
  max: number;
  requestsPerSecond: number;
  errors: number;
  statuses: Record<string, number>;
  /** Requests measured (fewer than REQUESTS when the route's time ran out). */
  count: number;
  /** Rows on the first page (list routes), and whether there are more. */
  page?: string;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

async function measure(base: string, label: string, who: string, path: string, cookie?: string) {
  const headers: Record<string, string> = cookie ? { cookie } : {};
  const get = async () => {
    const response = await fetch(`${base}${path}`, { headers });
    return { status: response.status, body: await response.text() };
  };
  say(
    `${who} · ${label}: ${WARMUP} + ${REQUESTS} requests (at most ${ROUTE_SECONDS} s), ${CONCURRENCY} at a time…`,
  );
  const warming = performance.now();
  for (let i = 0; i < WARMUP && performance.now() - warming < ROUTE_SECONDS * 300; i += 1) await get();
  const first = await get();
  let page: string | undefined;
  if (first.status === 200 && /^\/api\/documents(\?|$)/.test(path)) {
    const list = JSON.parse(first.body) as { documents: unknown[]; nextCursor: string | null };
    page = `${list.documents.length}${list.nextCursor ? '+' : ''}`;
  }
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS && performance.now() - started < ROUTE_SECONDS * 1000) {
        next += 1;
        const sent = performance.now();
        const { status } = await get();
        times.push(performance.now() - sent);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  const elapsed = performance.now() - started;
  times.sort((a, b) => a - b);
  const measured: Measured = {
    label,
    who,
    path,
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    max: times.at(-1) ?? Number.NaN,
    requestsPerSecond: (times.length / elapsed) * 1000,
    errors: times.length - (statuses[200] ?? 0),
    statuses,
    count: times.length,
  };
  if (page !== undefined) measured.page = page;
  return measured;
}

// ---------------------------------------------------------------------------------------------------------
// The SQL of a request, caught from MikroORM's query log (the statement with its values, exactly as sent), and
// its plan.

function queryCatcher(orm: Orm) {
  const logger = orm.config.getLogger();
  const logQuery = logger.logQuery.bind(logger);
  let caught: string[] | undefined;
  logger.logQuery = (context: LogContext) => {
    const sent = context.formatted ?? context.query;
    if (caught && typeof sent === 'string') caught.push(sent);
    logQuery(context);
  };
  return async (run: () => Promise<unknown>): Promise<string[]> => {
    caught = [];
    try {
      await run();
      return caught;
    } finally {
      caught = undefined;
    }
  };
}

interface PlanNode {
  'Node Type': string;
  'Parent Relationship'?: string;
  'Subplan Name'?: string;
  'Relation Name'?: string;
  Alias?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Actual Total Time'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

interface ExplainResult {
  Plan: PlanNode;
  'Execution Time': number;
  'Planning Time': number;
}

interface Explained {
  label: string;
  who: string;
  matches: number | undefined;
  execution: number;
  planning: number;
  hit: number;
  read: number;
  indexes: string[];
  seqScans: string[];
  tree: string[];
}

function walk(node: PlanNode, visit: (node: PlanNode, depth: number) => void, depth = 0) {
  visit(node, depth);
  for (const child of node.Plans ?? []) walk(child, visit, depth + 1);
}

async function explain(
  db: pg.Client,
  label: string,
  who: string,
  sql: string,
  countMatches: boolean,
): Promise<Explained> {
  const { rows } = await db.query(`explain (analyze, buffers, format json) ${sql}`);
  const [result] = (rows[0] as { 'QUERY PLAN': ExplainResult[] })['QUERY PLAN'];
  if (!result) throw new Error(`no plan for ${label}`);
  const indexes = new Set<string>();
  const seqScans = new Set<string>();
  const tree: string[] = [];
  walk(result.Plan, (node, depth) => {
    if (node['Index Name']) indexes.add(node['Index Name']);
    if (node['Node Type'] === 'Seq Scan' && node['Relation Name']) seqScans.add(node['Relation Name']);
    const loops = node['Actual Loops'] ?? 1;
    tree.push(
      `${'  '.repeat(depth + 1)}${node['Subplan Name'] ? `${node['Subplan Name']}: ` : ''}${node['Node Type']}` +
        `${node['Index Name'] ? ` using ${node['Index Name']}` : ''}` +
        `${node['Relation Name'] ? ` on ${node['Relation Name']} ${node.Alias ?? ''}`.trimEnd() : ''}` +
        `  (rows ${node['Actual Rows']}${loops > 1 ? ` × ${loops} loops` : ''}, ${node['Actual Total Time']?.toFixed(3)} ms)`,
    );
  });
  // How many envelopes the list query matches: the same statement without its limit.
  let matches: number | undefined;
  if (countMatches) {
    // A search's page is limited inside its `matches` (the matches' ids, sorted), the others' at the end.
    const unlimited = /^\s*with matches as/.test(sql)
      ? sql.replace(/\blimit\s+\d+\s*\)/i, ')')
      : sql.replace(/\blimit\s+\d+\s*$/i, '');
    const counted = await db.query(`select count(*)::int as n from (${unlimited}) as q`);
    matches = (counted.rows[0] as { n: number }).n;
  }
  return {
    label,
    who,
    matches,
    execution: result['Execution Time'],
    planning: result['Planning Time'],
    hit: result.Plan['Shared Hit Blocks'] ?? 0,
    read: result.Plan['Shared Read Blocks'] ?? 0,
    indexes: [...indexes],
    seqScans: [...seqScans],
    tree,
  };
}

/** The statements of GET /api/documents/filters (api/services/documents/document-filters.ts), recognized. */
const FILTER_STATEMENTS: [string, RegExp][] = [
  ['filters: counts by status', /group by e\.status/],
  ['filters: action_needed count', /^select count\(\*\) as count from envelope e where/],
  ['filters: senders (exists per user)', /^select u\.id, u\.full_name from app_user u/],
  ['filters: teams (exists per team)', /^select t\.id, t\.name from team t/],
  ['filters: templates (exists per one)', /^select tp\.id, tp\.name from template tp/],
  ['filters: integrations (exists)', /as found\s*$/],
];

// ---------------------------------------------------------------------------------------------------------

const bench = await startBenchApi(say);
const db = new pg.Client({ connectionString: bench.infrastructure.databaseUrl });
try {
  const { app, infrastructure, organization } = bench;
  await db.connect();
  const em = infrastructure.orm.em.fork();
  const harness = { ctx: { orm: infrastructure.orm } };

  // The organization of the benchmark: the one startBenchApi made (a published template, API enabled).
  const organizationId = organization.id;
  const user = async (
    role: string,
    fullName: string,
    email: string,
    teamId: string | null,
    org = organizationId,
  ) => {
    const made = await signedInUser(harness, { role, organizationId: org, fullName, email });
    if (teamId) await em.fork().nativeUpdate(AppUser, { id: made.user.id }, { teamId });
    return made;
  };
  const sales = em.create(Team, { id: randomUUID(), organizationId, name: 'Sales' });
  const support = em.create(Team, { id: randomUUID(), organizationId, name: 'Support' });
  await em.flush();
  const owner = await user('owner', 'Olivia Owner', 'olivia.owner@bench-org.example', null);
  const senders: [SignedInUser, string, number][] = [
    [await user('sender', 'Avi Sender', 'avi.sender@bench-org.example', sales.id), sales.id, 0.22],
    [await user('sender', 'Bella Sender', 'bella.sender@bench-org.example', sales.id), sales.id, 0.2],
    [await user('sender', 'Carmel Sender', 'carmel.sender@bench-org.example', sales.id), sales.id, 0.15],
    [await user('sender', 'Dan Sender', 'dan.sender@bench-org.example', support.id), support.id, 0.16],
    [await user('sender', 'Eden Sender', 'eden.sender@bench-org.example', support.id), support.id, 0.12],
  ];
  const bella = senders[1]?.[0] as SignedInUser;
  const pdf = await buildDemoPdf();
  const templateIds = [bench.template.id];
  for (const name of ['Mutual NDA', 'Residential lease', 'Employment offer']) {
    const made = await createTemplate(
      { em: em.fork() },
      {
        organizationId,
        pdf,
        filename: `${name}.pdf`,
        definition: { ...DEMO_TEMPLATE_DEFINITION, name },
        publish: true,
      },
    );
    templateIds.push(made.id);
  }
  const rolesOf = async (ids: string[]) => {
    const { rows } = await db.query(
      'select template_id, name, id from template_role where template_id = any($1::uuid[])',
      [ids],
    );
    const roles = rows as { template_id: string; name: string; id: string }[];
    const role = (template: string, name: string) =>
      roles.find((row) => row.template_id === template && row.name === name)?.id as string;
    return ids.map((id) => ({ id, clientRoleId: role(id, 'Client'), providerRoleId: role(id, 'Provider') }));
  };

  // The second organization: its own owner, its template, the public API; the first one's owner signs some.
  const other = await createOrganizationWithTemplate({ em: em.fork() });
  const otherOwner = await user('owner', 'Oren Other', 'oren@other-org.example', null, other.organization.id);

  const seedStarted = performance.now();
  const main = await seed(db, {
    label: 'organization',
    organizationId,
    count: ENVELOPES,
    senders: [
      { userId: null, teamId: null, share: 0.15 },
      ...senders.map(([sender, teamId, share]) => ({ userId: sender.user.id, teamId, share })),
    ],
    templates: await rolesOf(templateIds),
    insiders: [owner, bella, senders[3]?.[0] as SignedInUser].map((insider) => ({
      fullName: insider.user.fullName,
      email: insider.email,
    })),
    referencePrefix: 'PO',
  });
  const second = await seed(db, {
    label: 'second organization',
    organizationId: other.organization.id,
    count: OTHER_ENVELOPES,
    senders: [
      { userId: null, teamId: null, share: 0.4 },
      { userId: otherOwner.user.id, teamId: null, share: 0.6 },
    ],
    templates: await rolesOf([other.template.id]),
    insiders: [{ fullName: owner.user.fullName, email: owner.email }],
    referencePrefix: 'INV',
  });
  say('VACUUM ANALYZE envelope, recipient…');
  await db.query('vacuum (analyze) envelope, recipient');
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  say(
    `seeded ${thousands(main.envelopes + second.envelopes)} envelopes and ` +
      `${thousands(main.recipients + second.recipients)} recipients in ${seedSeconds.toFixed(1)} s`,
  );

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
  const header = [
    'route'.padEnd(40),
    'who'.padEnd(6),
    'page'.padStart(4),
    'p50'.padStart(9),
    'p99'.padStart(9),
    'max'.padStart(9),
    'n'.padStart(4),
    'req/s'.padStart(8),
    'vs /api/plans'.padStart(13),
    'errors'.padStart(6),
  ];
  out(header.join(' '));
  for (const r of [plans, me, ...results]) {
    out(
      [
        r.label.padEnd(40),
        r.who.padEnd(6),
        (r.page ?? '').padStart(4),
        `${r.p50.toFixed(1)} ms`.padStart(9),
        `${r.p99.toFixed(1)} ms`.padStart(9),
        `${r.max.toFixed(1)} ms`.padStart(9),
        String(r.count).padStart(4),
        r.requestsPerSecond.toFixed(0).padStart(8),
        (r.requestsPerSecond / plans.requestsPerSecond).toFixed(3).padStart(13),
        String(r.errors).padStart(6),
      ].join(' '),
    );
  }
  out(
    '\n(vs /api/plans: requests per second as a share of GET /api/plans, measured the same way in this run)',
  );

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
} finally {
  await db.end().catch(() => {});
  await bench.close();
}

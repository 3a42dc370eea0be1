// `npm run bench:envelope-list`: the public API's list and search of envelopes (GET /api/v1/envelopes, issue 34;
// docs/api.md, "Listing and searching envelopes") with BENCH_ENVELOPES envelopes (default 1,000,000) in one
// organization, on real PostgreSQL, through the API app in production configuration (in-process requests).
// 1. Seeds with the Documents benchmark's seeding (bench/seed-documents.ts: `generate_series`, in chunks of
//    10,000 with progress lines): envelopes over a year in every status, two or three recipients each, titles,
//    references (`ERP-…` with external system `erp` for the public API's, `PO-…` for the app's); and a second
//    organization of BENCH_OTHER_ENVELOPES (default 20,000) sharing the recipients' address space. Then VACUUM
//    ANALYZE. The seeding has no phones: the text query's phone branch is measured on an empty column.
// 2. For each typical query — first page, a page 500,000 envelopes deep by cursor, status filters, text queries,
//    external reference and system, the sort by last change, a created range — times BENCH_REQUESTS requests
//    (default 15, after 2 warm-ups): median and p95 of the whole request, and the median of the list statement
//    alone (caught from MikroORM's query log and run again on its own).
// 3. Prints EXPLAIN (ANALYZE, BUFFERS) of each list statement, and the baseline measured in the same run: the deep
//    page with OFFSET instead of the cursor, and each query that a new index of migration 0040 serves run
//    without that index (dropped inside a transaction that is rolled back).
// Prints tables; asserts nothing. `npm run bench:envelope-list -- --envelopes 200000` is BENCH_ENVELOPES=200000.
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import type pg from 'pg';
import { EnvelopeListQuery, encodeEnvelopeListCursor } from '../domain/envelope-list.ts';
import { listEnvelopes } from '../services/envelopes/list-envelopes.ts';
import { type Explained, explain, queryCatcher } from './route-timing.ts';
import { thousands, withDocumentsBench } from './seed-documents.ts';

const { values: flags } = parseArgs({ options: { envelopes: { type: 'string' } }, strict: true });
const whole = (name: string, fallback: number, given = process.env[name]) => {
  const value = Number(given ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1: ${given}`);
  return value;
};
const ENVELOPES = whole('BENCH_ENVELOPES', 1_000_000, flags.envelopes ?? process.env.BENCH_ENVELOPES);
const OTHER_ENVELOPES = whole('BENCH_OTHER_ENVELOPES', 20_000);
const REQUESTS = whole('BENCH_REQUESTS', 15);
const BASELINE_RUNS = whole('BENCH_BASELINE_RUNS', 5);
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};
const p95 = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.95 * sorted.length) - 1)] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;

interface Case {
  label: string;
  query: string;
  /** Indexes of migration 0040 this query reads: the baseline runs it without them. */
  without?: string[];
  /** The baseline is the same statement with OFFSET (this many rows) instead of the cursor. */
  offsetBaseline?: number;
  /** A text query: the baseline is the statement that collects every match through the trigram indexes. */
  text?: boolean;
}

interface Row {
  label: string;
  query: string;
  items: number;
  more: boolean;
  request: { median: number; p95: number };
  /** The list's statements (a text query may take two: the first look, then the trigram indexes). */
  statements: number;
  statement: number;
  matches: number;
  plan: Explained;
  second?: Explained;
  baseline?: { label: string; statement: number; plan: Explained };
}

/** Runs a statement `runs` times: the median wall time on the client. */
async function timeStatement(db: pg.Client, sql: string, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await db.query(sql);
    times.push(performance.now() - started);
  }
  return median(times);
}

/** The page's selection (the `page` CTE without its order and limit): how many envelopes the query matches. */
async function countMatches(db: pg.Client, sql: string): Promise<number> {
  const inner = /with page as \(\s*([\s\S]*?)\s+order by [^)]*?limit \d+\)/.exec(sql)?.[1];
  if (!inner) return Number.NaN;
  const { rows } = await db.query(`select count(*)::int as n from (${inner}) as q`);
  return (rows[0] as { n: number }).n;
}

const options = { envelopes: ENVELOPES, otherEnvelopes: OTHER_ENVELOPES, say };
await withDocumentsBench(options, async ({ bench, db, seeded }) => {
  const { app, infrastructure } = bench;
  const { organizationId } = seeded;
  const catchQueries = queryCatcher(infrastructure.orm);

  // What the queries look for, from the data.
  const deep = Math.min(500_000, Math.floor(ENVELOPES / 2));
  const { rows: deepRows } = await db.query(
    `select id, to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as key from envelope
      where organization_id = $1 order by created_at desc, id desc offset $2 limit 1`,
    [organizationId, deep - 1],
  );
  const deepRow = deepRows[0] as { id: string; key: string };
  const deepCursor = encodeEnvelopeListCursor({
    sort: 'createdAt',
    order: 'desc',
    key: deepRow.key,
    id: deepRow.id,
  });
  const { rows: named } = await db.query(
    `select r.full_name, r.email from recipient r join envelope e on e.id = r.envelope_id
      where e.organization_id = $1 order by e.created_at desc limit 1`,
    [organizationId],
  );
  const person = named[0] as { full_name: string; email: string };
  const { rows: refs } = await db.query(
    `select external_reference from envelope where organization_id = $1 and external_system = 'erp'
      order by created_at limit 1 offset $2`,
    [organizationId, Math.min(1000, Math.floor(ENVELOPES / 100))],
  );
  const reference = (refs[0] as { external_reference: string }).external_reference;
  const surname = person.full_name.split(' ').at(-1) as string;
  const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString();
  const twoMonthsAgo = new Date(Date.now() - 60 * 86_400_000).toISOString();

  const cases: Case[] = [
    { label: 'first page (createdAt desc)', query: 'limit=20' },
    {
      label: `page ${thousands(deep)} deep, by cursor`,
      query: `limit=20&cursor=${deepCursor}`,
      offsetBaseline: deep,
    },
    { label: 'first page, limit=100', query: 'limit=100' },
    { label: 'status=InProgress', query: 'status=InProgress' },
    { label: 'status=Sent,Opened,InProgress', query: 'status=Sent,Opened,InProgress' },
    { label: 'status=Expired (rare)', query: 'status=Expired' },
    { label: 'sort=updatedAt', query: 'sort=updatedAt', without: ['envelope_list_updated_idx'] },
    {
      label: 'sort=updatedAt&order=asc',
      query: 'sort=updatedAt&order=asc',
      without: ['envelope_list_updated_idx'],
    },
    {
      label: 'externalReference (one)',
      query: `externalReference=${encodeURIComponent(reference)}`,
      without: ['envelope_list_reference_idx'],
    },
    {
      label: 'externalSystem=erp',
      query: 'externalSystem=erp',
      without: ['envelope_list_system_idx'],
    },
    { label: 'created in a 30-day range', query: `createdFrom=${twoMonthsAgo}&createdTo=${monthAgo}` },
    {
      label: `q=${surname} (a surname)`,
      query: `q=${encodeURIComponent(surname)}`,
      text: true,
    },
    {
      label: 'q=<an email address>',
      query: `q=${encodeURIComponent(person.email)}`,
      text: true,
    },
    { label: 'q=lease (a title word)', query: 'q=lease', text: true },
    { label: 'q=zzqx (no match)', query: 'q=zzqx', text: true },
    {
      label: `q=${person.full_name.split(' ')[0]?.slice(0, 3) ?? 'ana'} (a part of first names)`,
      query: `q=${encodeURIComponent(person.full_name.split(' ')[0]?.slice(0, 3) ?? 'ana')}`,
      text: true,
    },
  ];

  const get = (query: string) =>
    app.inject({ method: 'GET', url: `/api/v1/envelopes?${query}`, headers: bench.auth });

  /** The statement the list runs for a text query without its first look (`walk: 0`). */
  const trigramStatement = async (query: string) => {
    const parsed = EnvelopeListQuery.parse(Object.fromEntries(new URLSearchParams(query)));
    const sqls = await catchQueries(async () => {
      await listEnvelopes({ em: infrastructure.orm.em.fork() }, organizationId, parsed, { walk: 0 });
    });
    const found = sqls.find((statement) => /^\s*with page as/.test(statement));
    if (!found) throw new Error(`${query}: the trigram statement was not caught`);
    return found;
  };

  const rows: Row[] = [];
  for (const c of cases) {
    say(`${c.label}: 2 + ${REQUESTS} requests…`);
    const answers: Awaited<ReturnType<typeof get>>[] = [];
    const caught = await catchQueries(async () => {
      answers.push(await get(c.query));
    });
    const first = answers[0];
    if (first?.statusCode !== 200) throw new Error(`${c.label}: ${first?.statusCode} ${first?.body}`);
    const page = first.json() as { items: unknown[]; nextCursor: string | null };
    await get(c.query);
    const times: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      const response = await get(c.query);
      times.push(performance.now() - started);
      if (response.statusCode !== 200) throw new Error(`${c.label}: ${response.statusCode}`);
    }
    const listed = caught.filter((statement) => /^\s*with (walk|page) as/.test(statement));
    const [sql, secondSql] = listed;
    if (!sql) throw new Error(`${c.label}: the list statement was not caught`);
    // The text query's baseline: the statement that collects every match through the trigram indexes (the
    // service without its first look), which also counts the matches.
    const trigramSql = c.text ? await trigramStatement(c.query) : undefined;
    let statementTime = await timeStatement(db, sql, REQUESTS);
    if (secondSql) statementTime += await timeStatement(db, secondSql, REQUESTS);
    const row: Row = {
      label: c.label,
      query: c.query,
      items: page.items.length,
      more: page.nextCursor !== null,
      request: { median: median(times), p95: p95(times) },
      statements: listed.length,
      statement: statementTime,
      matches: await countMatches(db, trigramSql ?? sql),
      plan: await explain(db, c.label, 'api', sql, false),
      second: secondSql ? await explain(db, `${c.label} (second)`, 'api', secondSql, false) : undefined,
    };
    if (trigramSql) {
      say(`${c.label}: baseline with the trigram indexes alone, ${BASELINE_RUNS} runs…`);
      row.baseline = {
        label: 'the trigram indexes alone',
        statement: await timeStatement(db, trigramSql, BASELINE_RUNS),
        plan: await explain(db, `${c.label} (baseline)`, 'api', trigramSql, false),
      };
    }
    if (c.offsetBaseline) {
      // The same first-page statement, the page chosen by OFFSET instead of the cursor.
      const firstSql = (
        await catchQueries(async () => {
          await get('limit=20');
        })
      ).find((statement) => /^\s*with page as/.test(statement)) as string;
      const offsetSql = firstSql.replace(/limit (\d+)\)/, `limit $1 offset ${c.offsetBaseline})`);
      say(`${c.label}: baseline with OFFSET ${thousands(c.offsetBaseline)}, ${BASELINE_RUNS} runs…`);
      row.baseline = {
        label: `OFFSET ${thousands(c.offsetBaseline)}`,
        statement: await timeStatement(db, offsetSql, BASELINE_RUNS),
        plan: await explain(db, `${c.label} (OFFSET)`, 'api', offsetSql, false),
      };
    } else if (c.without) {
      say(`${c.label}: baseline without ${c.without.join(', ')}, ${BASELINE_RUNS} runs…`);
      await db.query('begin');
      try {
        for (const index of c.without) await db.query(`drop index if exists ${index}`);
        row.baseline = {
          label: `without ${c.without.join(', ')}`,
          statement: await timeStatement(db, sql, BASELINE_RUNS),
          plan: await explain(db, `${c.label} (baseline)`, 'api', sql, false),
        };
      } finally {
        await db.query('rollback');
      }
    }
    rows.push(row);
  }

  out();
  out(
    `GET /api/v1/envelopes — ${thousands(seeded.main.envelopes)} envelopes (${thousands(seeded.main.recipients)} recipients) ` +
      `in the organization, ${thousands(seeded.second.envelopes)} in another; seeded in ${seeded.seedSeconds.toFixed(0)} s`,
  );
  out(
    `machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(
        ' ',
      )}; ${REQUESTS} requests per query (median of the statement alone over as many runs), baseline ${BASELINE_RUNS} runs`,
  );
  out();
  out(
    '| query | matches | page | request p50 / p95 | statements | statement p50 | indexes read | baseline | baseline statement p50 |',
  );
  out('|---|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    out(
      `| ${row.label} | ${thousands(row.matches)} | ${row.items}${row.more ? '+' : ''} | ${ms(row.request.median)} / ${ms(row.request.p95)} | ${row.statements} | ${ms(row.statement)} | ${[...new Set([...row.plan.indexes, ...(row.second?.indexes ?? [])])].join(', ') || '—'}${row.plan.seqScans.length ? ` (seq scan: ${row.plan.seqScans.join(', ')})` : ''} | ${row.baseline ? row.baseline.label : '—'} | ${row.baseline ? `${ms(row.baseline.statement)} (${row.baseline.plan.indexes.join(', ') || '—'}${row.baseline.plan.seqScans.length ? `; seq scan: ${row.baseline.plan.seqScans.join(', ')}` : ''})` : '—'} |`,
    );
  }
  out();
  for (const row of rows) {
    out(`EXPLAIN (ANALYZE, BUFFERS) — ${row.label} (\`${row.query.replace(deepCursor, '<cursor>')}\`):`);
    out(
      `  execution ${row.plan.execution.toFixed(3)} ms, planning ${row.plan.planning.toFixed(3)} ms, buffers hit ${row.plan.hit}, read ${row.plan.read}`,
    );
    for (const line of row.plan.tree) out(line);
    if (row.second) {
      out(
        `  then — execution ${row.second.execution.toFixed(3)} ms, buffers hit ${row.second.hit}, read ${row.second.read}`,
      );
      for (const line of row.second.tree) out(line);
    }
    if (row.baseline) {
      out(`  baseline — ${row.baseline.label}:`);
      out(
        `  execution ${row.baseline.plan.execution.toFixed(3)} ms, buffers hit ${row.baseline.plan.hit}, read ${row.baseline.plan.read}`,
      );
      for (const line of row.baseline.plan.tree) out(line);
    }
    out();
  }
});

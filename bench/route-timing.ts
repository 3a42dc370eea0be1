// Timing a route of the API app over HTTP (p50, p99, requests per second) and explaining the SQL it sent
// (MikroORM's query log, then EXPLAIN (ANALYZE, BUFFERS)) and printing the table of timings: shared by
// bench/documents.ts and bench/reports.ts.
import type { LogContext } from '@mikro-orm/core';
import type pg from 'pg';
import type { Orm } from '../db/orm.ts';

export interface Measured {
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

export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;

export interface MeasureOptions {
  /** Requests measured per route (fewer when routeSeconds ran out). */
  requests: number;
  warmup: number;
  concurrency: number;
  /** A route stops early after this many seconds of measuring (a slow one on a busy machine). */
  routeSeconds: number;
  say: (line: string) => void;
}

export async function measure(
  {
    requests: REQUESTS,
    warmup: WARMUP,
    concurrency: CONCURRENCY,
    routeSeconds: ROUTE_SECONDS,
    say,
  }: MeasureOptions,
  base: string,
  label: string,
  who: string,
  path: string,
  cookie?: string,
): Promise<Measured> {
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

export function queryCatcher(orm: Orm) {
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

export interface Explained {
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

export async function explain(
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

/** How a timing table prints its figures: column widths and digits (each benchmark's figures differ in size). */
export interface TimingTableFormat {
  labelWidth: number;
  msWidth: number;
  rateDigits: number;
  rateWidth: number;
  shareDigits: number;
  /** A column after `who`: its heading, width and cell (right-aligned). */
  extra?: { head: string; width: number; cell: (r: Measured) => string };
}

/**
 * The lines of a timing table: route, who, p50, p99, max, count, requests per second and their share of the
 * baseline's (GET /api/plans, measured the same way in the run), errors; then the note saying what the share is.
 */
export function timingTable(rows: Measured[], baseline: Measured, format: TimingTableFormat): string[] {
  const { labelWidth, msWidth, extra } = format;
  const ms = (value: number) => `${value.toFixed(1)} ms`.padStart(msWidth);
  const line = (cells: string[]) => cells.join(' ');
  const head = line([
    'route'.padEnd(labelWidth),
    'who'.padEnd(6),
    ...(extra ? [extra.head.padStart(extra.width)] : []),
    'p50'.padStart(msWidth),
    'p99'.padStart(msWidth),
    'max'.padStart(msWidth),
    'n'.padStart(4),
    'req/s'.padStart(format.rateWidth),
    'vs /api/plans'.padStart(13),
    'errors'.padStart(6),
  ]);
  const body = rows.map((r) =>
    line([
      r.label.padEnd(labelWidth),
      r.who.padEnd(6),
      ...(extra ? [extra.cell(r).padStart(extra.width)] : []),
      ms(r.p50),
      ms(r.p99),
      ms(r.max),
      String(r.count).padStart(4),
      r.requestsPerSecond.toFixed(format.rateDigits).padStart(format.rateWidth),
      (r.requestsPerSecond / baseline.requestsPerSecond).toFixed(format.shareDigits).padStart(13),
      String(r.errors).padStart(6),
    ]),
  );
  return [
    head,
    ...body,
    '\n(vs /api/plans: requests per second as a share of GET /api/plans, measured the same way in this run)',
  ];
}

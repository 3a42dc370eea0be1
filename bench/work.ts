// `npm run bench:work`: the work one envelope costs, from create to Completed (issue 19, "Count the work"). A
// two-signer Sequential envelope goes through /api/v1 and the signer API (bench/envelope-runs.ts) on real
// PostgreSQL, Temporal and the worker, BENCH_ENVELOPES (default 5) of them one after the other after a warm-up,
// and per envelope (the mean) the benchmark prints:
// - Temporal: the history events, workflow tasks, activity tasks (by activity type), local activities, timers
//   and child workflows of the envelope's workflow, and the same summed over its children (webhook deliveries);
// - PostgreSQL: the statements the API and the worker sent (caught from MikroORM's query log; both run in this
//   process on one ORM), and the transactions committed and rows written by the database (pg_stat_database);
// - CPU time of each process: this one (API, worker, activities), PostgreSQL's and the Temporal dev server's
//   (from /proc, the descendants of this process only).
// Prints tables; asserts nothing.
import { setTimeout as sleep } from 'node:timers/promises';
import proto from '@temporalio/proto';
import { envelopeWorkflowId } from '../workflows/contracts.ts';
import { envelopeRuns, strokePng } from './envelope-runs.ts';
import { processTree, serverKind } from './process-cpu.ts';
import { queryCatcher } from './route-timing.ts';
import { startBenchApi } from './support.ts';

const ENVELOPES = Number(process.env.BENCH_ENVELOPES ?? 5);
/** BENCH_PRINT_HISTORY=1 also prints the last envelope's history, one event a line (what each task was for). */
const PRINT_HISTORY = process.env.BENCH_PRINT_HISTORY === '1';
/**
 * BENCH_PRINT_STATEMENTS=1 also prints the last envelope's statements by shape (values replaced by `$`), the
 * most frequent first: which reads and writes repeat.
 */
const PRINT_STATEMENTS = process.env.BENCH_PRINT_STATEMENTS === '1';
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
const { EventType } = proto.temporal.api.enums.v1;

/** CPU seconds (user + system) of this process's descendants and itself, by kind, from /proc. */
async function cpuByProcess(): Promise<Record<string, number>> {
  const byKind: Record<string, number> = {};
  for (const entry of await processTree()) {
    const kind =
      entry.pid === process.pid
        ? 'this process (API, worker, activities)'
        : (serverKind(entry.name) ?? `other (${entry.name})`);
    byKind[kind] = (byKind[kind] ?? 0) + entry.cpu + entry.reaped;
  }
  return byKind;
}

interface WorkflowCounts {
  events: number;
  workflowTasks: number;
  activities: Record<string, number>;
  /** Local activities: run inside a workflow task, recorded as a marker (no activity task of their own). */
  localActivities: number;
  timers: number;
  children: number;
}

const EMPTY = (): WorkflowCounts => ({
  events: 0,
  workflowTasks: 0,
  activities: {},
  localActivities: 0,
  timers: 0,
  children: 0,
});

function add(into: WorkflowCounts, from: WorkflowCounts): void {
  into.events += from.events;
  into.workflowTasks += from.workflowTasks;
  into.localActivities += from.localActivities;
  into.timers += from.timers;
  into.children += from.children;
  for (const [type, count] of Object.entries(from.activities)) {
    into.activities[type] = (into.activities[type] ?? 0) + count;
  }
}

const bench = await startBenchApi(say);
const { infrastructure } = bench;
const client = bench.temporal.client;

/** A workflow's history counted; its children (webhook deliveries) counted into `childTotals`. */
async function countWorkflow(workflowId: string, childTotals: WorkflowCounts): Promise<WorkflowCounts> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const events: HistoryEvent[] = history.events ?? [];
  const counts = EMPTY();
  counts.events = events.length;
  for (const event of events) {
    switch (event.eventType) {
      case EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        counts.workflowTasks += 1;
        break;
      case EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const type = event.activityTaskScheduledEventAttributes?.activityType?.name ?? '?';
        counts.activities[type] = (counts.activities[type] ?? 0) + 1;
        break;
      }
      case EventType.EVENT_TYPE_MARKER_RECORDED:
        if (event.markerRecordedEventAttributes?.markerName === 'core_local_activity')
          counts.localActivities += 1;
        break;
      case EventType.EVENT_TYPE_TIMER_STARTED:
        counts.timers += 1;
        break;
      case EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED: {
        counts.children += 1;
        const childId = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
        if (childId) {
          const child = await client.workflow.getHandle(childId);
          await child.result().catch(() => undefined);
          add(childTotals, await countWorkflow(childId, childTotals));
        }
        break;
      }
    }
  }
  return counts;
}

/** The statements by shape: string, number and uuid literals become `$`; the most frequent first. */
function printStatementShapes(sent: string[]): void {
  const shapes = new Map<string, number>();
  for (const statement of sent) {
    const shape = statement
      .replace(/'(?:[^']|'')*'/g, '$')
      .replace(/\b\d+(\.\d+)?\b/g, '$')
      .replace(/\s+/g, ' ')
      .trim()
      .slice(0, 150);
    shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
  }
  out(`Statements of the last envelope (${sent.length}), by shape:`);
  for (const [shape, count] of [...shapes].sort((a, b) => b[1] - a[1])) {
    out(`  ${String(count).padStart(3)} ${shape}`);
  }
}

/** One line per event: its id, type and what it names (activity type, timer, Update, marker). */
async function printHistory(workflowId: string): Promise<void> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  out(`History of ${workflowId}:`);
  for (const event of history.events ?? []) {
    const type = EventType[event.eventType ?? 0]?.replace('EVENT_TYPE_', '') ?? '?';
    const detail =
      event.activityTaskScheduledEventAttributes?.activityType?.name ??
      event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name ??
      event.markerRecordedEventAttributes?.markerName ??
      event.timerStartedEventAttributes?.startToFireTimeout?.seconds?.toString() ??
      event.workflowExecutionSignaledEventAttributes?.signalName ??
      '';
    out(`  ${String(event.eventId).padStart(4)} ${type} ${detail}`);
  }
}

async function databaseCounters(): Promise<{ commits: number; rowsWritten: number }> {
  // The statistics of other sessions reach pg_stat_database within about a second.
  await sleep(1_500);
  const [row] = await infrastructure.orm.em.fork().execute<{ commits: string; written: string }[]>(
    `select xact_commit as commits, tup_inserted + tup_updated + tup_deleted as written
       from pg_stat_database where datname = current_database()`,
  );
  return { commits: Number(row?.commits ?? 0), rowsWritten: Number(row?.written ?? 0) };
}

try {
  const { lifecycle } = envelopeRuns(bench, strokePng());
  const catchQueries = queryCatcher(infrastructure.orm);
  say('warm-up: one envelope through the whole lifecycle…');
  await lifecycle('Work warm-up');

  const own = EMPTY();
  const children = EMPTY();
  let statements = 0;
  const statementKinds: Record<string, number> = {};
  const cpuBefore = await cpuByProcess();
  const dbBefore = await databaseCounters();
  const ids: string[] = [];
  let lastSent: string[] = [];
  for (let index = 0; index < ENVELOPES; index += 1) {
    say(`envelope ${index + 1}/${ENVELOPES}…`);
    const sent = await catchQueries(async () => {
      ids.push((await lifecycle(`Work envelope ${index + 1}`)).id);
    });
    statements += sent.length;
    lastSent = sent;
    for (const statement of sent) {
      const verb = (statement.trim().split(/\s+/)[0] ?? '?').toLowerCase();
      statementKinds[verb] = (statementKinds[verb] ?? 0) + 1;
    }
  }
  const dbAfter = await databaseCounters();
  const cpuAfter = await cpuByProcess();
  for (const id of ids) add(own, await countWorkflow(envelopeWorkflowId(id), children));
  if (PRINT_HISTORY && ids.length > 0) await printHistory(envelopeWorkflowId(ids.at(-1) as string));
  if (PRINT_STATEMENTS) printStatementShapes(lastSent);

  const each = (value: number) => (value / ENVELOPES).toFixed(1);
  out();
  out(`Work per envelope: two-signer Sequential, create → Completed, mean of ${ENVELOPES} (after a warm-up)`);
  out();
  out('Temporal                                envelope workflow   its children (webhook deliveries)');
  const row = (label: string, a: number, b: number) =>
    out(`${label.padEnd(40)}${each(a).padStart(18)}${each(b).padStart(36)}`);
  row('history events', own.events, children.events);
  row('workflow tasks', own.workflowTasks, children.workflowTasks);
  row('activity tasks', sum(own.activities), sum(children.activities));
  for (const type of [
    ...new Set([...Object.keys(own.activities), ...Object.keys(children.activities)]),
  ].sort()) {
    row(`  ${type}`, own.activities[type] ?? 0, children.activities[type] ?? 0);
  }
  row('local activities (in a workflow task)', own.localActivities, children.localActivities);
  row('timers', own.timers, children.timers);
  row('child workflows', own.children, children.children);
  out();
  out('PostgreSQL');
  out(`${'statements sent (API + worker)'.padEnd(40)}${each(statements).padStart(18)}`);
  for (const [verb, count] of Object.entries(statementKinds).sort((a, b) => b[1] - a[1])) {
    out(`${`  ${verb}`.padEnd(40)}${each(count).padStart(18)}`);
  }
  out(
    `${'transactions committed (server)'.padEnd(40)}${each(dbAfter.commits - dbBefore.commits).padStart(18)}`,
  );
  out(
    `${'rows written (server)'.padEnd(40)}${each(dbAfter.rowsWritten - dbBefore.rowsWritten).padStart(18)}`,
  );
  out();
  out('CPU time (user + system)');
  for (const kind of Object.keys({ ...cpuBefore, ...cpuAfter }).sort()) {
    const used = (cpuAfter[kind] ?? 0) - (cpuBefore[kind] ?? 0);
    out(`${kind.padEnd(40)}${`${((used / ENVELOPES) * 1000).toFixed(0)} ms`.padStart(18)}`);
  }
  out();
  out('(the transactions and CPU include the statistics reads and the pauses of the measurement itself; the');
  out(' Temporal dev server serves this run only)');
} finally {
  await bench.close();
}

function sum(record: Record<string, number>): number {
  return Object.values(record).reduce((total, value) => total + value, 0);
}

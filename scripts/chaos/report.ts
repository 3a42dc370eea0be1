// The chaos run's summary: what was done, how long each kind of fault took to recover from, and every
// invariant with its verdict.
import { textTable } from '../text-table.ts';
import { FAULT_KINDS, FAULT_LABELS, type FaultKind } from './faults.ts';
import type { ChaosReport, RecoveryFigure } from './run.ts';

const s = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? '—' : `${(ms / 1000).toFixed(1)}`;

function spread(values: (number | null | undefined)[]): string {
  const known = values.filter((v): v is number => typeof v === 'number').sort((a, b) => a - b);
  if (known.length === 0) return '—';
  const median = known[Math.floor((known.length - 1) / 2)] as number;
  const max = known[known.length - 1] as number;
  return known.length === 1 ? s(median) : `${s(median)} / ${s(max)}`;
}

const REQUEST_COLUMNS = ['create', 'send', 'link', 'view', 'save', 'complete'] as const;

export function formatReport(report: ChaosReport): string {
  const out: string[] = [];
  const { options } = report;
  const count = (kind: FaultKind) => report.faults.filter((f) => f.kind === kind).length;
  out.push('════════════════════════════════════════════════════════════════════════');
  out.push(`Chaos run ${report.runId}: ${report.ok ? 'every invariant holds' : 'INVARIANTS VIOLATED'}`);
  out.push('────────────────────────────────────────────────────────────────────────');
  out.push(
    `envelopes     ${options.envelopes} two-signer Sequential envelopes, ${options.concurrency} at a time, seed ${options.seed}`,
  );
  out.push(
    `time          ${s(report.durationMs)} s in all: ${s(report.driveMs)} s driving, ${s(report.settleMs)} s settling (finalization, webhooks, workflows ending)`,
  );
  if (report.unsettled.length > 0) {
    out.push(
      `              not settled when the wait ran out: still waiting for ${report.unsettled.join(', ')}`,
    );
  }
  out.push(
    `faults        ${FAULT_KINDS.map((kind) => `${FAULT_LABELS[kind]} ×${count(kind)}`).join(', ')} (outages of ${s(options.outageMs)} s)`,
  );
  const restarts = report.faults.length + report.unplannedExits.length;
  out.push(
    `restarts      ${restarts} (${report.faults.length} after a fault, ${report.unplannedExits.length} after a part exited by itself)`,
  );
  for (const exit of report.unplannedExits) {
    out.push(
      `              ${exit.part} exited by itself (${exit.detail ?? '?'}) at +${s(exit.at - (report.faults[0]?.at ?? exit.at))} s after the first fault`,
    );
  }
  out.push(
    `requests      ${report.attempts.total} attempts, ${report.attempts.retried} answered or failed in a way that was retried; slowest ${s(report.attempts.slowestMs)} s`,
  );
  const byKind = new Map<string, string[]>();
  for (const [label, n] of Object.entries(report.attempts.byOutcome).sort((a, b) => b[1] - a[1])) {
    const [kind = '', outcome = ''] = label.split(': ');
    byKind.set(kind, [...(byKind.get(kind) ?? []), `${outcome} ×${n}`]);
  }
  for (const [kind, outcomes] of byKind)
    out.push(`              ${`${kind}:`.padEnd(10)}${outcomes.join(', ')}`);
  out.push(
    `webhooks      ${report.webhooks.requests} requests for ${report.webhooks.deliveries} deliveries of ${report.webhooks.events} events; refused on purpose ${report.webhooks.refused}, dropped unanswered on purpose ${report.webhooks.dropped}, ${report.webhooks.repeats} repeats of a delivery id`,
  );
  out.push('');
  out.push('Recovery, seconds after the fault (median / max over the faults of each kind):');
  out.push(
    '  back: the part ready again; then the first successful request of each kind, the first audit event',
  );
  out.push(
    '  recorded (workflow progress) and the first webhook delivery received, after the fault; slowest: the',
  );
  out.push('  longest request attempt that ended between the fault and the next one (what a caller waited)');
  out.push(...recoveryTable(report.recovery, FAULT_KINDS, FAULT_LABELS));
  out.push(...slowestRequestLines(report));
  out.push(...workflowTaskLines(report));
  out.push('');
  out.push('Invariants:');
  for (const invariant of report.invariants) {
    out.push(`  ${invariant.ok ? 'ok  ' : 'FAIL'}  ${invariant.name} (${invariant.summary})`);
    for (const problem of invariant.problems) out.push(`          - ${problem}`);
  }
  const failed = report.invariants.filter((i) => !i.ok);
  if (failed.length > 0) {
    out.push('');
    out.push(`Violated: ${failed.map((i) => i.name).join('; ')}`);
  }
  if (report.kept) out.push(`Data and logs kept in ${report.dataDir} (logs/api.log, logs/worker.log, …)`);
  out.push('════════════════════════════════════════════════════════════════════════');
  return out.join('\n');
}

/** The slowest request per fault kind, with which request it was, next to the slowest before any fault. */
export function slowestRequestLines<Kind extends string = FaultKind>(
  report: {
    recovery: readonly RecoveryFigure<Kind>[];
    attempts: Pick<ChaosReport['attempts'], 'slowestBeforeFaultsMs'>;
  },
  kinds: readonly Kind[] = FAULT_KINDS as readonly string[] as readonly Kind[],
  labels: Record<Kind, string> = FAULT_LABELS as Record<string, string>,
): string[] {
  const out = [
    `  slowest request before the first fault: ${s(report.attempts.slowestBeforeFaultsMs)} s; after each kind of fault:`,
  ];
  for (const kind of kinds) {
    const slowest = report.recovery
      .filter((r) => r.fault.kind === kind)
      .map((r) => r.slowestRequest)
      .filter((r): r is NonNullable<RecoveryFigure['slowestRequest']> => r !== null)
      .sort((a, b) => b.ms - a.ms)[0];
    if (!slowest) continue;
    out.push(
      `    ${labels[kind]}: ${s(slowest.ms)} s (${slowest.kind}, ${slowest.status === null ? 'no answer' : `answered ${slowest.status}`})`,
    );
  }
  return out;
}

/** The envelope workflows' workflow tasks: how long they took, how many timed out, the timeout they ran with. */
export function workflowTaskLines(report: Pick<ChaosReport, 'workflowTasks'>): string[] {
  const w = report.workflowTasks;
  const timeouts = w.workflowTaskTimeoutMs.map((ms) => `${s(ms)} s`).join(', ') || '—';
  return [
    `  workflow tasks: ${w.completed} completed, start to close ${s(w.p50Ms)} s median, ${s(w.p99Ms)} s p99, ${s(w.maxMs)} s slowest (${(w.maxMs ?? 0).toLocaleString('en')} ms);`,
    `    timed out: ${w.startToCloseTimeouts} held by a dead worker (start to close), ${w.scheduleToStartTimeouts} on a dead worker's sticky queue; workflow task timeout ${timeouts}${w.unreadable.length ? `; ${w.unreadable.length} histories unreadable` : ''}`,
  ];
}

/** The recovery table: per fault kind, the part back, each request kind's first success, workflows, webhooks. */
export function recoveryTable<Kind extends string>(
  recovery: readonly RecoveryFigure<Kind>[],
  kinds: readonly Kind[],
  labels: Record<Kind, string>,
): string[] {
  const rows = kinds.flatMap((kind) => {
    const figures = recovery.filter((r) => r.fault.kind === kind);
    if (figures.length === 0) return [];
    const pick = (get: (r: RecoveryFigure<Kind>) => number | null | undefined) => spread(figures.map(get));
    return [
      [
        `${labels[kind]} ×${figures.length}`,
        pick((r) => r.back),
        ...REQUEST_COLUMNS.map((column) => pick((r) => r.firstSuccess[column])),
        pick((r) => r.workflowProgress),
        pick((r) => r.webhook),
        pick((r) => r.slowestRequest?.ms),
      ],
    ];
  });
  return textTable(['fault', 'back', ...REQUEST_COLUMNS, 'workflow', 'webhook', 'slowest'], rows).map(
    (line) => `  ${line}`,
  );
}

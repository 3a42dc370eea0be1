// The daily orphan sweep, started by the Temporal Schedule `sigil-object-sweep` (temporal/object-sweep-schedule.ts):
// first the registered objects no stored file that is not purged references and that no put touched within the
// grace period, then the objects in the PostgreSQL store and in S3 that have no registry row and are older than
// the grace period (a put that died between its bytes and its row). Page by page in key order; what is due is
// decided against the run's own clock, fixed when it begins. Its result: objects checked, deleted, bytes freed.
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import {
  DEFAULT_OBJECT_SWEEP_GRACE_HOURS,
  OBJECT_SWEEP_PAGE_SIZE,
  type ObjectSweepInput,
  type ObjectSweepPhase,
  type ObjectSweepSummary,
} from './object-sweep-contracts.ts';

const { sweepObjectsPage } = proxyActivities<Activities>({
  // A page is at most OBJECT_SWEEP_PAGE_SIZE short transactions and deletes; the heartbeat notices a dead worker.
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '30 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

const HOUR_MS = 60 * 60 * 1000;
const PHASES: ObjectSweepPhase[] = ['registry', 'postgres', 's3'];

export async function objectSweepWorkflow(input: ObjectSweepInput = {}): Promise<ObjectSweepSummary> {
  // Workflow time: the same on replay, and the skipped time under the time-skipping test server.
  const asOf = input.asOf ?? new Date().toISOString();
  const graceHours = input.graceHours ?? DEFAULT_OBJECT_SWEEP_GRACE_HOURS;
  const before = new Date(Date.parse(asOf) - graceHours * HOUR_MS).toISOString();
  const totals = { checked: 0, deleted: 0, strays: 0, bytesFreed: 0, ...input.totals };
  let phase: ObjectSweepPhase | undefined = input.phase ?? 'registry';
  let after = input.after ?? null;
  while (phase) {
    const page = await sweepObjectsPage({ phase, before, after, limit: OBJECT_SWEEP_PAGE_SIZE });
    totals.checked += page.checked;
    totals.deleted += page.deleted;
    totals.bytesFreed += page.bytesFreed;
    if (phase !== 'registry') totals.strays += page.deleted;
    after = page.next;
    if (after === null) phase = PHASES[PHASES.indexOf(phase) + 1];
    if (phase && workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof objectSweepWorkflow>({ graceHours, asOf, phase, after, totals });
    }
  }
  return { asOf, graceHours, ...totals };
}

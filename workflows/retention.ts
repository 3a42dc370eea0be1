// The daily retention run, started by the Temporal Schedule `sigil-retention` (temporal/retention-schedule.ts):
// first it deletes the envelopes past their organization's retention for finished documents, then it purges
// the files of envelopes deleted longer ago than the organization's `retention.deletedDays`, and last it purges
// the data of organizations a platform administrator deleted 30 days ago or more. The phases go
// page by page in envelope id order; each activity call does one page, an envelope per transaction, and
// heartbeats its progress, so a worker that dies mid-page is replaced within the heartbeat timeout and the
// retry continues after the last envelope it finished. What is due is decided against the run's own clock,
// fixed when it begins. A second run finds nothing the first one did: every change is recorded on the
// envelope in the transaction that makes it.
import { continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import {
  RETENTION_PAGE_SIZE,
  type RetentionInput,
  type RetentionPhase,
  type RetentionSummary,
} from './retention-contracts.ts';

const { deleteEnvelopesPastRetention, purgeDeletedEnvelopeFiles, purgeDeletedOrganizations } =
  proxyActivities<Activities>({
    // A page is at most RETENTION_PAGE_SIZE short transactions; the heartbeat notices a dead worker.
    startToCloseTimeout: '15 minutes',
    heartbeatTimeout: '30 seconds',
    // A database outage delays the run; the Schedule skips the next day's start while this one still runs.
    retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
  });

export async function retentionWorkflow(input: RetentionInput = {}): Promise<RetentionSummary> {
  // Workflow time: the same on replay, and the skipped time under the time-skipping test server.
  const asOf = input.asOf ?? new Date().toISOString();
  const totals = { deleted: 0, purged: 0, files: 0, organizations: 0, ...input.totals };
  let phase: RetentionPhase = input.phase ?? 'delete';
  let after = input.after ?? null;
  while (true) {
    const request = { asOf, after, limit: RETENTION_PAGE_SIZE };
    if (phase === 'delete') {
      const page = await deleteEnvelopesPastRetention(request);
      totals.deleted += page.changed;
      after = page.next;
      if (after === null) phase = 'purge';
    } else if (phase === 'purge') {
      const page = await purgeDeletedEnvelopeFiles(request);
      totals.purged += page.changed;
      totals.files += page.files;
      after = page.next;
      if (after === null) phase = 'organizations';
    } else {
      const page = await purgeDeletedOrganizations(request);
      totals.organizations += page.changed;
      totals.files += page.files;
      after = page.next;
      if (after === null) break;
    }
    if (workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof retentionWorkflow>({ asOf, phase, after, totals });
    }
  }
  return { asOf, ...totals };
}

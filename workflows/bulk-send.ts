// A bulk send (docs/bulk-send.md): the rows of a CSV file, already checked and stored, sent page by page — one
// envelope per row — by the activity sendBulkSendRows, which records each row's envelope in the transaction
// that creates it and marks the row Sent once the envelope's workflow has started. A worker that dies mid-page
// is replaced within the heartbeat timeout and the retry takes the rows still Pending or Created, so no row is
// sent twice and none is lost. The Web UI shows the progress as the workflow's current details; the
// `progress` Query answers it; the `cancelBulkSend` Signal stops the run after the rows in flight.
import {
  continueAsNew,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import {
  BULK_SEND_CONCURRENCY,
  BULK_SEND_PAGE_SIZE,
  type BulkSendInput,
  type BulkSendProgress,
  bulkSendProgressQuery,
  cancelBulkSendSignal,
} from './bulk-send-contracts.ts';

const { sendBulkSendRows, finishBulkSend } = proxyActivities<Activities>({
  // A page is at most BULK_SEND_PAGE_SIZE rows; the heartbeat after each row notices a dead worker.
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '30 seconds',
  // A database or Temporal outage delays the run; it continues where it was.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function bulkSendWorkflow(input: BulkSendInput): Promise<BulkSendProgress> {
  const progress: BulkSendProgress = input.progress ?? {
    total: input.total,
    sent: 0,
    failed: 0,
    skipped: 0,
    cancelled: false,
  };
  setHandler(bulkSendProgressQuery, () => ({ ...progress }));
  setHandler(cancelBulkSendSignal, () => {
    progress.cancelled = true;
  });
  const show = (state: string) =>
    setCurrentDetails(
      `**${state}**: ${progress.sent + progress.failed + progress.skipped} of ${progress.total} rows done — ` +
        `${progress.sent} sent, ${progress.failed} failed${progress.skipped ? `, ${progress.skipped} skipped` : ''}.`,
    );
  while (!progress.cancelled) {
    show('Sending');
    const page = await sendBulkSendRows({
      bulkSendId: input.bulkSendId,
      limit: BULK_SEND_PAGE_SIZE,
      concurrency: BULK_SEND_CONCURRENCY,
    });
    progress.sent += page.sent;
    progress.failed += page.failed;
    if (page.remaining === 0) break;
    if (workflowInfo().continueAsNewSuggested) {
      // A cancel received so far is in `progress` (its handler is synchronous), which the next run carries.
      await continueAsNew<typeof bulkSendWorkflow>({ ...input, progress });
    }
  }
  const final = await finishBulkSend({ bulkSendId: input.bulkSendId, cancelled: progress.cancelled });
  progress.skipped = final.skipped;
  show(progress.cancelled ? 'Cancelled' : 'Completed');
  return { ...progress };
}

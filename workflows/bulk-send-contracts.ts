// The bulk-send workflow's contract (docs/bulk-send.md): its id, input, progress, the page its activity sends,
// the cancel Signal and the progress Query. Shared by the workflow, its activities (activities/bulk-send.ts)
// and the API that starts, watches and cancels it.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import { ENVELOPE_TASK_QUEUE } from './contracts.ts';

export const BULK_SEND_WORKFLOW_TYPE = 'bulkSendWorkflow';
/** The bulk-send workflow's signature (workflows/bulk-send.ts): what a start by type name is typed with. */
export type BulkSendWorkflow = (input: BulkSendInput) => Promise<BulkSendProgress>;
/** On the envelope workers: its activities create and send envelopes. */
export const BULK_SEND_TASK_QUEUE = ENVELOPE_TASK_QUEUE;
/** Rows one activity call sends: each call is a few history events, each row its own transactions. */
export const BULK_SEND_PAGE_SIZE = 50;
/** Rows of a page sent at the same time (each its own unit of work). */
export const BULK_SEND_CONCURRENCY = 4;

/** The run `bulk-send/<id>` in the Temporal Web UI. */
export function bulkSendWorkflowId(bulkSendId: string): string {
  return `bulk-send/${bulkSendId}`;
}

export interface BulkSendProgress {
  total: number;
  /** Rows whose envelope was sent. */
  sent: number;
  /** Rows refused when their turn came (the template was archived meanwhile, credits ran out…). */
  failed: number;
  /** Rows not sent because the run was cancelled. */
  skipped: number;
  cancelled: boolean;
}

export interface BulkSendInput {
  bulkSendId: string;
  organizationId: string;
  total: number;
  /** Carried by a run continued as new. */
  progress?: BulkSendProgress;
}

export interface BulkSendPageRequest {
  bulkSendId: string;
  limit: number;
  concurrency: number;
}

export interface BulkSendPage {
  sent: number;
  failed: number;
  /** Rows still to send after this page. */
  remaining: number;
}

export interface FinishBulkSendRequest {
  bulkSendId: string;
  cancelled: boolean;
}

/** Stops the run after the rows being sent: the rest are Skipped. */
export const cancelBulkSendSignal = defineSignal('cancelBulkSend');
/** The run's counts as the workflow knows them (the database's rows are the record). */
export const bulkSendProgressQuery = defineQuery<BulkSendProgress>('progress');

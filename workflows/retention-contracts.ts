// The retention run's contract (docs/envelope-lifecycle.md, "Retention"): the Temporal Schedule that starts it
// every day, the workflow's input and answer, and its activities' pages. Shared by the workflow, the
// activities (activities/retention.ts) and the schedule's provisioning (temporal/retention-schedule.ts).
import { ENVELOPE_TASK_QUEUE } from './contracts.ts';

/** The Schedule, as the Temporal Web UI lists it (Schedules). */
export const RETENTION_SCHEDULE_ID = 'sigil-retention';
export const RETENTION_WORKFLOW_TYPE = 'retentionWorkflow';
/** The retention workflow's signature (workflows/retention.ts): what the Schedule's start is typed with. */
export type RetentionWorkflow = (input?: RetentionInput) => Promise<RetentionSummary>;
/** Runs started by the Schedule are `retention-<scheduled time>` (Temporal appends the time). */
export const RETENTION_WORKFLOW_ID = 'retention';
/** On the envelope workers: their activities hold the database work. */
export const RETENTION_TASK_QUEUE = ENVELOPE_TASK_QUEUE;
/** Every day at this time (UTC), after the night's traffic. */
export const RETENTION_TIME_UTC = { hour: 3, minute: 30 } as const;
/** Envelopes handled per activity call: each call is a few history events, each envelope a transaction. */
export const RETENTION_PAGE_SIZE = 100;

export type RetentionPhase = 'delete' | 'purge' | 'organizations';

export interface RetentionTotals {
  /** Envelopes deleted because their organization's retention for finished documents passed. */
  deleted: number;
  /** Deleted envelopes whose files were purged. */
  purged: number;
  /** Files purged (the envelopes' in the purge phase; a purged organization's, all deleted, too). */
  files: number;
  /** Deleted organizations whose data was purged (docs/backoffice.md, "Suspension and deletion"). */
  organizations: number;
}

/** Empty for a scheduled run; a run continued as new carries where it was. */
export interface RetentionInput {
  /** The run's clock: what is due is decided against it (the workflow's time when the run began). */
  asOf?: string;
  phase?: RetentionPhase;
  after?: string | null;
  totals?: RetentionTotals;
}

export interface RetentionSummary extends RetentionTotals {
  asOf: string;
}

/** One page of a phase: envelopes after the cursor `after`, at most `limit`, due as of `asOf`. */
export interface RetentionPageRequest {
  asOf: string;
  after: string | null;
  limit: number;
}

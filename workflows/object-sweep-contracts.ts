// The orphan sweep's contract (docs/deployment.md "Object storage"): the Temporal Schedule that starts it every
// day, the workflow's input and answer, and its activities' pages. Shared by the workflow (object-sweep.ts), the
// activities (activities/object-sweep.ts) and the schedule's provisioning (temporal/object-sweep-schedule.ts).
import { ENVELOPE_TASK_QUEUE } from './contracts.ts';

/** The Schedule, as the Temporal Web UI lists it (Schedules). */
export const OBJECT_SWEEP_SCHEDULE_ID = 'sigil-object-sweep';
export const OBJECT_SWEEP_WORKFLOW_TYPE = 'objectSweepWorkflow';
/** Runs started by the Schedule are `object-sweep-<scheduled time>`. */
export const OBJECT_SWEEP_WORKFLOW_ID = 'object-sweep';
/** On the envelope workers: their activities have the stores. */
export const OBJECT_SWEEP_TASK_QUEUE = ENVELOPE_TASK_QUEUE;
/** Every day at this time (UTC): after the retention run (03:30), which makes purged files' objects unreferenced. */
export const OBJECT_SWEEP_TIME_UTC = { hour: 4, minute: 30 } as const;
/** Objects looked at per activity call. */
export const OBJECT_SWEEP_PAGE_SIZE = 200;
/** OBJECT_SWEEP_GRACE_HOURS's default: an object untouched this long, and unreferenced, goes. */
export const DEFAULT_OBJECT_SWEEP_GRACE_HOURS = 24;

/** registry: unreferenced registered objects; postgres, s3: objects in that store without a registry row. */
export type ObjectSweepPhase = 'registry' | 'postgres' | 's3';

/** The sweep's workflow signature (workflows/object-sweep.ts): what the Schedule's start is typed with. */
export type ObjectSweepWorkflow = (input?: ObjectSweepInput) => Promise<ObjectSweepSummary>;

export interface ObjectSweepTotals {
  /** Objects looked at (registered candidates and every object the stores listed). */
  checked: number;
  /** Objects deleted: unreferenced registered ones and strays. */
  deleted: number;
  /** Of those, strays (bytes in a store without a registry row). */
  strays: number;
  bytesFreed: number;
}

export interface ObjectSweepInput {
  /** The grace period in hours (the Schedule passes OBJECT_SWEEP_GRACE_HOURS); default 24. */
  graceHours?: number;
  /** A run continued as new carries where it was. */
  asOf?: string;
  phase?: ObjectSweepPhase;
  after?: string | null;
  totals?: ObjectSweepTotals;
}

export interface ObjectSweepSummary extends ObjectSweepTotals {
  asOf: string;
  graceHours: number;
}

/** One page of a phase: objects after `after` (a key), at most `limit`, untouched (stored) before `before`. */
export interface ObjectSweepPageRequest {
  phase: ObjectSweepPhase;
  before: string;
  after: string | null;
  limit: number;
}

export interface ObjectSweepPage {
  checked: number;
  deleted: number;
  bytesFreed: number;
  next: string | null;
}

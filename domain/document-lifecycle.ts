// What happens to an envelope after its signing: archiving (out of the active views, kept for retention and
// reports), unarchiving, deleting (hidden; its files purged once the organization's retention period has
// passed) and the retention run that deletes by the organization's settings and purges. These are changes of
// the envelope's record, made by services and the retention workflow, never by the envelope's own workflow
// (which has ended by then); their rules are here, once, for the services, the retention activities, the
// generated transition table (workflows/transitions.ts → docs/envelope-lifecycle.md; so this file imports
// nothing but the vocabulary: the workflow bundle includes it).
import type { EnvelopeStatus } from './vocabulary.ts';

/** Finished envelopes: the only ones that may be archived (a running one is cancelled first). */
export const ARCHIVABLE_STATUSES = [
  'Completed',
  'Declined',
  'Cancelled',
  'Expired',
] as const satisfies readonly EnvelopeStatus[];

/** Envelopes that may be deleted: the finished ones, an archived one, and a Draft that was never sent. */
export const DELETABLE_STATUSES = [
  'Draft',
  ...ARCHIVABLE_STATUSES,
  'Archived',
] as const satisfies readonly EnvelopeStatus[];

/** The organization setting `retention.deletedDays`: days a deleted envelope's files are kept before the purge. */
export const RETENTION_DELETED_DAYS = { min: 1, max: 3650, default: 30 } as const;

/**
 * Audit events recorded outside the envelope's workflow (archive, unarchive, delete, purge) are numbered from
 * here up, a range the workflow's own counter (one per transition of the signing: dozens, thousands for the
 * longest) never reaches, so neither can take the other's number in the audit log's `(envelope, sequence)`
 * key, and they sort after every event of the signing.
 */
export const RECORD_EVENT_SEQUENCE_BASE = 2 ** 30;

/** The audit events of these changes, recorded in the envelope's audit log (not webhook events). */
export const RECORD_EVENT_TYPES = [
  'envelope.archived',
  'envelope.unarchived',
  'envelope.deleted',
  'envelope.files_purged',
] as const;
export type RecordEventType = (typeof RECORD_EVENT_TYPES)[number];

export type RecordTrigger = 'archive' | 'unarchive' | 'delete' | 'retention delete' | 'purge files';

export interface RecordTransitionRule {
  trigger: RecordTrigger;
  /** Who makes the change: the application route and its service, or the retention workflow. */
  via: string;
  from: readonly EnvelopeStatus[];
  to: readonly (EnvelopeStatus | 'status before archiving' | 'unchanged')[];
  when: string;
  event: string;
}

export const RECORD_TRANSITIONS: readonly RecordTransitionRule[] = [
  {
    trigger: 'archive',
    via: '`POST /api/documents/{id}/archive` (`archiveEnvelope`)',
    from: ARCHIVABLE_STATUSES,
    to: ['Archived'],
    when: 'a user with `documents:manage` archives it; it leaves the active views, everything is kept',
    event: '`envelope.archived` (`previous_status`, `user_id`)',
  },
  {
    trigger: 'unarchive',
    via: '`POST /api/documents/{id}/unarchive` (`unarchiveEnvelope`)',
    from: ['Archived'],
    to: ['status before archiving'],
    when: 'a user with `documents:manage` restores it to the active views',
    event: '`envelope.unarchived` (`status`, `user_id`)',
  },
  {
    trigger: 'delete',
    via: '`POST /api/documents/{id}/delete` (`deleteEnvelope`)',
    from: DELETABLE_STATUSES,
    to: ['Deleted'],
    when: 'a user with `documents:manage` deletes it (a Draft only while no send of it is under way); hidden at once, its files purged `retention.deletedDays` later',
    event: '`envelope.deleted` (`previous_status`, `user_id`, `purge_after`)',
  },
  {
    trigger: 'retention delete',
    via: 'retention workflow (daily Schedule `sigil-retention`)',
    from: [...ARCHIVABLE_STATUSES, 'Archived'],
    to: ['Deleted'],
    when: '`retention.completedDays` after completion (`Completed`), `retention.unfinishedDays` after the end (`Declined`, `Cancelled`, `Expired`), archived or not; never when the setting is empty',
    event: '`envelope.deleted` (`previous_status`, `automatic: true`, `setting`, `days`, `purge_after`)',
  },
  {
    trigger: 'purge files',
    via: 'retention workflow (daily Schedule `sigil-retention`)',
    from: ['Deleted'],
    to: ['unchanged'],
    when: '`retention.deletedDays` (default 30) after the deletion; once',
    event:
      '`envelope.files_purged` (`files`: id, kind, name, type, size, SHA-256 of each; `deleted_at`, `retention_days`)',
  },
];

/** Why the envelope cannot be archived, unarchived or deleted now (a 409), or undefined when it can. */
export interface RecordRefusal {
  code: 'envelope_in_progress' | 'invalid_status';
  message: string;
}

/**
 * Statuses of a sent envelope whose workflow still runs the signing or the final PDF and projects them: the
 * envelopes the stuck-envelope check looks at (services/envelopes/stuck-envelopes.ts) and the benchmarks seed.
 */
export const OPEN_STATUSES: readonly EnvelopeStatus[] = [
  'Sent',
  'Opened',
  'InProgress',
  'WaitingForNextSigner',
  'DeliveryFailed',
  'ProcessingFinalPdf',
  'FinalPdfFailed',
];

/** Statuses of an envelope whose workflow still runs the sending, the signing or the final PDF. */
const IN_PROGRESS: readonly EnvelopeStatus[] = ['ReadyToSend', 'Sending', ...OPEN_STATUSES];

export function recordRefusal(
  trigger: 'archive' | 'unarchive' | 'delete',
  status: EnvelopeStatus,
): RecordRefusal | undefined {
  const rule = RECORD_TRANSITIONS.find((candidate) => candidate.trigger === trigger);
  if (rule?.from.includes(status)) return undefined;
  if (trigger === 'unarchive') {
    return { code: 'invalid_status', message: `The envelope is ${status}, not Archived.` };
  }
  if (IN_PROGRESS.includes(status)) {
    return {
      code: 'envelope_in_progress',
      message:
        status === 'ProcessingFinalPdf' || status === 'FinalPdfFailed'
          ? `The envelope is ${status}: it can be ${trigger}d once its final PDF is made.`
          : `The envelope is ${status}: cancel it first; a running envelope cannot be ${trigger}d.`,
    };
  }
  return {
    code: 'invalid_status',
    message:
      status === 'Archived'
        ? 'The envelope is already Archived.'
        : status === 'Draft'
          ? 'The envelope is a Draft: a draft is deleted, not archived.'
          : `The envelope is ${status} and cannot be ${trigger}d.`,
  };
}

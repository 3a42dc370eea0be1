// The documents list's tabs as SQL conditions on an envelope (alias `e`), shared by the list and the counts
// (docs/documents.md, "Tabs"). "Action needed" is the signed-in user's own: envelopes waiting on them as a
// recipient in turn (by their email address, without regard to case), and, for a user who manages documents,
// failed envelopes they are the one to act on (DeliveryFailed, FinalPdfFailed: their own, and for a role that
// reads every envelope also the public API's, which have no sending user).
import type { DocumentTab } from '../../domain/document.ts';
import {
  ENVELOPE_STATUSES,
  type EnvelopeStatus,
  TERMINAL_ENVELOPE_STATUSES,
} from '../../domain/vocabulary.ts';
import { ACTING_RECIPIENT_STATUSES, SIGNING_STATUSES } from '../../workflows/transitions.ts';
import type { Condition, DocumentReader } from './document-reader.ts';

/** Sent and not finished: signing, rendering the final PDF, or waiting for its retry. */
export const IN_PROGRESS_STATUSES: readonly EnvelopeStatus[] = ENVELOPE_STATUSES.filter(
  (status) => status !== 'Draft' && !TERMINAL_ENVELOPE_STATUSES.includes(status),
);

/** Failed envelopes that wait for their sender. */
export const SENDER_ACTION_STATUSES: readonly EnvelopeStatus[] = ['DeliveryFailed', 'FinalPdfFailed'];

/** The statuses of each tab but "action needed" (which depends on the user). */
export const TAB_STATUSES: Record<Exclude<DocumentTab, 'action_needed'>, readonly EnvelopeStatus[]> = {
  all: ENVELOPE_STATUSES.filter((status) => status !== 'Archived' && status !== 'Deleted'),
  in_progress: IN_PROGRESS_STATUSES,
  completed: ['Completed'],
  declined: ['Declined'],
  cancelled: ['Cancelled'],
  expired: ['Expired'],
  drafts: ['Draft'],
  archived: ['Archived'],
};

/** `(?, ?, …)` and the values, for `in`. */
export function inList(values: readonly string[]): Condition {
  return { sql: `(${values.map(() => '?').join(', ')})`, params: [...values] };
}

/** The envelope waits on the reader as a recipient in turn. */
export function waitsOnRecipient(reader: DocumentReader): Condition {
  const signing = inList(SIGNING_STATUSES);
  const acting = inList(ACTING_RECIPIENT_STATUSES);
  return {
    sql:
      `(e.status in ${signing.sql} and e.id in (select r.envelope_id from recipient r ` +
      `where lower(r.email) = lower(?) and r.type <> 'Cc' and r.status in ${acting.sql}))`,
    params: [...signing.params, reader.email, ...acting.params],
  };
}

/** The envelope failed and waits on the reader as its sender; never for a reader who cannot act on it. */
export function waitsOnSender(reader: DocumentReader): Condition {
  if (!reader.manages) return { sql: 'false', params: [] };
  const failed = inList(SENDER_ACTION_STATUSES);
  return {
    sql: `(e.status in ${failed.sql} and (e.created_by_user_id = ?${reader.readsAll ? ' or e.created_by_user_id is null' : ''}))`,
    params: [...failed.params, reader.userId],
  };
}

/**
 * The envelopes of "action needed" as one set of ids, each half found through its own index (the recipient's
 * address; the sender and status), so the list reads only them rather than filtering every envelope.
 */
function actionNeededIds(reader: DocumentReader): Condition {
  const signing = inList(SIGNING_STATUSES);
  const acting = inList(ACTING_RECIPIENT_STATUSES);
  const recipient = {
    sql:
      `select r.envelope_id from recipient r join envelope w on w.id = r.envelope_id ` +
      `where lower(r.email) = lower(?) and r.type <> 'Cc' and r.status in ${acting.sql} ` +
      `and w.organization_id = ? and w.status in ${signing.sql}`,
    params: [reader.email, ...acting.params, reader.organizationId, ...signing.params],
  };
  if (!reader.manages) return { sql: `e.id in (${recipient.sql})`, params: recipient.params };
  const failed = inList(SENDER_ACTION_STATUSES);
  return {
    sql:
      `e.id in (${recipient.sql} union select w.id from envelope w where w.organization_id = ? ` +
      `and w.status in ${failed.sql} and (w.created_by_user_id = ?` +
      `${reader.readsAll ? ' or w.created_by_user_id is null' : ''}))`,
    params: [...recipient.params, reader.organizationId, ...failed.params, reader.userId],
  };
}

/** The condition of a tab. */
export function tabCondition(tab: DocumentTab, reader: DocumentReader): Condition {
  if (tab === 'action_needed') return actionNeededIds(reader);
  const statuses = inList(TAB_STATUSES[tab]);
  return { sql: `e.status in ${statuses.sql}`, params: statuses.params };
}

/** Joins conditions with `and`. */
export function allOf(conditions: Condition[]): Condition {
  return {
    sql: conditions.map((condition) => condition.sql).join(' and '),
    params: conditions.flatMap((condition) => condition.params),
  };
}

// What the daily retention run does to PostgreSQL (docs/envelope-lifecycle.md, "Retention"), one envelope per
// transaction so a crash loses at most the envelope in hand and a rerun finds only what is still due:
//   1. deletion by the organization's settings: a Completed envelope `retention.completedDays` after its
//      completion, a Declined, Cancelled or Expired one `retention.unfinishedDays` after its end (archived or
//      not) becomes Deleted, with an `envelope.deleted` event (`automatic: true`);
//   2. the purge: a Deleted envelope `retention.deletedDays` (default 30) after its deletion loses the bytes of
//      its files — the final PDF, the audit trail, what its signers stored (signature, initials and stamp
//      images, uploads) and the uploaded source it was created from when no other envelope or template uses
//      it — and records one `envelope.files_purged` event naming each file. The template a template envelope
//      was sent from is the template's and stays. Rows stay: the envelope, its recipients, field values and
//      audit log, and each file's name, type, size and SHA-256 (`stored_file.purged_at` marks it), for the
//      record and for reports.
// Every candidate is looked for again under its row lock with the same condition, so an envelope unarchived,
// purged or changed since it was listed is left alone. `asOf` is the run's clock (the workflow's time).
import type { EntityManager } from '@mikro-orm/postgresql';
import { RECORD_EVENT_SEQUENCE_BASE, RETENTION_DELETED_DAYS } from '../domain/document-lifecycle.ts';
import type { EnvelopeStatus } from '../domain/vocabulary.ts';
import { purgeAfter, recordEnvelopeEvent } from './envelope-records.ts';
import { idsAfter } from './keyset.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The events that end an unfinished envelope (the workflow's own, below the range of record events). */
const ENDING_EVENTS = ['recipient.declined', 'envelope.cancelled', 'envelope.expired'];

/**
 * Envelopes (`e`, with their organization `o`) past the organization's retention for finished documents, and
 * which setting applies. Parameters: `asOf` twice.
 */
const PAST_RETENTION = `
  case when coalesce(e.previous_status, e.status) = 'Completed'
       then 'retention.completedDays' else 'retention.unfinishedDays' end as setting,
  case when coalesce(e.previous_status, e.status) = 'Completed'
       then o.retention_completed_days else o.retention_unfinished_days end as days
  from envelope e
  join organization o on o.id = e.organization_id
 where ((
         (e.status = 'Completed' or (e.status = 'Archived' and e.previous_status = 'Completed'))
         and o.retention_completed_days is not null
         and e.completed_at <= ?::timestamptz - make_interval(days => o.retention_completed_days)
       ) or (
         (e.status in ('Declined', 'Cancelled', 'Expired')
           or (e.status = 'Archived' and e.previous_status in ('Declined', 'Cancelled', 'Expired')))
         and o.retention_unfinished_days is not null
         and (select max(a.occurred_at) from audit_event a
               where a.envelope_id = e.id and a.sequence <= ${RECORD_EVENT_SEQUENCE_BASE}
                 and a.type in (${ENDING_EVENTS.map((type) => `'${type}'`).join(', ')}))
             <= ?::timestamptz - make_interval(days => o.retention_unfinished_days)
       ))`;

/** Deleted envelopes (`e`, organization `o`) whose files are due for the purge. Parameter: `asOf`. */
const PURGE_DUE = `
  from envelope e
  join organization o on o.id = e.organization_id
 where e.status = 'Deleted' and e.files_purged_at is null
   and e.deleted_at <= ?::timestamptz
                        - make_interval(days => coalesce(o.retention_deleted_days, ${RETENTION_DELETED_DAYS.default}))`;

export interface RetentionPage {
  /** Envelopes changed on this page. */
  changed: number;
  /** Files purged on this page (the purge only). */
  files: number;
  /** The cursor of the next page; null: nothing further. */
  next: string | null;
}

/** Ids of envelopes past their retention after `after`, in id order, at most `limit`. */
export async function envelopesPastRetention(
  em: EntityManager,
  asOf: Date,
  after: string | null,
  limit: number,
): Promise<string[]> {
  return idsAfter(em, 'e', `select e.id, ${PAST_RETENTION}`, [asOf, asOf], { after, limit });
}

/**
 * Deletes one envelope past its retention, in a transaction of its own, with its `envelope.deleted` event;
 * false when it is no longer due (changed since it was listed).
 */
export async function deleteByRetention(em: EntityManager, envelopeId: string, asOf: Date): Promise<boolean> {
  return em.fork().transactional(async (tx) => {
    const [row] = await tx.execute<
      {
        id: string;
        organization_id: string;
        status: EnvelopeStatus;
        previous_status: EnvelopeStatus | null;
        setting: string;
        days: number;
        deleted_days: number | null;
      }[]
    >(
      `select e.id, e.organization_id, e.status, e.previous_status, o.retention_deleted_days as deleted_days,
              ${PAST_RETENTION} and e.id = ?
          for update of e`,
      [asOf, asOf, envelopeId],
    );
    if (!row) return false;
    const previous = row.status === 'Archived' ? row.previous_status : row.status;
    const now = new Date();
    await tx.execute(
      `update envelope set status = 'Deleted', previous_status = ?, deleted_at = ?, updated_at = ?
        where id = ?`,
      [previous, now, now, row.id],
    );
    await recordEnvelopeEvent(tx, {
      envelopeId: row.id,
      organizationId: row.organization_id,
      type: 'envelope.deleted',
      occurredAt: now,
      data: {
        previous_status: previous,
        automatic: true,
        setting: row.setting,
        days: row.days,
        purge_after: purgeAfter(now, row.deleted_days ?? RETENTION_DELETED_DAYS.default).toISOString(),
      },
    });
    return true;
  });
}

/** Ids of deleted envelopes due for the purge after `after`, in id order, at most `limit`. */
export async function envelopesDueForPurge(
  em: EntityManager,
  asOf: Date,
  after: string | null,
  limit: number,
): Promise<string[]> {
  return idsAfter(em, 'e', `select e.id ${PURGE_DUE}`, [asOf], { after, limit });
}

/** What a purge did to one envelope. */
export interface PurgedEnvelope {
  envelopeId: string;
  organizationId: string;
  files: number;
  bytes: number;
}

type FileKind = 'final_pdf' | 'audit_trail' | 'signer_file' | 'source';

/**
 * Purges one deleted envelope's files in a transaction of its own: their bytes are emptied, each marked
 * `purged_at`, the envelope's `files_purged_at` set and one `envelope.files_purged` event recorded, all or
 * nothing. Null when the envelope is not (or no longer) due: purged already, or not deleted long enough.
 */
export async function purgeEnvelopeFiles(
  em: EntityManager,
  envelopeId: string,
  asOf: Date,
): Promise<PurgedEnvelope | null> {
  return em.fork().transactional(async (tx) => {
    const [envelope] = await tx.execute<
      {
        id: string;
        organization_id: string;
        final_pdf_file_id: string | null;
        audit_trail_file_id: string | null;
        source_file_id: string | null;
        deleted_at: Date;
        days: number;
      }[]
    >(
      `select e.id, e.organization_id, e.final_pdf_file_id, e.audit_trail_file_id, e.source_file_id, e.deleted_at,
              coalesce(o.retention_deleted_days, ${RETENTION_DELETED_DAYS.default}) as days
         ${PURGE_DUE} and e.id = ?
          for update of e`,
      [asOf, envelopeId],
    );
    if (!envelope) return null;

    const kinds = new Map<string, FileKind>();
    if (envelope.final_pdf_file_id) kinds.set(envelope.final_pdf_file_id, 'final_pdf');
    if (envelope.audit_trail_file_id) kinds.set(envelope.audit_trail_file_id, 'audit_trail');
    // What the signers stored: a value that names a file (signature, initials, stamp, upload) names its own.
    const values = await tx.execute<{ file_id: string }[]>(
      `select distinct v.value ->> 'fileId' as file_id
         from envelope_field_value v
        where v.envelope_id = ? and jsonb_typeof(v.value) = 'object' and v.value ->> 'fileId' is not null`,
      [envelope.id],
    );
    for (const { file_id } of values) {
      if (UUID.test(file_id) && !kinds.has(file_id)) kinds.set(file_id, 'signer_file');
    }
    // The uploaded source, unless something that is not purged with it still uses it: another envelope made
    // from it that is not purged (a deleted one is purged with its own, the last of them taking the file),
    // or a template made of it.
    if (envelope.source_file_id) {
      const [use] = await tx.execute<{ used: boolean }[]>(
        `select exists (select 1 from envelope other
                          where other.source_file_id = ? and other.id <> ?
                            and not (other.status = 'Deleted' and other.files_purged_at is not null))
             or exists (select 1 from template t where t.file_id = ? and t.status <> 'OneOff') as used`,
        [envelope.source_file_id, envelope.id, envelope.source_file_id],
      );
      if (!use?.used) kinds.set(envelope.source_file_id, 'source');
    }

    const now = new Date();
    const purged =
      kinds.size === 0
        ? []
        : await tx.execute<
            { id: string; filename: string; content_type: string; size_bytes: number; sha256: string }[]
          >(
            `update stored_file set purged_at = ?
              where id = any(?::uuid[]) and organization_id = ? and purged_at is null
          returning id, filename, content_type, size_bytes, sha256`,
            [now, `{${[...kinds.keys()].join(',')}}`, envelope.organization_id],
          );
    const order: FileKind[] = ['source', 'final_pdf', 'audit_trail', 'signer_file'];
    const files = purged
      .map((file) => ({
        file_id: file.id,
        kind: kinds.get(file.id) as FileKind,
        filename: file.filename,
        content_type: file.content_type,
        size_bytes: file.size_bytes,
        sha256: file.sha256,
      }))
      .sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || a.file_id.localeCompare(b.file_id));
    await tx.execute('update envelope set files_purged_at = ?, updated_at = ? where id = ?', [
      now,
      now,
      envelope.id,
    ]);
    await recordEnvelopeEvent(tx, {
      envelopeId: envelope.id,
      organizationId: envelope.organization_id,
      type: 'envelope.files_purged',
      occurredAt: now,
      data: {
        files,
        deleted_at: new Date(envelope.deleted_at).toISOString(),
        retention_days: envelope.days,
      },
    });
    return {
      envelopeId: envelope.id,
      organizationId: envelope.organization_id,
      files: files.length,
      bytes: files.reduce((sum, file) => sum + file.size_bytes, 0),
    };
  });
}

// What archiving, unarchiving and deleting an envelope share (docs/envelope-lifecycle.md, "After signing"):
// the envelope must be one the user sees (services/documents/document-reader.ts: anything else, a deleted
// one included, is "not found", exactly as another organization's); the change is made under the envelope's
// row lock, after its status is read again there, and recorded in the same transaction with its audit event
// (db/envelope-records.ts); a status the change does not apply to is a 409 naming it
// (domain/document-lifecycle.ts, `recordRefusal`). These are changes of the record only: the envelope's
// workflow has ended, and no webhook event is sent (the specification's event list has none for them).
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Envelope, Organization } from '../../db/entities/index.ts';
import { purgeAfter, recordEnvelopeEvent } from '../../db/envelope-records.ts';
import {
  RETENTION_DELETED_DAYS,
  type RecordEventType,
  recordRefusal,
} from '../../domain/document-lifecycle.ts';
import type { DocumentLifecycleView } from '../../domain/document-lifecycle-view.ts';
import type { DataContext } from '../context.ts';
import { type DocumentReader, findVisibleEnvelope } from '../documents/document-reader.ts';
import { Conflict, NotFound } from '../errors.ts';

export interface RecordChange {
  trigger: 'archive' | 'unarchive' | 'delete';
  event: RecordEventType;
  /**
   * Changes the locked envelope (it may refuse by throwing) and returns the event's data beyond `user_id`.
   * `now` is the time of the change; `tx` the transaction.
   */
  apply(
    envelope: Envelope,
    now: Date,
    tx: EntityManager,
    deletedDays: number,
  ): Promise<Record<string, unknown>> | Record<string, unknown>;
}

export async function changeEnvelopeRecord(
  ctx: DataContext,
  reader: DocumentReader,
  envelopeId: string,
  change: RecordChange,
): Promise<DocumentLifecycleView> {
  const visible = await findVisibleEnvelope(ctx, reader, envelopeId);
  return ctx.em.transactional(async (tx) => {
    const envelope = await tx.findOne(
      Envelope,
      { id: visible.id, organizationId: reader.organizationId },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    // Deleted by someone else meanwhile: hidden now, like any deleted envelope.
    if (!envelope || envelope.status === 'Deleted')
      throw new NotFound(`Envelope ${envelopeId} was not found.`);
    const refusal = recordRefusal(change.trigger, envelope.status);
    if (refusal) {
      throw new Conflict(refusal.message, [{ field: 'status', message: envelope.status }], refusal.code);
    }
    const deletedDays = await deletedDaysOf(tx, reader.organizationId);
    const now = new Date();
    const data = await change.apply(envelope, now, tx, deletedDays);
    await tx.flush();
    await recordEnvelopeEvent(tx, {
      envelopeId: envelope.id,
      organizationId: envelope.organizationId,
      type: change.event,
      occurredAt: now,
      data: { ...data, user_id: reader.userId },
    });
    return documentLifecycleView(envelope, deletedDays);
  });
}

/** The organization's `retention.deletedDays`, or its default. */
export async function deletedDaysOf(em: EntityManager, organizationId: string): Promise<number> {
  const organization = await em.findOneOrFail(Organization, { id: organizationId });
  return organization.retentionDeletedDays ?? RETENTION_DELETED_DAYS.default;
}

export function documentLifecycleView(envelope: Envelope, deletedDays: number): DocumentLifecycleView {
  return {
    id: envelope.id,
    title: envelope.title,
    status: envelope.status,
    previousStatus: envelope.previousStatus ?? null,
    archivedAt: envelope.archivedAt?.toISOString() ?? null,
    deletedAt: envelope.deletedAt?.toISOString() ?? null,
    filesPurgeAfter: envelope.deletedAt ? purgeAfter(envelope.deletedAt, deletedDays).toISOString() : null,
    filesPurgedAt: envelope.filesPurgedAt?.toISOString() ?? null,
  };
}

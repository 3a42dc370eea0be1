// Changes to an envelope's record made outside its workflow — archive, unarchive, delete, the retention run's
// deletions and purges (domain/document-lifecycle.ts) — and the audit events they leave, with a recipient's
// downloads of its documents (`document.downloaded`, services/signing/download-signing-document.ts). Shared by
// the services (services/envelopes/) and the retention activities (activities/retention.ts). Every caller
// holds the envelope's row lock in its transaction, so two such changes never interleave and their audit
// events get distinct numbers.
import type { EntityManager } from '@mikro-orm/postgresql';
import { RECORD_EVENT_SEQUENCE_BASE, type RecordEventType } from '../domain/document-lifecycle.ts';
import type { DOCUMENT_DOWNLOADED_EVENT } from '../domain/signing.ts';
import { appendAuditEvent } from './audit-chain.ts';

export interface RecordEvent {
  envelopeId: string;
  organizationId: string;
  type: RecordEventType | typeof DOCUMENT_DOWNLOADED_EVENT;
  /** The recipient the event is about (a recipient's download); absent: none. */
  recipientId?: string | null;
  data: Record<string, unknown>;
  occurredAt: Date;
}

/**
 * Appends an event to the envelope's audit log, numbered after the last event recorded outside the workflow
 * (from RECORD_EVENT_SEQUENCE_BASE + 1 up). The caller holds the envelope's row lock.
 */
export async function recordEnvelopeEvent(em: EntityManager, event: RecordEvent): Promise<void> {
  const [last] = await em.execute<{ sequence: number }[]>(
    'select coalesce(max(sequence), ?)::int as sequence from audit_event where envelope_id = ? and sequence > ?',
    [RECORD_EVENT_SEQUENCE_BASE, event.envelopeId, RECORD_EVENT_SEQUENCE_BASE],
  );
  await appendAuditEvent(em, {
    envelopeId: event.envelopeId,
    organizationId: event.organizationId,
    sequence: (last?.sequence ?? RECORD_EVENT_SEQUENCE_BASE) + 1,
    type: event.type,
    recipientId: event.recipientId ?? null,
    data: event.data,
    occurredAt: event.occurredAt,
  });
}

/** The moment after which a deleted envelope's files are purged. */
export function purgeAfter(deletedAt: Date, deletedDays: number): Date {
  return new Date(deletedAt.getTime() + deletedDays * 24 * 60 * 60 * 1000);
}

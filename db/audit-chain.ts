// The hash chain through an envelope's audit events (docs/audit-chain.md, migration 0027): appending an event
// links it to the envelope's chain head, and verifying recomputes every link. The canonical form and its SHA-256
// are PostgreSQL's `sigil_audit_hash`, one definition for writing and checking. Every writer holds the envelope's
// row lock (FOR UPDATE) in its transaction, so two appends never take the same place in the chain.
import type { EntityManager } from '@mikro-orm/postgresql';

export interface ChainedEvent {
  envelopeId: string;
  organizationId: string;
  /** The workflow's transition number, or a record event's (db/envelope-records.ts). */
  sequence: number;
  type: string;
  recipientId: string | null;
  data: Record<string, unknown>;
  /** A Date, or an ISO 8601 time with its offset. */
  occurredAt: Date | string;
}

/**
 * Appends the event with the given sequence unless the envelope already has one with it (a projection retried),
 * linked to the envelope's chain head, and moves the head. Answers whether it was appended.
 */
export async function appendAuditEvent(em: EntityManager, event: ChainedEvent): Promise<boolean> {
  const data = JSON.stringify(event.data);
  const rows = await em.execute<{ chain_index: number }[]>(
    `with appended as (
       insert into audit_event
         (id, envelope_id, organization_id, sequence, type, recipient_id, data, occurred_at, chain_index,
          prev_hash, hash)
       select gen_random_uuid(), e.id, ?, ?, ?, ?::uuid, ?::jsonb, ?::timestamptz, e.audit_chain_length + 1,
              e.audit_chain_head,
              sigil_audit_hash(e.id, ?::uuid, ?::int, ?::text, ?::uuid, ?::jsonb, ?::timestamptz,
                               e.audit_chain_length + 1, e.audit_chain_head)
         from envelope e
        where e.id = ?
          and not exists (select 1 from audit_event a where a.envelope_id = e.id and a.sequence = ?)
       on conflict (envelope_id, sequence) do nothing
       returning envelope_id, chain_index, hash
     )
     update envelope e set audit_chain_head = a.hash, audit_chain_length = a.chain_index
       from appended a
      where e.id = a.envelope_id
     returning a.chain_index`,
    [
      event.organizationId,
      event.sequence,
      event.type,
      event.recipientId,
      data,
      event.occurredAt,
      event.organizationId,
      event.sequence,
      event.type,
      event.recipientId,
      data,
      event.occurredAt,
      event.envelopeId,
      event.sequence,
    ],
  );
  return rows.length > 0;
}

export interface AuditChainProblem {
  /** The event's sequence number, or null for a problem of the chain as a whole. */
  sequence: number | null;
  problem: string;
}

export interface AuditChainVerification {
  envelopeId: string;
  /** Every stored event is in the chain, every link holds and the head is the envelope's. */
  intact: boolean;
  events: number;
  /** The last event's hash (hex), as the envelope records it; null before the first event. */
  head: string | null;
  problems: AuditChainProblem[];
}

/** Recomputes every event's hash and link; answers null for an envelope that does not exist. */
export async function verifyAuditChain(
  em: EntityManager,
  envelopeId: string,
): Promise<AuditChainVerification | null> {
  const [envelope] = await em.execute<{ head: string | null; length: number }[]>(
    `select encode(audit_chain_head, 'hex') as head, audit_chain_length as length from envelope where id = ?`,
    [envelopeId],
  );
  if (!envelope) return null;
  const rows = await em.execute<
    {
      sequence: number;
      chain_index: number | null;
      place: number;
      hash_ok: boolean | null;
      link_ok: boolean;
      hash: string | null;
    }[]
  >(
    `select a.sequence, a.chain_index,
            row_number() over (order by a.chain_index nulls last, a.sequence)::int as place,
            a.hash = sigil_audit_hash(a.envelope_id, a.organization_id, a.sequence, a.type, a.recipient_id,
                                      a.data, a.occurred_at, a.chain_index, a.prev_hash) as hash_ok,
            a.prev_hash is not distinct from
              lag(a.hash) over (order by a.chain_index nulls last, a.sequence) as link_ok,
            encode(a.hash, 'hex') as hash
       from audit_event a
      where a.envelope_id = ?
      order by a.chain_index nulls last, a.sequence`,
    [envelopeId],
  );
  const problems: AuditChainProblem[] = [];
  for (const row of rows) {
    if (row.chain_index === null) {
      problems.push({ sequence: row.sequence, problem: 'is not in the chain' });
      continue;
    }
    if (row.chain_index !== row.place) {
      problems.push({
        sequence: row.sequence,
        problem: `is number ${row.chain_index} in the chain, but the ${ordinal(row.place)} stored`,
      });
    }
    if (!row.hash_ok) problems.push({ sequence: row.sequence, problem: 'was changed after it was recorded' });
    if (!row.link_ok) {
      problems.push({ sequence: row.sequence, problem: 'does not follow the event before it in the chain' });
    }
  }
  const chained = rows.filter((row) => row.chain_index !== null);
  const last = chained.at(-1);
  if (chained.length !== envelope.length) {
    problems.push({
      sequence: null,
      problem: `the envelope recorded ${envelope.length} events in its chain, ${chained.length} are stored`,
    });
  }
  if ((last?.hash ?? null) !== envelope.head) {
    problems.push({
      sequence: null,
      problem: 'the last stored event is not the chain head the envelope recorded',
    });
  }
  return { envelopeId, intact: problems.length === 0, events: rows.length, head: envelope.head, problems };
}

function ordinal(place: number): string {
  const suffix =
    place % 10 === 1 && place % 100 !== 11
      ? 'st'
      : place % 10 === 2 && place % 100 !== 12
        ? 'nd'
        : place % 10 === 3 && place % 100 !== 13
          ? 'rd'
          : 'th';
  return `${place}${suffix}`;
}

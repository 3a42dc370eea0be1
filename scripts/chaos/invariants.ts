// What must hold at the end of a chaos run, checked against what was observed: PostgreSQL's rows, the
// workflows' own account of their projection, the operator CLI's `sigil envelope stuck` and the receiver's
// record of every delivery. A pure function of the observation, so the checks themselves are tested
// (test/chaos/invariants.test.ts) on observations broken on purpose.
import { isWebhookEventType } from '../../domain/vocabulary.ts';
import type { Receipt } from './receiver.ts';

export interface ObservedEnvelope {
  id: string;
  externalReference: string | null;
  status: string;
  projectedSequence: number;
  projectionError: string | null;
  finalPdfFileId: string | null;
  auditTrailFileId: string | null;
}

export interface ObservedAuditEvent {
  id: string;
  envelopeId: string;
  sequence: number;
  type: string;
}

export interface ObservedFile {
  id: string;
  contentType: string;
  /** The content starts with `%PDF-`. */
  isPdf: boolean;
  /** The stored SHA-256 is the content's. */
  intact: boolean;
  /** Referenced by a template (its source PDF). */
  template: boolean;
}

export interface ObservedWorkflow {
  envelopeId: string;
  /** The execution's status (COMPLETED, RUNNING, …), or the error met while describing it. */
  executionStatus: string;
  /** The workflow's own account (query projectionStatus), or null when it could not be asked. */
  projectedSequence: number | null;
  decidedSequence: number | null;
  parked: boolean;
}

export interface ObservedDelivery {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  replayOf: string | null;
}

export interface Observation {
  /** The external references the client created, one per envelope. */
  plannedReferences: string[];
  /** Envelopes the client could not drive to their last signature, with why. */
  clientFailures: { externalReference: string; failure: string }[];
  envelopes: ObservedEnvelope[];
  auditEvents: ObservedAuditEvent[];
  files: ObservedFile[];
  /** stored_file rows that no envelope, template or field value refers to. */
  orphanFileIds: string[];
  workflows: ObservedWorkflow[];
  deliveries: ObservedDelivery[];
  /** `sigil envelope stuck --json`'s envelopes, or the reason it could not be run. */
  stuck: { envelopeId: string; kind: string; reason: string }[] | string;
  receipts: Receipt[];
}

export interface InvariantResult {
  name: string;
  ok: boolean;
  /** What was checked, in a few words ("100/100 envelopes"). */
  summary: string;
  /** Each violation, at most a few dozen. */
  problems: string[];
}

const MAX_PROBLEMS = 25;

export function result(name: string, summary: string, problems: string[]): InvariantResult {
  const shown = problems.slice(0, MAX_PROBLEMS);
  if (problems.length > MAX_PROBLEMS) shown.push(`… and ${problems.length - MAX_PROBLEMS} more`);
  return { name, ok: problems.length === 0, summary, problems: shown };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

const distinct = (values: Iterable<string>) => new Set(values).size;

export function checkInvariants(o: Observation): InvariantResult[] {
  const results: InvariantResult[] = [];
  const byReference = groupBy(
    o.envelopes.filter((e) => e.externalReference !== null),
    (e) => e.externalReference as string,
  );
  const planned = new Set(o.plannedReferences);

  // 1. Every envelope Completed.
  {
    const problems: string[] = [];
    for (const failure of o.clientFailures) {
      problems.push(`${failure.externalReference}: the client gave up: ${failure.failure}`);
    }
    let completed = 0;
    for (const reference of o.plannedReferences) {
      const rows = byReference.get(reference) ?? [];
      if (rows.length === 0) problems.push(`${reference}: no envelope in PostgreSQL`);
      for (const row of rows) {
        if (row.status === 'Completed') completed += 1;
        else problems.push(`${reference}: envelope ${row.id} is ${row.status}`);
      }
    }
    results.push(
      result('every envelope Completed', `${completed}/${o.plannedReferences.length} Completed`, problems),
    );
  }

  // 2. No duplicate envelope for any idempotency key (one external reference per create key).
  {
    const problems: string[] = [];
    for (const [reference, rows] of byReference) {
      if (!planned.has(reference)) problems.push(`${reference}: an envelope the client never asked for`);
      if (rows.length > 1) {
        problems.push(`${reference}: ${rows.length} envelopes (${rows.map((r) => r.id).join(', ')})`);
      }
    }
    const unreferenced = o.envelopes.filter((e) => e.externalReference === null);
    for (const row of unreferenced) problems.push(`envelope ${row.id} has no external reference`);
    results.push(
      result(
        'no duplicate envelope for any idempotency key',
        `${o.envelopes.length} envelopes for ${o.plannedReferences.length} keys`,
        problems,
      ),
    );
  }

  // 3. Exactly one final PDF and one audit trail each, and no other stored PDF.
  {
    const problems: string[] = [];
    const files = new Map(o.files.map((f) => [f.id, f]));
    const owners = new Map<string, string[]>();
    for (const envelope of o.envelopes) {
      for (const [what, id] of [
        ['final PDF', envelope.finalPdfFileId],
        ['audit trail', envelope.auditTrailFileId],
      ] as const) {
        if (!id) {
          problems.push(`envelope ${envelope.id}: no ${what}`);
          continue;
        }
        owners.set(id, [...(owners.get(id) ?? []), `${envelope.id} (${what})`]);
        const file = files.get(id);
        if (!file) problems.push(`envelope ${envelope.id}: its ${what} ${id} is not stored`);
        else if (!file.isPdf || file.contentType !== 'application/pdf') {
          problems.push(`envelope ${envelope.id}: its ${what} ${id} is not a PDF (${file.contentType})`);
        } else if (!file.intact)
          problems.push(`envelope ${envelope.id}: its ${what} ${id} does not match its SHA-256`);
      }
    }
    for (const [id, users] of owners) {
      if (users.length > 1)
        problems.push(`file ${id} is referenced ${users.length} times: ${users.join(', ')}`);
    }
    const pdfs = o.files.filter((f) => f.contentType === 'application/pdf' && !f.template);
    const extra = pdfs.filter((f) => !owners.has(f.id));
    for (const file of extra) problems.push(`stored PDF ${file.id} belongs to no envelope`);
    results.push(
      result(
        'exactly one final PDF and one audit trail each',
        `${pdfs.length} stored PDFs for ${o.envelopes.length} envelopes`,
        problems,
      ),
    );
  }

  // 4. Audit sequences 1..n without gaps or repeats, n the envelope's projected sequence.
  const auditByEnvelope = groupBy(o.auditEvents, (a) => a.envelopeId);
  {
    const problems: string[] = [];
    for (const envelope of o.envelopes) {
      const sequences = (auditByEnvelope.get(envelope.id) ?? []).map((a) => a.sequence).sort((a, b) => a - b);
      const expected = Array.from({ length: envelope.projectedSequence }, (_, i) => i + 1);
      if (sequences.join(',') !== expected.join(',')) {
        problems.push(
          `envelope ${envelope.id}: sequences [${sequences.join(',')}], expected 1..${envelope.projectedSequence}`,
        );
      }
    }
    results.push(
      result(
        'audit sequences 1..n without gaps or repeats',
        `${o.auditEvents.length} audit events`,
        problems,
      ),
    );
  }

  // 5. No projection behind: PostgreSQL has what each workflow decided; nothing parked or stuck.
  {
    const problems: string[] = [];
    const workflows = new Map(o.workflows.map((w) => [w.envelopeId, w]));
    for (const envelope of o.envelopes) {
      const workflow = workflows.get(envelope.id);
      if (envelope.projectionError)
        problems.push(`envelope ${envelope.id}: parked: ${envelope.projectionError}`);
      if (!workflow) {
        problems.push(`envelope ${envelope.id}: its workflow was not found`);
        continue;
      }
      if (workflow.executionStatus !== 'COMPLETED') {
        problems.push(`envelope ${envelope.id}: workflow ${workflow.executionStatus}`);
      }
      if (workflow.parked)
        problems.push(`envelope ${envelope.id}: the workflow says its projection is parked`);
      if (workflow.decidedSequence === null || workflow.projectedSequence === null) {
        problems.push(`envelope ${envelope.id}: the workflow did not answer projectionStatus`);
      } else if (
        workflow.decidedSequence !== envelope.projectedSequence ||
        workflow.projectedSequence !== envelope.projectedSequence
      ) {
        problems.push(
          `envelope ${envelope.id}: projected_sequence ${envelope.projectedSequence}, the workflow decided ${workflow.decidedSequence} and projected ${workflow.projectedSequence}`,
        );
      }
    }
    if (typeof o.stuck === 'string') problems.push(`sigil envelope stuck failed: ${o.stuck}`);
    else {
      for (const stuck of o.stuck) {
        problems.push(`sigil envelope stuck lists ${stuck.envelopeId} (${stuck.kind}): ${stuck.reason}`);
      }
    }
    results.push(
      result(
        'no projection behind',
        `${o.workflows.length} workflows asked; sigil envelope stuck: ${typeof o.stuck === 'string' ? 'failed' : `${o.stuck.length} listed`}`,
        problems,
      ),
    );
  }

  // 6–9. Webhooks: what the audit log (and each envelope's creation) implies, against what arrived.
  const implied = new Map<string, { type: string; envelopeId: string }>();
  for (const event of o.auditEvents) {
    if (isWebhookEventType(event.type))
      implied.set(event.id, { type: event.type, envelopeId: event.envelopeId });
  }
  const receiptsByEvent = groupBy(o.receipts, (r) => r.eventId);
  const createdByEnvelope = groupBy(
    o.receipts.filter((r) => r.type === 'envelope.created'),
    (r) => r.envelopeId ?? '',
  );
  {
    const problems: string[] = [];
    for (const [eventId, event] of implied) {
      const acknowledged = (receiptsByEvent.get(eventId) ?? []).filter((r) => r.answer === 'acknowledged');
      if (acknowledged.length === 0) {
        problems.push(`${event.type} ${eventId} of envelope ${event.envelopeId}: never acknowledged`);
      } else if (acknowledged.some((r) => r.type !== event.type || r.envelopeId !== event.envelopeId)) {
        problems.push(`${event.type} ${eventId}: arrived with another type or envelope`);
      }
    }
    for (const envelope of o.envelopes) {
      const created = (createdByEnvelope.get(envelope.id) ?? []).filter((r) => r.answer === 'acknowledged');
      if (created.length === 0)
        problems.push(`envelope.created of envelope ${envelope.id}: never acknowledged`);
    }
    results.push(
      result(
        'every webhook event received at least once',
        `${implied.size + o.envelopes.length} events implied`,
        problems,
      ),
    );
  }
  {
    const problems: string[] = [];
    for (const [eventId, event] of implied) {
      const deliveries = distinct((receiptsByEvent.get(eventId) ?? []).map((r) => r.deliveryId));
      if (deliveries > 1) problems.push(`${event.type} ${eventId}: ${deliveries} deliveries`);
    }
    for (const envelope of o.envelopes) {
      const created = createdByEnvelope.get(envelope.id) ?? [];
      const events = distinct(created.map((r) => r.eventId));
      const deliveries = distinct(created.map((r) => r.deliveryId));
      if (events > 1 || deliveries > 1) {
        problems.push(
          `envelope.created of envelope ${envelope.id}: ${events} events in ${deliveries} deliveries`,
        );
      }
    }
    const repeats = o.receipts.length - distinct(o.receipts.map((r) => r.deliveryId));
    results.push(
      result(
        'every webhook event exactly once after deduplication by delivery id',
        `${o.receipts.length} requests, ${repeats} repeats of a delivery id`,
        problems,
      ),
    );
  }
  {
    const problems: string[] = [];
    const replays = new Set(o.deliveries.filter((d) => d.replayOf !== null).map((d) => d.id));
    for (const [eventId, receipts] of receiptsByEvent) {
      const acknowledged = receipts.filter((r) => r.answer === 'acknowledged' && !replays.has(r.deliveryId));
      const deliveries = distinct(acknowledged.map((r) => r.deliveryId));
      if (deliveries > 1)
        problems.push(`event ${eventId} (${receipts[0]?.type}): ${deliveries} deliveries acknowledged`);
    }
    results.push(
      result(
        'no event acknowledged in two deliveries',
        `${receiptsByEvent.size} events, ${replays.size} replays`,
        problems,
      ),
    );
  }
  {
    const problems: string[] = [];
    const createdEvents = new Set(
      o.deliveries.filter((d) => d.eventType === 'envelope.created').map((d) => d.eventId),
    );
    const known = new Set(o.envelopes.map((e) => e.id));
    for (const receipt of o.receipts) {
      if (!receipt.signatureValid)
        problems.push(`delivery ${receipt.deliveryId}: the signature does not verify`);
      const expected =
        implied.has(receipt.eventId) ||
        (receipt.type === 'envelope.created' &&
          createdEvents.has(receipt.eventId) &&
          known.has(receipt.envelopeId ?? ''));
      if (!expected) {
        problems.push(
          `delivery ${receipt.deliveryId}: ${receipt.type} ${receipt.eventId} is no event of the run`,
        );
      }
    }
    for (const delivery of o.deliveries) {
      if (delivery.status !== 'succeeded') {
        problems.push(`delivery ${delivery.id} (${delivery.eventType}) is ${delivery.status}`);
      }
    }
    const files = new Map(o.envelopes.map((e) => [e.id, e]));
    for (const receipt of o.receipts.filter((r) => r.type === 'document.final_pdf_ready')) {
      const envelope = files.get(receipt.envelopeId ?? '');
      if (
        envelope &&
        (receipt.data.final_pdf_file_id !== envelope.finalPdfFileId ||
          receipt.data.audit_trail_file_id !== envelope.auditTrailFileId)
      ) {
        problems.push(`document.final_pdf_ready of ${envelope.id} names other files than the envelope's`);
      }
    }
    results.push(
      result(
        'every delivery signed, expected and recorded as succeeded',
        `${o.deliveries.length} delivery records`,
        problems,
      ),
    );
  }

  // 10. No orphaned file.
  results.push(
    result(
      'no orphaned file',
      `${o.files.length} stored files`,
      o.orphanFileIds.map((id) => `stored file ${id} is referred to by no envelope, template or field value`),
    ),
  );
  return results;
}

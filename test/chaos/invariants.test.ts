// The chaos run's checks, on observations made by hand: a clean one passes every check, and each observation
// broken the way a defect would break it fails the check that should catch it (and only checks that should),
// so a chaos run that passes says something.
import { describe, expect, it } from 'vitest';
import { checkInvariants, type Observation } from '../../scripts/chaos/invariants.ts';
import type { Receipt } from '../../scripts/chaos/receiver.ts';

const TYPES = [
  'envelope.sent',
  'recipient.opened',
  'recipient.viewed',
  'recipient.started',
  'recipient.completed',
  'recipient.opened',
  'recipient.viewed',
  'recipient.completed',
  'envelope.completed',
  'document.final_pdf_ready',
];
const WEBHOOK_TYPES = new Set([
  'envelope.sent',
  'recipient.opened',
  'recipient.completed',
  'envelope.completed',
  'document.final_pdf_ready',
]);

let counter = 0;
const id = (prefix: string) => {
  counter += 1;
  return `${prefix}-${String(counter).padStart(6, '0')}`;
};

function receipt(overrides: Partial<Receipt> & Pick<Receipt, 'eventId' | 'type'>): Receipt {
  return {
    deliveryId: id('delivery'),
    envelopeId: null,
    data: {},
    receivedAt: Date.now(),
    signatureValid: true,
    answer: 'acknowledged',
    ...overrides,
  };
}

/** A run of `count` envelopes where everything went right. */
function cleanObservation(count = 3): Observation {
  const o: Observation = {
    plannedReferences: [],
    clientFailures: [],
    envelopes: [],
    auditEvents: [],
    files: [
      { id: 'template-pdf', contentType: 'application/pdf', isPdf: true, intact: true, template: true },
    ],
    orphanFileIds: [],
    workflows: [],
    deliveries: [],
    stuck: [],
    receipts: [],
  };
  for (let index = 0; index < count; index += 1) {
    const reference = `chaos-test-${index}`;
    const envelopeId = id('envelope');
    const final = id('final');
    const audit = id('audit');
    o.plannedReferences.push(reference);
    o.envelopes.push({
      id: envelopeId,
      externalReference: reference,
      status: 'Completed',
      projectedSequence: TYPES.length,
      projectionError: null,
      finalPdfFileId: final,
      auditTrailFileId: audit,
    });
    for (const file of [final, audit]) {
      o.files.push({ id: file, contentType: 'application/pdf', isPdf: true, intact: true, template: false });
    }
    o.workflows.push({
      envelopeId,
      executionStatus: 'COMPLETED',
      projectedSequence: TYPES.length,
      decidedSequence: TYPES.length,
      parked: false,
    });
    const created = receipt({ eventId: id('created'), type: 'envelope.created', envelopeId });
    o.receipts.push(created);
    o.deliveries.push({
      id: created.deliveryId,
      eventId: created.eventId,
      eventType: created.type,
      status: 'succeeded',
      replayOf: null,
    });
    TYPES.forEach((type, position) => {
      const eventId = id('event');
      o.auditEvents.push({ id: eventId, envelopeId, sequence: position + 1, type });
      if (!WEBHOOK_TYPES.has(type)) return;
      const data =
        type === 'document.final_pdf_ready' ? { final_pdf_file_id: final, audit_trail_file_id: audit } : {};
      const delivered = receipt({ eventId, type, envelopeId, data });
      o.receipts.push(delivered);
      o.deliveries.push({
        id: delivered.deliveryId,
        eventId,
        eventType: type,
        status: 'succeeded',
        replayOf: null,
      });
    });
  }
  return o;
}

function failing(o: Observation): string[] {
  return checkInvariants(o)
    .filter((result) => !result.ok)
    .map((result) => result.name);
}

describe('chaos run invariants', () => {
  it('a clean run passes every check', () => {
    const results = checkInvariants(cleanObservation());
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.map((r) => r.name)).toEqual([
      'every envelope Completed',
      'no duplicate envelope for any idempotency key',
      'exactly one final PDF and one audit trail each',
      'audit sequences 1..n without gaps or repeats',
      'no projection behind',
      'every webhook event received at least once',
      'every webhook event exactly once after deduplication by delivery id',
      'no event acknowledged in two deliveries',
      'every delivery signed, expected and recorded as succeeded',
      'no orphaned file',
    ]);
  });

  it('a delivery the receiver lost fails "received at least once"', () => {
    const o = cleanObservation();
    o.receipts.splice(
      o.receipts.findIndex((r) => r.type === 'recipient.completed'),
      1,
    );
    expect(failing(o)).toEqual(['every webhook event received at least once']);
  });

  it('a delivery only refused or dropped is not received', () => {
    const o = cleanObservation();
    const target = o.receipts.find((r) => r.type === 'envelope.created') as Receipt;
    target.answer = 'dropped';
    expect(failing(o)).toEqual(['every webhook event received at least once']);
  });

  it('the same delivery arriving twice is fine; the same event in a second delivery is not', () => {
    const o = cleanObservation();
    const first = o.receipts.find((r) => r.type === 'envelope.sent') as Receipt;
    o.receipts.push({ ...first, receivedAt: first.receivedAt + 1 });
    expect(failing(o)).toEqual([]);
    const second = { ...first, deliveryId: id('delivery') };
    o.receipts.push(second);
    o.deliveries.push({
      id: second.deliveryId,
      eventId: first.eventId,
      eventType: first.type,
      status: 'succeeded',
      replayOf: null,
    });
    expect(failing(o)).toEqual([
      'every webhook event exactly once after deduplication by delivery id',
      'no event acknowledged in two deliveries',
    ]);
  });

  it('a second envelope.created for one envelope is a duplicate event', () => {
    const o = cleanObservation();
    const created = o.receipts.find((r) => r.type === 'envelope.created') as Receipt;
    const again = { ...created, deliveryId: id('delivery'), eventId: id('created') };
    o.receipts.push(again);
    o.deliveries.push({
      id: again.deliveryId,
      eventId: again.eventId,
      eventType: again.type,
      status: 'succeeded',
      replayOf: null,
    });
    expect(failing(o)).toEqual(['every webhook event exactly once after deduplication by delivery id']);
  });

  it('a second envelope for one idempotency key is a duplicate', () => {
    const o = cleanObservation();
    const original = o.envelopes[0] as Observation['envelopes'][number];
    o.envelopes.push({
      ...original,
      id: id('envelope'),
      status: 'Draft',
      projectedSequence: 0,
      finalPdfFileId: null,
      auditTrailFileId: null,
    });
    expect(failing(o)).toEqual(
      expect.arrayContaining([
        'every envelope Completed',
        'no duplicate envelope for any idempotency key',
        'exactly one final PDF and one audit trail each',
      ]),
    );
  });

  it('an envelope that did not complete, and one the client gave up on', () => {
    const o = cleanObservation();
    (o.envelopes[1] as Observation['envelopes'][number]).status = 'WaitingForNextSigner';
    expect(failing(o)).toEqual(['every envelope Completed']);
    const p = cleanObservation();
    p.clientFailures.push({ externalReference: 'chaos-test-0', failure: 'gave up' });
    expect(failing(p)).toEqual(['every envelope Completed']);
  });

  it('a gap or a repeat in an audit sequence', () => {
    const gap = cleanObservation();
    gap.auditEvents = gap.auditEvents.filter(
      (e) => !(e.sequence === 3 && e.envelopeId === gap.envelopes[0]?.id),
    );
    expect(failing(gap)).toEqual(['audit sequences 1..n without gaps or repeats']);
    const repeat = cleanObservation();
    const event = repeat.auditEvents.find(
      (e) => e.type === 'recipient.viewed',
    ) as Observation['auditEvents'][number];
    repeat.auditEvents.push({ ...event, id: id('event') });
    expect(failing(repeat)).toEqual(['audit sequences 1..n without gaps or repeats']);
  });

  it('a projection behind the workflow, a parked one, one listed as stuck', () => {
    const behind = cleanObservation();
    (behind.workflows[0] as Observation['workflows'][number]).decidedSequence = TYPES.length + 1;
    expect(failing(behind)).toEqual(['no projection behind']);
    const parked = cleanObservation();
    (parked.envelopes[2] as Observation['envelopes'][number]).projectionError = 'SQLSTATE 23514';
    expect(failing(parked)).toEqual(['no projection behind']);
    const stuck = cleanObservation();
    stuck.stuck = [{ envelopeId: 'x', kind: 'behind', reason: 'no worker' }];
    expect(failing(stuck)).toEqual(['no projection behind']);
    const unasked = cleanObservation();
    unasked.stuck = 'the CLI could not reach Temporal';
    expect(failing(unasked)).toEqual(['no projection behind']);
  });

  it('a second final PDF, a missing audit trail, a damaged file, an orphan', () => {
    const extra = cleanObservation();
    extra.files.push({
      id: id('final'),
      contentType: 'application/pdf',
      isPdf: true,
      intact: true,
      template: false,
    });
    expect(failing(extra)).toEqual(['exactly one final PDF and one audit trail each']);
    const missing = cleanObservation();
    (missing.envelopes[0] as Observation['envelopes'][number]).auditTrailFileId = null;
    expect(failing(missing)).toEqual(
      expect.arrayContaining(['exactly one final PDF and one audit trail each']),
    );
    const damaged = cleanObservation();
    (damaged.files[1] as Observation['files'][number]).intact = false;
    expect(failing(damaged)).toEqual(['exactly one final PDF and one audit trail each']);
    const orphan = cleanObservation();
    orphan.orphanFileIds.push('signature-png');
    expect(failing(orphan)).toEqual(['no orphaned file']);
  });

  it('a delivery that does not verify, failed, or belongs to no event of the run', () => {
    const unsigned = cleanObservation();
    (unsigned.receipts[3] as Receipt).signatureValid = false;
    expect(failing(unsigned)).toEqual(['every delivery signed, expected and recorded as succeeded']);
    const failed = cleanObservation();
    (failed.deliveries[0] as Observation['deliveries'][number]).status = 'failed';
    expect(failing(failed)).toEqual(['every delivery signed, expected and recorded as succeeded']);
    const stranger = cleanObservation();
    stranger.receipts.push(receipt({ eventId: id('event'), type: 'envelope.sent', envelopeId: 'elsewhere' }));
    expect(failing(stranger)).toEqual(['every delivery signed, expected and recorded as succeeded']);
  });
});

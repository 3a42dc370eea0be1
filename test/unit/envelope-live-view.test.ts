// The envelope workflow's live view (EnvelopeModel.liveView, the `envelopeLiveView` query the envelope page asks):
// what it waits for in each phase of the signing, the round in turn and its recipients, the next automatic
// reminder (only before the deadline), the grace window of an Expired envelope, a parked projection; and a
// sender's retry of the final PDF recorded as the sender's.
import { describe, expect, it } from 'vitest';
import type { EnvelopeWorkflowInput, ProjectionStatus } from '../../workflows/contracts.ts';
import { EnvelopeModel } from '../../workflows/envelope-model.ts';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const DAY = 24 * 60 * 60 * 1000;
const PROJECTED: ProjectionStatus = { projectedSequence: 1, decidedSequence: 1, parked: null };

function envelope(
  options: Partial<EnvelopeWorkflowInput> = {},
  clock: { now: number } = { now: NOW },
): EnvelopeModel {
  const model = new EnvelopeModel(
    {
      envelopeId: 'e',
      organizationId: 'o',
      externalReference: null,
      workflowType: 'Sequential',
      expiresAt: new Date(NOW + 10 * DAY).toISOString(),
      recipients: [
        { id: 'a', signingOrder: 1, type: 'Signer', required: true },
        { id: 'b', signingOrder: 2, type: 'Signer', required: true },
        { id: 'c', signingOrder: 3, type: 'Cc', required: false },
      ],
      ...options,
    },
    { now: () => clock.now, rendersFinalPdf: () => true },
  );
  model.send();
  return model;
}

describe('the live view of an envelope', () => {
  it('waits for the recipients of the round in turn, until the deadline', () => {
    const model = envelope();
    expect(model.liveView(PROJECTED)).toEqual({
      envelopeId: 'e',
      status: 'Sent',
      waitingFor: 'recipients',
      openRound: { number: 1, of: 2, recipientIds: ['a'] },
      awaitedRecipientIds: ['a'],
      deadline: new Date(NOW + 10 * DAY).toISOString(),
      nextReminderAt: null,
      automaticReminders: null,
      expiryWarningAt: null,
      graceUntil: null,
      projection: PROJECTED,
    });
    model.complete({ recipientId: 'a' });
    expect(model.liveView(PROJECTED)).toMatchObject({
      status: 'WaitingForNextSigner',
      openRound: { number: 2, of: 2, recipientIds: ['b'] },
      awaitedRecipientIds: ['b'],
    });
    model.complete({ recipientId: 'b' });
    expect(model.liveView(PROJECTED)).toMatchObject({
      status: 'ProcessingFinalPdf',
      waitingFor: 'final_pdf',
      openRound: null,
      awaitedRecipientIds: [],
    });
    model.finalPdfFailed('broken');
    expect(model.liveView(PROJECTED).waitingFor).toBe('final_pdf_retry');
  });

  it('names the next automatic reminder only while it comes before the deadline', () => {
    const model = envelope({ automaticReminders: { everyDays: 3, max: 2 } });
    expect(model.liveView(PROJECTED)).toMatchObject({
      nextReminderAt: new Date(NOW + 3 * DAY).toISOString(),
      automaticReminders: { sent: 0, max: 2, everyDays: 3 },
    });
    model.remindAutomatically();
    model.remindAutomatically();
    expect(model.liveView(PROJECTED)).toMatchObject({
      nextReminderAt: null,
      automaticReminders: { sent: 2, max: 2, everyDays: 3 },
    });
    const late = envelope({ automaticReminders: { everyDays: 30, max: 2 } });
    expect(late.liveView(PROJECTED).nextReminderAt).toBeNull();
  });

  it('waits for an extension within an Expired envelope’s grace window, then for nothing', () => {
    const clock = { now: NOW };
    const model = envelope({ expiredExtensionGraceDays: 5 }, clock);
    clock.now = NOW + 10 * DAY;
    model.deadlinePassed();
    expect(model.liveView(PROJECTED)).toMatchObject({
      status: 'Expired',
      waitingFor: 'extension',
      openRound: null,
      graceUntil: new Date(NOW + 15 * DAY).toISOString(),
    });
    clock.now = NOW + 16 * DAY;
    expect(model.liveView(PROJECTED)).toMatchObject({ waitingFor: 'nothing', graceUntil: null });
  });

  it('waits for an operator while the projection is parked', () => {
    const parked: ProjectionStatus = {
      projectedSequence: 1,
      decidedSequence: 2,
      parked: {
        sequence: 2,
        eventType: 'recipient.opened',
        reason: 'refused',
        sqlState: '23514',
        since: 'x',
      },
    };
    expect(envelope().liveView(parked)).toMatchObject({
      waitingFor: 'projection_repair',
      projection: parked,
    });
  });
});

describe('a retry of the final PDF', () => {
  it('records who asked: a sender, or (no argument, as the operator command and older callers) nobody named', () => {
    const failed = () => {
      const model = envelope();
      model.complete({ recipientId: 'a' });
      model.complete({ recipientId: 'b' });
      model.finalPdfFailed('broken');
      return model;
    };
    const bySender = failed().retryFinalization({ requestedBy: 'sender' });
    expect(bySender.transitions[0]?.event).toEqual({
      type: 'envelope.final_pdf_retried',
      recipientId: null,
      data: { requested_by: 'sender' },
    });
    expect(failed().retryFinalization().transitions[0]?.event.data).toEqual({});
    expect(failed().retryFinalization({}).transitions[0]?.event.data).toEqual({});
  });
});

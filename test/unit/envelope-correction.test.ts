// The correction and the one-recipient reminder of the envelope's model (workflows/envelope-model.ts): the
// sender corrects a recipient who has not completed (opened, viewed or begun is not completed; a Cc too) while
// the envelope is signing; the decision records each changed field's old and new value, starts the recipient
// over (Pending and invited again when in turn, unverified) and leaves one waiting for their turn waiting. A
// reminder to one recipient needs that recipient to be able to act now. Every refusal changes nothing.
import { describe, expect, it } from 'vitest';
import type {
  CorrectRecipientRequest,
  DelegationParty,
  EnvelopeWorkflowInput,
  RecipientPlan,
} from '../../workflows/contracts.ts';
import { EnvelopeModel } from '../../workflows/envelope-model.ts';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const DANA: DelegationParty = {
  fullName: 'Dana Levi',
  email: 'dana@typo.example',
  phone: null,
  deliveryChannel: 'Email',
};

function model(otp = false) {
  const recipient = (id: string, signingOrder: number): RecipientPlan => ({
    id,
    signingOrder,
    type: 'Signer',
    required: true,
    authenticationMethod: otp ? 'OtpSms' : 'SecureLink',
  });
  const input: EnvelopeWorkflowInput = {
    envelopeId: 'e',
    organizationId: 'o',
    externalReference: null,
    workflowType: 'Sequential',
    expiresAt: '2026-07-01T00:00:00.000Z',
    recipients: [
      recipient('r1', 1),
      recipient('r2', 2),
      { id: 'cc', signingOrder: 3, type: 'Cc', required: false },
    ],
  };
  const envelope = new EnvelopeModel(input, { now: () => NOW, rendersFinalPdf: () => true });
  envelope.send();
  return envelope;
}

function correction(recipientId: string, to: Partial<DelegationParty> = {}): CorrectRecipientRequest {
  return { recipientId, from: DANA, to: { ...DANA, email: 'dana@client.example', ...to } };
}

const statuses = (envelope: EnvelopeModel) => envelope.snapshot().recipients.map((r) => r.status);

describe('correcting a recipient', () => {
  it('one in turn who began: Pending again, unverified, invited again; the event holds old and new', () => {
    const envelope = model(true);
    envelope.authenticate({ recipientId: 'r1', outcome: 'verified' });
    envelope.progress({ recipientId: 'r1', step: 'started' });
    expect(envelope.whyCannotCorrect(correction('r1'))).toBeUndefined();
    const decision = envelope.correct(correction('r1', { fullName: 'Dana Levi-Cohen' }));
    expect(decision.messages).toEqual([{ kind: 'invitation', recipientId: 'r1' }]);
    expect(decision.transitions.map((t) => [t.event.type, t.event.recipientId, t.event.data])).toEqual([
      [
        'recipient.corrected',
        'r1',
        {
          changes: {
            fullName: { old: 'Dana Levi', new: 'Dana Levi-Cohen' },
            email: { old: 'dana@typo.example', new: 'dana@client.example' },
          },
        },
      ],
    ]);
    expect(statuses(envelope)).toEqual(['Pending', 'WaitingForTurn', 'Pending']);
    expect(envelope.verified.has('r1')).toBe(false);
    expect(envelope.status).toBe('InProgress');
  });

  it('one waiting for their turn, and a Cc: corrected without an invitation', () => {
    const envelope = model();
    for (const id of ['r2', 'cc']) {
      expect(envelope.whyCannotCorrect(correction(id))).toBeUndefined();
      expect(envelope.correct(correction(id)).messages).toEqual([]);
    }
    expect(statuses(envelope)).toEqual(['Pending', 'WaitingForTurn', 'Pending']);
  });

  it('refused once the recipient completed, when the envelope is final, for a stranger, bad contact or no change', () => {
    const envelope = model();
    envelope.complete({ recipientId: 'r1' });
    const before = JSON.stringify(envelope.snapshot());
    expect(envelope.whyCannotCorrect(correction('r1'))).toMatch(/already completed/);
    expect(envelope.whyCannotCorrect(correction('nobody'))).toMatch(/does not belong/);
    expect(envelope.whyCannotCorrect(correction('r2', { email: null }))).toMatch(/needs an email address/);
    expect(envelope.whyCannotCorrect(correction('r2', { deliveryChannel: 'Sms' }))).toMatch(/needs a phone/);
    expect(envelope.whyCannotCorrect(correction('r2', { deliveryChannel: 'Pigeon' as never }))).toMatch(
      /Unknown delivery channel/,
    );
    expect(envelope.whyCannotCorrect(correction('r2', { fullName: ' ' }))).toMatch(/needs a name/);
    expect(envelope.whyCannotCorrect(correction('r2', { email: 'a\u0000b@example.com' }))).toMatch(
      /cannot be recorded/,
    );
    expect(envelope.whyCannotCorrect({ recipientId: 'r2', from: DANA, to: DANA })).toMatch(/changes nothing/);
    expect(JSON.stringify(envelope.snapshot())).toBe(before);

    envelope.cancel({});
    expect(envelope.whyCannotCorrect(correction('r2'))).toMatch(/Cancelled.*cannot be corrected/);
  });

  it('a DeliveryFailed recipient is invited again, and the envelope resumes when it arrives', () => {
    const envelope = model();
    envelope.messageSettled(
      { kind: 'invitation', recipientId: 'r1' },
      { ok: false, failureType: 'ProviderRejected', message: '550' },
    );
    expect(envelope.status).toBe('DeliveryFailed');
    const decision = envelope.correct(correction('r1'));
    expect(decision.messages).toEqual([{ kind: 'invitation', recipientId: 'r1' }]);
    envelope.messageSettled(decision.messages[0] as never, {
      ok: true,
      result: {
        status: 'sent',
        notificationId: 'n',
        channel: 'Email',
        provider: 'dev-capture',
        providerMessageId: null,
        attempts: 1,
        alreadySent: false,
      },
    });
    expect(envelope.status).toBe('Sent');
    expect(statuses(envelope)[0]).toBe('InvitationSent');
  });
});

describe('reminding one recipient', () => {
  it('only one who may act now; the reminder names them alone; without a recipient, everyone in turn', () => {
    const envelope = model();
    expect(envelope.whyCannotRemind({ recipientId: 'r1' })).toBeUndefined();
    expect(envelope.remind({ recipientId: 'r1' })).toMatchObject({
      messages: [{ kind: 'reminder', recipientId: 'r1' }],
      transitions: [{ event: { type: 'envelope.reminded', data: { recipient_ids: ['r1'] } } }],
    });
    expect(envelope.whyCannotRemind({ recipientId: 'r2' })).toMatch(/r2 cannot act now \(WaitingForTurn\)/);
    expect(envelope.whyCannotRemind({ recipientId: 'cc' })).toMatch(/a Cc recipient/);
    expect(envelope.whyCannotRemind({ recipientId: 'nobody' })).toMatch(/does not belong/);
    // Callers before the one-recipient reminder send nothing.
    expect(envelope.whyCannotRemind(undefined)).toBeUndefined();
    expect(envelope.remind(undefined).messages).toEqual([{ kind: 'reminder', recipientId: 'r1' }]);
    envelope.complete({ recipientId: 'r1' });
    expect(envelope.whyCannotRemind({ recipientId: 'r1' })).toMatch(/cannot act now \(Completed\)/);
  });
});

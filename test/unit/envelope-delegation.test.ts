// The delegation rule of the envelope's model (workflows/envelope-model.ts): a recipient in turn who has not
// acted hands their part to another person only when the envelope allows it and the run knows delegation; the
// decision records who delegated to whom, invites the delegate under the same recipient id, and starts the
// recipient over (Pending, a one-time code to verify again). Every refusal changes nothing.
import { describe, expect, it } from 'vitest';
import type {
  DelegateRecipientRequest,
  EnvelopeWorkflowInput,
  RecipientPlan,
} from '../../workflows/contracts.ts';
import { type EnvelopeHost, EnvelopeModel } from '../../workflows/envelope-model.ts';

const NOW = Date.parse('2026-06-01T00:00:00Z');

function host(acceptsDelegation = true): EnvelopeHost {
  return { now: () => NOW, rendersFinalPdf: () => true, acceptsDelegation: () => acceptsDelegation };
}

function model(
  options: { allowDelegation?: boolean; otp?: boolean; acceptsDelegation?: boolean; cc?: boolean } = {},
) {
  const recipient = (id: string, signingOrder: number): RecipientPlan => ({
    id,
    signingOrder,
    type: 'Signer',
    required: true,
    authenticationMethod: options.otp ? 'OtpSms' : 'SecureLink',
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
      ...(options.cc ? [{ id: 'cc', signingOrder: 3, type: 'Cc' as const, required: false }] : []),
    ],
    ...(options.allowDelegation === false ? {} : { allowDelegation: true }),
  };
  const envelope = new EnvelopeModel(input, host(options.acceptsDelegation ?? true));
  envelope.send();
  return envelope;
}

function request(recipientId: string, to: Partial<DelegateRecipientRequest['to']> = {}) {
  return {
    recipientId,
    from: {
      fullName: 'Dana Levi',
      email: 'dana@example.com',
      phone: null,
      deliveryChannel: 'Email' as const,
    },
    to: {
      fullName: 'Noa Bar',
      email: 'noa@example.com',
      phone: null,
      deliveryChannel: 'Email' as const,
      ...to,
    },
    ip: '203.0.113.9',
  };
}

/** Asserts the validator refuses with a reason matching `reason` and that the envelope did not change. */
function expectRefused(envelope: EnvelopeModel, delegation: DelegateRecipientRequest, reason: RegExp) {
  const before = JSON.stringify(envelope.snapshot());
  expect(envelope.whyCannotDelegate(delegation)).toMatch(reason);
  expect(JSON.stringify(envelope.snapshot())).toBe(before);
}

describe('delegation in the envelope model', () => {
  it('a recipient in turn hands their part over: recorded with both people, the delegate invited, Pending again', () => {
    const envelope = model();
    envelope.open({ recipientId: 'r1' });
    envelope.progress({ recipientId: 'r1', step: 'viewed' });
    const delegation = request('r1');
    expect(envelope.whyCannotDelegate(delegation)).toBeUndefined();
    const decision = envelope.delegate(delegation);
    expect(decision.messages).toEqual([{ kind: 'invitation', recipientId: 'r1' }]);
    expect(decision.transitions.map((t) => [t.event.type, t.event.recipientId])).toEqual([
      ['recipient.delegated', 'r1'],
    ]);
    expect(decision.transitions[0]?.event.data).toEqual({
      delegated_by_name: 'Dana Levi',
      delegated_by_email: 'dana@example.com',
      delegated_by_channel: 'Email',
      delegated_to_name: 'Noa Bar',
      delegated_to_email: 'noa@example.com',
      delegated_to_channel: 'Email',
      ip: '203.0.113.9',
    });
    expect(envelope.snapshot().recipients).toEqual([
      { id: 'r1', status: 'Pending' },
      { id: 'r2', status: 'WaitingForTurn' },
    ]);
    expect(envelope.status).toBe('Opened');
    // The delegate completes in the same place in the order, and the next signer comes into turn.
    envelope.messageSettled(
      { kind: 'invitation', recipientId: 'r1' },
      {
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
      },
    );
    expect(envelope.whyCannotComplete({ recipientId: 'r1' })).toBeUndefined();
    envelope.complete({ recipientId: 'r1' });
    expect(envelope.snapshot().recipients.map((r) => r.status)).toEqual(['Completed', 'Pending']);
  });

  it('is refused when the envelope does not allow it, or the run started before delegation existed', () => {
    expectRefused(model({ allowDelegation: false }), request('r1'), /does not allow/);
    expectRefused(model({ acceptsDelegation: false }), request('r1'), /does not allow/);
  });

  it('is refused once the recipient acted, before their turn, for a Cc, and when the envelope is over', () => {
    const envelope = model({ cc: true });
    expectRefused(envelope, request('r2'), /not yet in turn/);
    expectRefused(envelope, request('cc'), /Cc recipient/);
    envelope.complete({ recipientId: 'r1' });
    expectRefused(envelope, request('r1'), /already completed/);
    expectRefused(envelope, request('nobody'), /does not belong/);
    envelope.decline({ recipientId: 'r2', reason: 'no' });
    expectRefused(envelope, request('r2'), /Declined/);
    const cancelled = model();
    cancelled.cancel({});
    expectRefused(cancelled, request('r1'), /Cancelled/);
  });

  it('a one-time-code recipient verifies first, and the delegate must verify again', () => {
    const envelope = model({ otp: true });
    const delegation = request('r1', { phone: '+972501234567', deliveryChannel: 'Sms', email: null });
    expectRefused(envelope, delegation, /one-time code/);
    envelope.authenticate({ recipientId: 'r1', outcome: 'verified' });
    expect(envelope.whyCannotDelegate(delegation)).toBeUndefined();
    envelope.delegate(delegation);
    expect(envelope.verified.has('r1')).toBe(false);
    expect(envelope.whyCannotComplete({ recipientId: 'r1' })).toMatch(/one-time code/);
  });

  it('refuses a delegate no message reaches, without a name, or with text that cannot be recorded', () => {
    const envelope = model();
    expectRefused(envelope, request('r1', { deliveryChannel: 'ManualLink' }), /Email, Sms or WhatsApp/);
    expectRefused(envelope, request('r1', { deliveryChannel: 'Sms' }), /no address for Sms/);
    expectRefused(envelope, request('r1', { fullName: '  ' }), /needs a name/);
    expectRefused(envelope, request('r1', { fullName: 'Noa\u0000Bar' }), /cannot be recorded/);
  });
});

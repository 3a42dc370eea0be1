// The transition table (workflows/transitions.ts) against the workflow's model: every row is driven from
// every status it names, through the decision the workflow carries out, and lands where it says, recording
// only events the row names; every Update the table does not allow is refused; and the table in
// docs/envelope-lifecycle.md is the one generated from the code.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { EnvelopeStatus, RecipientStatus } from '../../domain/vocabulary.ts';
import type { EnvelopeWorkflowInput, RecipientPlan } from '../../workflows/contracts.ts';
import {
  type Decision,
  type EnvelopeHost,
  EnvelopeModel,
  type MessageOutcome,
  type MessageRequest,
} from '../../workflows/envelope-model.ts';
import {
  ENVELOPE_TRANSITIONS,
  type EnvelopeTrigger,
  SIGNING_STATUSES,
  transitionTableMarkdown,
} from '../../workflows/transitions.ts';

const NOW = Date.parse('2026-06-01T00:00:00Z');
const LATER = '2026-07-01T00:00:00.000Z';
const MUCH_LATER = '2026-08-01T00:00:00.000Z';
const ARTIFACTS = { finalPdfFileId: 'final', auditTrailFileId: 'audit', finalPdfSha256: 'sha' };
const SENT: MessageOutcome = {
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
};
const DELEGATION = {
  from: { fullName: 'Dana Levi', email: 'dana@example.com', phone: null, deliveryChannel: 'Email' as const },
  to: { fullName: 'Noa Bar', email: 'noa@example.com', phone: null, deliveryChannel: 'Email' as const },
};
const CORRECTION = {
  from: DELEGATION.from,
  to: { ...DELEGATION.from, email: 'dana.levi@example.com' },
};
const FAILED: MessageOutcome = { ok: false, failureType: 'NoAddress', message: 'no e-mail address' };

/** The workflow as the model sees it: a fixed clock, and a last completion that renders the final PDF. */
function host(now = NOW): EnvelopeHost {
  return { now: () => now, rendersFinalPdf: () => true };
}

const invitation = (recipientId: string): MessageRequest => ({ kind: 'invitation', recipientId });
const reminder = (recipientId: string): MessageRequest => ({ kind: 'reminder', recipientId });

/** The recipients a decision found unreachable (its `envelope.delivery_failed`), or null. */
function unreachable(decision: Decision): unknown {
  const failed = decision.transitions.find((t) => t.event.type === 'envelope.delivery_failed');
  return failed ? failed.event.data.recipient_ids : null;
}

function input(
  workflowType: EnvelopeWorkflowInput['workflowType'],
  otp: boolean,
  graceDays = 0,
): EnvelopeWorkflowInput {
  const recipient = (id: string, signingOrder: number): RecipientPlan => ({
    id,
    signingOrder,
    type: 'Signer',
    required: true,
    authenticationMethod: otp ? 'OtpSms' : 'SecureLink',
  });
  return {
    envelopeId: 'e',
    organizationId: 'o',
    externalReference: null,
    workflowType,
    expiresAt: LATER,
    recipients: [recipient('r1', 1), recipient('r2', 2)],
    expiredExtensionGraceDays: graceDays,
    allowDelegation: true,
  };
}

/** A recipient who may act now (or the first one, when nobody may). */
function actor(model: EnvelopeModel): string {
  return model.awaitedRecipients()[0] ?? 'r1';
}

function verify(model: EnvelopeModel, id: string): void {
  if (model.usesOtp(id) && !model.verified.has(id))
    model.authenticate({ recipientId: id, outcome: 'verified' });
}

function completeNext(model: EnvelopeModel): void {
  const id = actor(model);
  verify(model, id);
  expect(model.whyCannotComplete({ recipientId: id })).toBeUndefined();
  model.complete({ recipientId: id });
}

/** A fresh model in the given status, reached through the model's own actions. */
function reach(status: EnvelopeStatus, otp = false): EnvelopeModel {
  const parallel = status === 'InProgress';
  const model = new EnvelopeModel(input(parallel ? 'Parallel' : 'Sequential', otp, 30), host());
  model.send();
  switch (status) {
    case 'Sent':
      break;
    case 'Opened':
      model.open({ recipientId: 'r1' });
      break;
    case 'InProgress':
    case 'WaitingForNextSigner':
      completeNext(model);
      break;
    case 'ProcessingFinalPdf':
      completeNext(model);
      completeNext(model);
      break;
    case 'FinalPdfFailed':
      completeNext(model);
      completeNext(model);
      model.finalPdfFailed('render error');
      break;
    case 'Completed':
      completeNext(model);
      completeNext(model);
      model.finalPdfStored(ARTIFACTS);
      break;
    case 'Declined':
      verify(model, 'r1');
      model.decline({ recipientId: 'r1', reason: 'not my contract' });
      break;
    case 'Cancelled':
      model.cancel({});
      break;
    case 'Expired':
      model.deadlinePassed();
      break;
    case 'DeliveryFailed':
      expect(unreachable(model.messageSettled(invitation('r1'), FAILED))).toEqual(['r1']);
      break;
    default:
      throw new Error(`reach(${status}) is not written`);
  }
  expect(model.status).toBe(status);
  return model;
}

const REACHABLE: EnvelopeStatus[] = [
  ...SIGNING_STATUSES,
  'ProcessingFinalPdf',
  'FinalPdfFailed',
  'Completed',
  'Declined',
  'Cancelled',
  'Expired',
];

/** The Update's validator for a trigger: undefined when the model accepts it. */
function validate(model: EnvelopeModel, trigger: EnvelopeTrigger): string | undefined {
  const id = actor(model);
  switch (trigger) {
    case 'open':
      return model.whyCannotOpen({ recipientId: id });
    case 'authenticate':
      return model.whyCannotAuthenticate({ recipientId: id, outcome: 'code_sent', channel: 'Sms' });
    case 'view':
      return model.whyCannotProgress({ recipientId: id, step: 'viewed' });
    case 'start':
      return model.whyCannotProgress({ recipientId: id, step: 'started' });
    case 'complete':
      return model.whyCannotComplete({ recipientId: id });
    case 'decline':
      return model.whyCannotDecline({ recipientId: id, reason: 'not my contract' });
    case 'delegate':
      return model.whyCannotDelegate({ recipientId: id, ...DELEGATION });
    case 'correct':
      return model.whyCannotCorrect({ recipientId: id, ...CORRECTION });
    case 'remind':
      return model.whyCannotRemind();
    case 'extend':
    case 'extend after expiry':
      return model.whyCannotExtend({ expiresAt: MUCH_LATER });
    case 'cancel':
      return model.whyCannotCancel();
    case 'retry final PDF':
      return model.whyCannotRetryFinalization();
    case 'change settings':
      return model.whyCannotUpdateSettings(SETTINGS_CHANGE);
    default:
      return undefined;
  }
}

/** Decides a trigger the way the workflow does once it is accepted. */
function apply(model: EnvelopeModel, trigger: EnvelopeTrigger): Decision | undefined {
  const id = actor(model);
  switch (trigger) {
    case 'open':
      return model.open({ recipientId: id });
    case 'authenticate':
      return model.authenticate({ recipientId: id, outcome: 'code_sent', channel: 'Sms' });
    case 'view':
      return model.progress({ recipientId: id, step: 'viewed' });
    case 'start':
      return model.progress({ recipientId: id, step: 'started' });
    case 'complete':
      return model.complete({ recipientId: id });
    case 'decline':
      return model.decline({ recipientId: id, reason: 'not my contract' });
    case 'delegate':
      return model.delegate({ recipientId: id, ...DELEGATION });
    case 'correct':
      return model.correct({ recipientId: id, ...CORRECTION });
    case 'remind':
      expect(model.awaitedRecipients().length).toBeGreaterThan(0);
      return model.remind();
    case 'automatic reminder':
      expect(model.awaitedRecipients().length).toBeGreaterThan(0);
      return model.remindAutomatically();
    case 'deadline warning':
      expect(model.awaitedRecipients().length).toBeGreaterThan(0);
      return model.warnOfDeadline();
    case 'change settings':
      return model.updateSettings(SETTINGS_CHANGE);
    case 'extend':
    case 'extend after expiry':
      return model.extend({ expiresAt: MUCH_LATER });
    case 'cancel':
      return model.cancel({});
    case 'deadline':
      return model.deadlinePassed();
    case 'final PDF stored':
      return model.finalPdfStored(ARTIFACTS);
    case 'final PDF failed':
      return model.finalPdfFailed('render error');
    case 'retry final PDF':
      return model.retryFinalization();
    case 'message delivered':
      return model.messageSettled(invitation(id), SENT);
    case 'message failed':
      return model.messageSettled(invitation(id), FAILED);
    case 'send':
      return undefined;
  }
}

/** Triggers that reach the workflow as an Update with a validator (timers and the activity have none). */
const VALIDATED: EnvelopeTrigger[] = [
  'open',
  'authenticate',
  'view',
  'start',
  'complete',
  'decline',
  'delegate',
  'correct',
  'remind',
  'extend',
  'cancel',
  'retry final PDF',
  'change settings',
];

/** A change of every reminder and deadline setting (the lead time only where the run sends warnings). */
const SETTINGS_CHANGE = { automaticReminders: { everyDays: 2, max: 4 }, expiredExtensionGraceDays: 7 };

describe('the envelope transition table', () => {
  it('send: a new workflow is Sent, the first round Pending and later rounds WaitingForTurn', () => {
    const model = reach('Sent');
    expect(model.status).toBe('Sent');
    expect(model.snapshot().recipients.map((r) => r.status)).toEqual(['Pending', 'WaitingForTurn']);
  });

  for (const rule of ENVELOPE_TRANSITIONS.filter((r) => r.trigger !== 'send')) {
    for (const from of rule.from) {
      it(`${rule.trigger}: ${from} → ${rule.to.join(' / ')}`, () => {
        const model = reach(from, rule.trigger === 'authenticate');
        const before = model.status;
        const beforeExpiry = model.beforeExpiry?.status;
        const beforeFailure = model.beforeDeliveryFailure;
        expect(validate(model, rule.trigger)).toBeUndefined();
        const decision = apply(model, rule.trigger);
        for (const transition of decision?.transitions ?? []) {
          expect(rule.event).toContain(`\`${transition.event.type}\``);
        }
        const allowed = rule.to.map((target) => {
          if (target === 'unchanged') return before;
          if (target === 'status before expiry') return beforeExpiry;
          if (target === 'status before the delivery failure') return beforeFailure;
          return target;
        });
        expect(allowed).toContain(model.status);
      });
    }
  }

  for (const trigger of VALIDATED) {
    const allowedFrom = ENVELOPE_TRANSITIONS.filter(
      (r) => r.trigger === trigger || (trigger === 'extend' && r.trigger === 'extend after expiry'),
    ).flatMap((r) => r.from);
    for (const status of REACHABLE.filter((s) => !allowedFrom.includes(s))) {
      it(`${trigger} is refused when the envelope is ${status}`, () => {
        const model = reach(status, trigger === 'authenticate');
        const snapshot = JSON.stringify(model.snapshot());
        expect(validate(model, trigger)).toMatch(/\S/);
        expect(JSON.stringify(model.snapshot())).toBe(snapshot);
      });
    }
  }

  it('an Expired envelope past its grace window cannot be extended', () => {
    const model = new EnvelopeModel(input('Sequential', false, 0), host());
    model.send();
    model.deadlinePassed();
    expect(model.whyCannotExtend({ expiresAt: MUCH_LATER })).toMatch(/cannot change/);
  });

  it('docs/envelope-lifecycle.md holds the table generated from the code (npm run docs:transitions)', async () => {
    const doc = await readFile(new URL('../../docs/envelope-lifecycle.md', import.meta.url), 'utf8');
    const match = /<!-- transitions:begin -->\n([\s\S]*?)\n<!-- transitions:end -->/.exec(doc);
    expect(match?.[1]).toBe(transitionTableMarkdown());
  });
});

describe('recipient statuses', () => {
  const statuses = (model: EnvelopeModel): RecipientStatus[] =>
    model.snapshot().recipients.map((r) => r.status);

  it('an OTP recipient: LinkOpened → AuthenticationPending → Failed → Pending → Verified → Viewed → InProgress → Completed', () => {
    const model = reach('Sent', true);
    const steps: RecipientStatus[] = [];
    model.open({ recipientId: 'r1' });
    steps.push(statuses(model)[0] as RecipientStatus);
    expect(model.whyCannotProgress({ recipientId: 'r1', step: 'viewed' })).toMatch(/one-time code/);
    expect(model.whyCannotComplete({ recipientId: 'r1' })).toMatch(/one-time code/);
    expect(model.whyCannotDecline({ recipientId: 'r1', reason: 'no' })).toMatch(/one-time code/);
    for (const outcome of ['code_sent', 'failed', 'code_sent', 'verified'] as const) {
      model.authenticate({ recipientId: 'r1', outcome });
      steps.push(statuses(model)[0] as RecipientStatus);
    }
    model.progress({ recipientId: 'r1', step: 'viewed' });
    steps.push(statuses(model)[0] as RecipientStatus);
    model.progress({ recipientId: 'r1', step: 'started' });
    steps.push(statuses(model)[0] as RecipientStatus);
    // Never backwards: viewing again, or a later code, changes nothing.
    expect(model.progress({ recipientId: 'r1', step: 'viewed' })).toEqual({ messages: [], transitions: [] });
    model.authenticate({ recipientId: 'r1', outcome: 'code_sent' });
    steps.push(statuses(model)[0] as RecipientStatus);
    model.complete({ recipientId: 'r1' });
    steps.push(statuses(model)[0] as RecipientStatus);
    expect(steps).toEqual([
      'LinkOpened',
      'AuthenticationPending',
      'AuthenticationFailed',
      'AuthenticationPending',
      'AuthenticationVerified',
      'Viewed',
      'InProgress',
      'InProgress',
      'Completed',
    ]);
    expect(model.status).toBe('WaitingForNextSigner');
    expect(statuses(model)[1]).toBe('Pending');
  });

  it('a recipient who has begun keeps their status while their round is in turn; SecureLink recipients use no codes', () => {
    const model = new EnvelopeModel(input('Parallel', false), host());
    model.send();
    model.progress({ recipientId: 'r1', step: 'viewed' });
    model.progress({ recipientId: 'r2', step: 'started' });
    expect(model.whyCannotAuthenticate({ recipientId: 'r1', outcome: 'code_sent' })).toMatch(
      /does not use one-time codes/,
    );
    model.complete({ recipientId: 'r1' });
    expect(statuses(model)).toEqual(['Completed', 'InProgress']);
    expect(model.awaitedRecipients()).toEqual(['r2']);
  });

  it('a Viewer completes only after viewing the document; an Approver needs no fields', () => {
    const base = input('Parallel', false);
    const model = new EnvelopeModel(
      {
        ...base,
        recipients: [
          { ...(base.recipients[0] as RecipientPlan), type: 'Viewer' },
          { ...(base.recipients[1] as RecipientPlan), type: 'Approver' },
        ],
      },
      host(),
    );
    model.send();
    expect(model.whyCannotComplete({ recipientId: 'r1' })).toMatch(/after opening the document/);
    expect(model.whyCannotComplete({ recipientId: 'r2' })).toBeUndefined();
    model.open({ recipientId: 'r1' });
    expect(model.whyCannotComplete({ recipientId: 'r1' })).toMatch(/after opening the document/);
    model.progress({ recipientId: 'r1', step: 'viewed' });
    expect(model.whyCannotComplete({ recipientId: 'r1' })).toBeUndefined();
  });

  it('DeliveryFailed only when nobody in turn can be reached; it resumes the status it interrupted', () => {
    const parallel = new EnvelopeModel(input('Parallel', false), host());
    parallel.send();
    expect(unreachable(parallel.messageSettled(invitation('r1'), FAILED))).toBeNull();
    expect(parallel.status).toBe('Sent');
    expect(unreachable(parallel.messageSettled(invitation('r2'), FAILED))).toEqual(['r1', 'r2']);
    expect(statuses(parallel)).toEqual(['DeliveryFailed', 'DeliveryFailed']);

    const sequential = reach('WaitingForNextSigner');
    expect(unreachable(sequential.messageSettled(invitation('r2'), FAILED))).toEqual(['r2']);
    expect(sequential.status).toBe('DeliveryFailed');
    const carried = new EnvelopeModel(
      { ...input('Sequential', false, 30), carried: sequential.carry('DeliveryFailed') },
      host(),
    );
    // A reminder records its delivery only when it changed the recipient.
    const delivered = carried.messageSettled(reminder('r2'), SENT);
    expect(delivered.transitions.map((t) => t.event.type)).toEqual(['recipient.invitation_sent']);
    expect(carried.status).toBe('WaitingForNextSigner');
    expect(statuses(carried)).toEqual(['Completed', 'InvitationSent']);
    // A recipient who has begun is not marked undeliverable by a failed reminder.
    carried.open({ recipientId: 'r2' });
    const failed = carried.messageSettled(reminder('r2'), FAILED);
    expect(statuses(carried)).toEqual(['Completed', 'LinkOpened']);
    expect(unreachable(failed)).toBeNull();
  });

  it('continue-as-new: a model rebuilt from what it carries is the same envelope', () => {
    const model = reach('WaitingForNextSigner', true);
    model.authenticate({ recipientId: 'r2', outcome: 'verified' });
    const carried = model.carry('WaitingForNextSigner');
    const next = new EnvelopeModel({ ...input('Sequential', true, 30), carried }, host());
    expect(next.snapshot()).toEqual(model.snapshot());
    expect([...next.verified]).toEqual([...model.verified]);
    expect(next.carry('WaitingForNextSigner')).toEqual(carried);
    expect(next.whyCannotComplete({ recipientId: 'r2' })).toBeUndefined();
    model.deadlinePassed();
    const expired = new EnvelopeModel(
      { ...input('Sequential', true, 30), carried: model.carry('Expired') },
      host(NOW + 1000),
    );
    expect(expired.revivable()).toBe(true);
    expired.extend({ expiresAt: MUCH_LATER });
    expect(expired.status).toBe('WaitingForNextSigner');
  });
});

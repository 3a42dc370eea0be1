// The envelope workflow: one durable workflow per sent envelope, from send to a final status.
// The model (envelope-model.ts) decides every transition; each message handler is one call into it, and the
// run (envelope-run.ts) carries the decisions out: the projection activity writes each transition to
// PostgreSQL in order.
import { condition, continueAsNew, patched, setHandler } from '@temporalio/workflow';
import {
  cancelEnvelopeUpdate,
  completeRecipientUpdate,
  correctRecipientUpdate,
  declineRecipientUpdate,
  delegateRecipientUpdate,
  type EnvelopeState,
  type EnvelopeWorkflowInput,
  envelopeLiveViewQuery,
  envelopeStateQuery,
  extendEnvelopeUpdate,
  projectionStatusQuery,
  recipientAuthenticationUpdate,
  recipientOpenedUpdate,
  recipientProgressUpdate,
  remindEnvelopeUpdate,
  reportDeliveryFailureUpdate,
  resumeProjectionUpdate,
  retryFinalizationUpdate,
  sendEnvelopeUpdate,
  updateEnvelopeSettingsUpdate,
} from './contracts.ts';
import { EnvelopeModel } from './envelope-model.ts';
import { EnvelopeRun, refuse } from './envelope-run.ts';

/** Envelopes whose last signature arrives on this code render a final PDF before they are Completed. */
const FINAL_PDF_PATCH = 'final-pdf-before-completed';
/** Runs started on this code queue a webhook delivery per subscribed endpoint for every event. */
const WEBHOOK_PATCH = 'webhook-events';
/** Runs started on this code send invitations, reminders and notices (sendNotification). */
const NOTIFICATIONS_PATCH = 'notifications';
/**
 * Runs started on this code take delegations (`delegateRecipient`); older runs, whose envelopes could not
 * allow it, refuse them.
 */
const DELEGATION_PATCH = 'delegation';
/**
 * Runs started on this code warn recipients before the deadline (a timer of its own, `expiringSoonDays`
 * before it) and tell them when it passed; older runs, recorded without either, replay unchanged.
 */
const DEADLINE_NOTICES_PATCH = 'deadline-notices';

export async function envelopeWorkflow(input: EnvelopeWorkflowInput): Promise<EnvelopeState> {
  const versions = {
    emitsWebhooks: patched(WEBHOOK_PATCH),
    sendsNotifications: patched(NOTIFICATIONS_PATCH),
  };
  const acceptsDelegation = patched(DELEGATION_PATCH);
  const sendsDeadlineNotices = patched(DEADLINE_NOTICES_PATCH);
  const envelope = new EnvelopeModel(input, {
    now: () => Date.now(),
    rendersFinalPdf: () => patched(FINAL_PDF_PATCH),
    acceptsDelegation: () => acceptsDelegation,
    sendsDeadlineNotices: () => sendsDeadlineNotices,
  });
  const run = new EnvelopeRun(input, envelope, versions);

  // Send, before any handler is set: Updates that arrive with the start (such as an early extend) are
  // delivered when their handler is set, and must find the envelope sent.
  if (!input.carried) run.carryOut(envelope.send());

  setHandler(envelopeStateQuery, () => envelope.snapshot());
  setHandler(projectionStatusQuery, () => run.projectionStatus());
  setHandler(envelopeLiveViewQuery, () => envelope.liveView(run.projectionStatus()));
  // Operators: project the queued transitions again once a parked projection's cause is repaired.
  setHandler(resumeProjectionUpdate, (request) => run.resume(request), {
    validator: (_request) => refuse(run.whyCannotResume(), 'ProjectionNotParked'),
  });
  // Every change below is refused while the projection is parked (run.refuse), then by the model's own rule.
  // Sending is idempotent: a repeated send answers with the state once the send is projected.
  setHandler(sendEnvelopeUpdate, () => run.projected(1));
  setHandler(completeRecipientUpdate, (request) => run.answer(envelope.complete(request)), {
    validator: (request) => run.refuse(envelope.whyCannotComplete(request), 'RecipientCannotComplete'),
  });
  setHandler(cancelEnvelopeUpdate, (request) => run.answer(envelope.cancel(request)), {
    validator: (request) => run.refuse(envelope.whyCannotCancel(request), 'EnvelopeNotCancellable'),
  });
  setHandler(declineRecipientUpdate, (request) => run.answer(envelope.decline(request)), {
    validator: (request) => run.refuse(envelope.whyCannotDecline(request), 'RecipientCannotDecline'),
  });
  // The delegate's invitation goes out once the change is in PostgreSQL: the message reads who they are there.
  setHandler(delegateRecipientUpdate, (request) => run.answerBeforeMessages(envelope.delegate(request)), {
    validator: (request) => run.refuse(envelope.whyCannotDelegate(request), 'RecipientCannotDelegate'),
  });
  setHandler(recipientOpenedUpdate, (request) => run.answer(envelope.open(request)), {
    validator: (request) => run.refuse(envelope.whyCannotOpen(request), 'RecipientCannotOpen'),
  });
  setHandler(recipientAuthenticationUpdate, (request) => run.answer(envelope.authenticate(request)), {
    validator: (request) =>
      run.refuse(envelope.whyCannotAuthenticate(request), 'RecipientCannotAuthenticate'),
  });
  setHandler(recipientProgressUpdate, (request) => run.answer(envelope.progress(request)), {
    validator: (request) => run.refuse(envelope.whyCannotProgress(request), 'RecipientCannotProgress'),
  });
  // Callers before the business app send no argument (an operator's retry): the model takes it as optional.
  setHandler(retryFinalizationUpdate, (request) => run.answer(envelope.retryFinalization(request)), {
    validator: (_request) => run.refuse(envelope.whyCannotRetryFinalization(), 'EnvelopeNotRetryable'),
  });
  // Callers before the one-recipient reminder send no argument: the model takes it as optional.
  setHandler(remindEnvelopeUpdate, (request) => run.answer(envelope.remind(request)), {
    validator: (request) => run.refuse(envelope.whyCannotRemind(request), 'EnvelopeNotRemindable'),
  });
  // The sender corrects a recipient; as with a delegation, the new invitation goes out once the change is in
  // PostgreSQL (the message reads the new address there). A new handler: recorded histories replay unchanged.
  setHandler(correctRecipientUpdate, (request) => run.answerBeforeMessages(envelope.correct(request)), {
    validator: (request) => run.refuse(envelope.whyCannotCorrect(request), 'RecipientCannotBeCorrected'),
  });
  setHandler(extendEnvelopeUpdate, (request) => run.answer(envelope.extend(request)), {
    validator: (request) => run.refuse(envelope.whyCannotExtend(request), 'EnvelopeNotExtendable'),
  });
  // Reminder and deadline settings while the envelope is open. A new handler: recorded histories replay unchanged.
  setHandler(updateEnvelopeSettingsUpdate, (request) => run.answer(envelope.updateSettings(request)), {
    validator: (request) =>
      run.refuse(envelope.whyCannotUpdateSettings(request), 'EnvelopeSettingsNotChangeable'),
  });
  // A bounce or a carrier's failure status, reported after the provider had accepted the message: the model
  // decides it as that message's failure for good. A new handler: recorded histories replay unchanged.
  setHandler(
    reportDeliveryFailureUpdate,
    (request) => run.answer(envelope.deliveryFailureReported(request)),
    {
      validator: (request) =>
        run.refuse(envelope.whyCannotReportDeliveryFailure(request), 'DeliveryFailureNotApplicable'),
    },
  );

  // Project what was decided, then wait for what comes next, until the envelope is finished.
  while (true) {
    await run.drain();
    if (run.historyIsLong() && !envelope.closedForGood()) {
      // Let accepted Updates answer and messages settle first; anything decided meanwhile is projected
      // before the run hands over.
      await condition(() => run.idle() || run.hasPending());
      if (run.hasPending()) continue;
      await continueAsNew<typeof envelopeWorkflow>({ ...input, carried: run.carry() });
    }
    if (envelope.status === 'Expired') {
      // Within the grace window an extend revives the envelope; after it the envelope stays Expired.
      const graceLeft = envelope.graceLeft();
      if (graceLeft > 0 && (await condition(() => run.hasPending(), graceLeft))) continue;
      break;
    }
    if (envelope.isFinished()) break;
    if (envelope.status === 'ProcessingFinalPdf') {
      await run.finalize();
      continue;
    }
    if (envelope.status === 'FinalPdfFailed') {
      // Signing is over, so the deadline no longer applies: wait for an operator's retry.
      await condition(() => run.hasPending());
      continue;
    }
    const wake = envelope.nextWake();
    if (await run.waitForChange(wake.at)) continue;
    if (wake.warn) run.carryOut(envelope.warnOfDeadline());
    else run.carryOut(wake.remind ? envelope.remindAutomatically() : envelope.deadlinePassed());
  }
  await run.settle();
  return envelope.snapshot();
}

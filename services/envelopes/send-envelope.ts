// Sends a Draft envelope: starts its workflow with update-with-start. A retried or doubled send finds
// the running workflow (conflict policy USE_EXISTING) and answers with the state it decided.
import { WithStartWorkflowOperation, WorkflowNotFoundError } from '@temporalio/client';
import { Envelope, Organization, type Recipient } from '../../db/entities/index.ts';
import { isTerminalEnvelopeStatus } from '../../domain/vocabulary.ts';
import {
  TemporalUnavailableError,
  temporalTimeoutMs,
  withTemporalDeadline,
} from '../../temporal/deadline.ts';
import {
  ENVELOPE_TASK_QUEUE,
  ENVELOPE_WORKFLOW_TASK_TIMEOUT,
  ENVELOPE_WORKFLOW_TYPE,
  type EnvelopeState,
  type EnvelopeWorkflow,
  type EnvelopeWorkflowInput,
  envelopeWorkflowId,
  searchAttributes,
  sendEnvelopeUpdate,
} from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { idempotentUpdateId } from '../idempotency.ts';
import { requireActiveOrganization } from '../organizations/organization-standing.ts';
import { releaseSend, reserveSend } from '../usage/send-reservation.ts';
import {
  envelopeDeadlineSettings,
  type OrganizationDeadlineDefaults,
  organizationDeadlineSettings,
  workflowSettings,
} from './deadline-settings.ts';
import { outcomeUnknown } from './envelope-update.ts';
import { findEnvelope } from './find-envelope.ts';
import { toServiceError } from './workflow-errors.ts';

/** Tuning of the workflow a send starts; only tests change it. */
export interface SendOptions {
  /** Continue-as-new once a run's history holds this many events (the workflow's default: 5,000). */
  continueAsNewAtHistoryLength?: number;
}

/** An envelope its caller has loaded (or just written), with what a send needs of its recipients. */
export interface EnvelopeToSend {
  envelope: Envelope;
  recipients: readonly SendRecipient[];
  organization: Organization;
  /**
   * Its send is reserved already (the send page reserves it in the transaction that writes the Draft:
   * send-document.ts); a refused start still gives the reservation back.
   */
  reserved?: boolean;
}

type SendRecipient = Pick<
  Recipient,
  'id' | 'signingOrder' | 'type' | 'required' | 'deliveryChannel' | 'authenticationMethod'
>;

/** Sends the organization's envelope `envelopeId`, read from PostgreSQL. */
export async function sendEnvelope(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  options: SendOptions = {},
): Promise<EnvelopeState> {
  const { envelope, recipients } = await findEnvelope(ctx, organizationId, envelopeId);
  const organization = await ctx.em.findOneOrFail(Organization, { id: envelope.organizationId });
  return sendLoadedEnvelope(ctx, { envelope, recipients, organization }, options);
}

/** Sends an envelope its caller has loaded: nothing is read again. */
export async function sendLoadedEnvelope(
  ctx: ServiceContext,
  loaded: EnvelopeToSend,
  options: SendOptions = {},
): Promise<EnvelopeState> {
  const { envelope, recipients, organization } = loaded;
  if (isTerminalEnvelopeStatus(envelope.status)) {
    throw new Conflict(`Envelope ${envelope.id} is ${envelope.status} and cannot be sent.`);
  }
  if (envelope.expiresAt && envelope.expiresAt.getTime() <= Date.now()) {
    throw new Conflict(
      `Envelope ${envelope.id} expired at ${envelope.expiresAt.toISOString()} before it was sent.`,
    );
  }
  // The envelope's own reminder and deadline settings (written when it was created), else the organization's.
  const settings = envelopeDeadlineSettings(envelope, organization);
  const input = { ...envelopeWorkflowInput(envelope, recipients, settings), ...options };
  const workflowId = envelopeWorkflowId(envelope.id);
  const firstSend = envelope.status === 'Draft';
  if (firstSend) {
    // A suspended or deleted organization sends nothing new (403); what it sent before goes on.
    requireActiveOrganization(organization, `send envelope ${envelope.id}`);
    // A first send (not a repeated one) takes one of the plan's monthly documents and holds the credits of the
    // text messages it needs, atomically with recording the workflow id (send-reservation.ts).
    if (!loaded.reserved) {
      await reserveSend(ctx.em, envelope, recipients, workflowId, `send envelope ${envelope.id}`);
    }
  } else if (envelope.workflowId !== workflowId) {
    const recorded = await ctx.em.nativeUpdate(
      Envelope,
      { id: envelope.id, status: { $nin: ['Archived', 'Deleted'] } },
      { workflowId },
    );
    if (recorded === 0) throw new Conflict(`Envelope ${envelope.id} was deleted and cannot be sent.`);
  }
  const startWorkflowOperation = new WithStartWorkflowOperation<EnvelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
    workflowId,
    taskQueue: ENVELOPE_TASK_QUEUE,
    args: [input],
    workflowIdConflictPolicy: 'USE_EXISTING',
    // A finished envelope's workflow is never started again under the same id.
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    // A task held by a worker that died blocks the envelope this long, not Temporal's 10 s (contracts.ts).
    workflowTaskTimeout: ENVELOPE_WORKFLOW_TASK_TIMEOUT,
    typedSearchAttributes: [
      { key: searchAttributes.organizationId, value: envelope.organizationId },
      { key: searchAttributes.envelopeStatus, value: 'Sent' },
      ...(envelope.externalReference
        ? [{ key: searchAttributes.externalReference, value: envelope.externalReference }]
        : []),
    ],
  });
  // Bounded like every Update (envelope-update.ts); under an Idempotency-Key a retry sends the same Update id.
  const { idempotency } = ctx;
  try {
    return await withTemporalDeadline(
      ctx.temporal,
      temporalTimeoutMs(ctx.config),
      `sending envelope ${envelope.id}`,
      () =>
        ctx.temporal.workflow.executeUpdateWithStart(sendEnvelopeUpdate, {
          startWorkflowOperation,
          ...(idempotency ? { updateId: idempotentUpdateId(idempotency, sendEnvelopeUpdate.name) } : {}),
        }),
    );
  } catch (error) {
    if (error instanceof TemporalUnavailableError) throw outcomeUnknown(error, envelope.id, idempotency);
    // A refused first send whose workflow never started gives its reservation back; when the outcome is not
    // known (above), the reservation stays, since the envelope may have been sent.
    if (firstSend && !(await workflowExists(ctx, workflowId))) await releaseSend(ctx.em, envelope.id);
    throw toServiceError(error, envelope.id, envelope.status);
  }
}

/** Whether the workflow exists; true when Temporal cannot tell (a reservation is kept rather than lost). */
async function workflowExists(ctx: ServiceContext, workflowId: string): Promise<boolean> {
  try {
    await withTemporalDeadline(
      ctx.temporal,
      temporalTimeoutMs(ctx.config),
      `looking for workflow ${workflowId}`,
      () => ctx.temporal.workflow.getHandle(workflowId).describe(),
    );
    return true;
  } catch (error) {
    return !(error instanceof WorkflowNotFoundError);
  }
}

/** The workflow's input, taken from the envelope's rows. */
export function envelopeWorkflowInput(
  envelope: Pick<Envelope, 'id' | 'organizationId' | 'externalReference' | 'workflowType' | 'expiresAt'> &
    Partial<Pick<Envelope, 'allowDelegation'>>,
  recipients: readonly Pick<
    Recipient,
    'id' | 'signingOrder' | 'type' | 'required' | 'authenticationMethod'
  >[],
  /** The reminder and deadline settings to send with (default: none, no grace window). */
  deadlineSettings: OrganizationDeadlineDefaults = {
    reminderIntervalDays: null,
    maxAutomaticReminders: 0,
    expiredExtensionGraceDays: 0,
  },
): EnvelopeWorkflowInput {
  const settings = workflowSettings(organizationDeadlineSettings(deadlineSettings));
  return {
    automaticReminders: settings.automaticReminders,
    expiredExtensionGraceDays: settings.expiredExtensionGraceDays,
    ...(settings.expiringSoonDays > 0 ? { expiringSoonDays: settings.expiringSoonDays } : {}),
    envelopeId: envelope.id,
    organizationId: envelope.organizationId,
    externalReference: envelope.externalReference ?? null,
    workflowType: envelope.workflowType,
    expiresAt: envelope.expiresAt?.toISOString() ?? null,
    recipients: recipients.map((r) => ({
      id: r.id,
      signingOrder: r.signingOrder,
      type: r.type,
      required: r.required,
      authenticationMethod: r.authenticationMethod,
    })),
    ...(envelope.allowDelegation ? { allowDelegation: true } : {}),
  };
}

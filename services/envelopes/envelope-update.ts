// Asks an envelope's workflow to change it: a workflow Update, whose validator accepts or refuses. A refusal
// (or a workflow that has finished) becomes the service's 409 with the workflow's own reason.
//
// The wait is bounded (TEMPORAL_REQUEST_TIMEOUT_MS, temporal/deadline.ts): when Temporal or every worker is
// down, the caller gets 503 `service_unavailable` with Retry-After instead of hanging. The server may have
// admitted the Update already and apply it once a worker is back, so that answer says the outcome is unknown.
// Under an Idempotency-Key the Update carries an id derived from the key's record (services/idempotency.ts):
// a retry of the request sends the same Update, which Temporal applies at most once and answers with its
// first outcome, also after the workflow has finished.
import type { UpdateDefinition } from '@temporalio/client';
import type { Envelope } from '../../db/entities/index.ts';
import {
  TemporalUnavailableError,
  temporalTimeoutMs,
  withTemporalDeadline,
} from '../../temporal/deadline.ts';
import { type EnvelopeState, envelopeWorkflowId } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { DEPENDENCY_RETRY_AFTER_SECONDS, ServiceUnavailable } from '../errors.ts';
import { type IdempotencyScope, idempotentUpdateId } from '../idempotency.ts';
import { toServiceError } from './workflow-errors.ts';

export async function updateEnvelope<Args extends [] | [unknown]>(
  ctx: Pick<ServiceContext, 'temporal'> & Partial<Pick<ServiceContext, 'em' | 'config' | 'idempotency'>>,
  envelope: Pick<Envelope, 'id' | 'status'>,
  update: UpdateDefinition<EnvelopeState, Args>,
  ...args: Args
): Promise<EnvelopeState> {
  // The SDK types an Update's arguments by overloads (none, or some); this one call serves both.
  const definition = update as unknown as UpdateDefinition<EnvelopeState, [unknown]>;
  const { idempotency } = ctx;
  const timeoutMs = temporalTimeoutMs(ctx.config);
  try {
    return await withTemporalDeadline(
      ctx.temporal,
      timeoutMs,
      `${update.name} of envelope ${envelope.id}`,
      () =>
        ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelope.id)).executeUpdate(definition, {
          args: args as [unknown],
          ...(idempotency ? { updateId: idempotentUpdateId(idempotency, update.name) } : {}),
        }),
    );
  } catch (error) {
    if (error instanceof TemporalUnavailableError) throw outcomeUnknown(error, envelope.id, idempotency);
    throw toServiceError(error, envelope.id, envelope.status);
  }
}

/**
 * The 503 of a change to an envelope that Temporal did not confirm in time: it may have been applied, may be
 * applied later, or never. `error`'s message says which wait ran out (it names no secret).
 */
export function outcomeUnknown(
  error: TemporalUnavailableError,
  envelopeId: string,
  idempotency: IdempotencyScope | undefined,
): ServiceUnavailable {
  const retry = idempotency
    ? 'Repeating the request with the same Idempotency-Key is safe: the change is applied at most once, and ' +
      'the repeat answers with its outcome.'
    : "Check the envelope's state before repeating the request.";
  return new ServiceUnavailable(
    `The change to envelope ${envelopeId} was not confirmed: ${error.message} It may still be applied once ` +
      `the workflow service is back. ${retry}`,
    [{ message: 'outcome unknown', outcome: 'unknown' }],
    DEPENDENCY_RETRY_AFTER_SECONDS,
  );
}

/** A recipient's status in a state the workflow answered with. */
export function recipientStatusIn(state: EnvelopeState, recipientId: string) {
  return state.recipients.find((recipient) => recipient.id === recipientId)?.status;
}

// Asks an envelope's workflow to change it: a workflow Update, whose validator accepts or refuses. A refusal
// (or a workflow that has finished) becomes the service's 409 with the workflow's own reason.
import type { UpdateDefinition } from '@temporalio/client';
import type { Envelope } from '../../../db/entities/index.ts';
import { type EnvelopeState, envelopeWorkflowId } from '../../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { toServiceError } from './workflow-errors.ts';

export async function updateEnvelope<Args extends [] | [unknown]>(
  ctx: Pick<ServiceContext, 'temporal'>,
  envelope: Pick<Envelope, 'id' | 'status'>,
  update: UpdateDefinition<EnvelopeState, Args>,
  ...args: Args
): Promise<EnvelopeState> {
  // The SDK types an Update's arguments by overloads (none, or some); this one call serves both.
  const definition = update as unknown as UpdateDefinition<EnvelopeState, [unknown]>;
  try {
    return await ctx.temporal.workflow
      .getHandle(envelopeWorkflowId(envelope.id))
      .executeUpdate(definition, { args: args as [unknown] });
  } catch (error) {
    throw toServiceError(error, envelope.id, envelope.status);
  }
}

/** A recipient's status in a state the workflow answered with. */
export function recipientStatusIn(state: EnvelopeState, recipientId: string) {
  return state.recipients.find((recipient) => recipient.id === recipientId)?.status;
}

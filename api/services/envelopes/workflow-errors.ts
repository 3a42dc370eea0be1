// Turns the Temporal client's answers into the API's typed errors: a rejected Update is a conflict
// with the workflow's own reason.
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Conflict } from '../../errors.ts';

export function toServiceError(error: unknown, envelopeId: string): unknown {
  if (error instanceof WorkflowUpdateFailedError) {
    const cause = error.cause;
    const reason =
      cause instanceof ApplicationFailure ? cause.message : 'the envelope rejected the operation';
    return new Conflict(reason, [
      { message: reason, reason: cause instanceof ApplicationFailure ? cause.type : undefined },
    ]);
  }
  if (error instanceof WorkflowExecutionAlreadyStartedError || error instanceof WorkflowNotFoundError) {
    return new Conflict(`Envelope ${envelopeId} is no longer in progress.`);
  }
  if (error instanceof Error && /workflow execution already completed/i.test(error.message)) {
    return new Conflict(`Envelope ${envelopeId} is no longer in progress.`);
  }
  return error;
}

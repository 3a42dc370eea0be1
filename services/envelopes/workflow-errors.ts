// Turns the Temporal client's answers into the API's typed errors: a rejected Update is a conflict
// with the workflow's own reason; a finished workflow is a conflict naming the envelope's state.
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Conflict } from '../errors.ts';

export function toServiceError(error: unknown, envelopeId: string, status?: string): unknown {
  if (error instanceof WorkflowUpdateFailedError) {
    const cause = error.cause;
    const reason =
      cause instanceof ApplicationFailure ? cause.message : 'the envelope rejected the operation';
    return new Conflict(reason, [
      { message: reason, reason: cause instanceof ApplicationFailure ? cause.type : undefined },
    ]);
  }
  const finished =
    error instanceof WorkflowExecutionAlreadyStartedError ||
    error instanceof WorkflowNotFoundError ||
    (error instanceof Error && /workflow execution already completed/i.test(error.message));
  if (finished) {
    return new Conflict(
      `Envelope ${envelopeId} is ${status ? `${status} and ` : ''}no longer in progress.`,
      status ? [{ field: 'status', message: status }] : [],
    );
  }
  return error;
}

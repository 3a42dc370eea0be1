// Turns the Temporal client's answers into the API's typed errors: a rejected Update is a conflict
// with the workflow's own reason; a finished workflow is a conflict naming the envelope's state; an Update
// refused while the workflow's task is being retried (a worker died holding it) is a 503 to retry.
import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Conflict, ServiceUnavailable } from '../errors.ts';

/** gRPC's FAILED_PRECONDITION. */
const FAILED_PRECONDITION = 9;
/**
 * How soon to retry an Update refused while the workflow task is retried: the next attempt runs as soon as a
 * worker takes it (at once when another worker polls; after the dead worker's replacement starts otherwise).
 */
export const WORKFLOW_TASK_RETRY_AFTER_SECONDS = 1;

/**
 * Temporal refuses a new Update with FAILED_PRECONDITION "Workflow Task in failed state" while the workflow's
 * task is being retried after it failed or timed out — as after a worker died holding it (the envelope's
 * 5 s workflow task timeout, workflows/contracts.ts). The Update was not admitted: nothing happened, and the
 * same request succeeds once a worker has run the task again.
 */
export function refusedWhileWorkflowTaskRetries(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    const code = (cause as { code?: unknown }).code;
    if (code === FAILED_PRECONDITION && /workflow task in failed state/i.test(cause.message)) return true;
  }
  return false;
}

export function toServiceError(error: unknown, envelopeId: string, status?: string): unknown {
  if (error instanceof WorkflowUpdateFailedError) {
    const cause = error.cause;
    const reason =
      cause instanceof ApplicationFailure ? cause.message : 'the envelope rejected the operation';
    return new Conflict(reason, [
      { message: reason, reason: cause instanceof ApplicationFailure ? cause.type : undefined },
    ]);
  }
  if (refusedWhileWorkflowTaskRetries(error)) {
    return new ServiceUnavailable(
      `Envelope ${envelopeId} cannot take the change right now: its workflow is recovering from a failed worker. Nothing was changed; try again.`,
      [{ message: 'not applied', outcome: 'not_applied' }],
      WORKFLOW_TASK_RETRY_AFTER_SECONDS,
    );
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

// GET /api/documents/{id}/live: the envelope's workflow as it stands, through the Temporal Query
// `envelopeLiveView` (workflows/contracts.ts): the round in turn, whom it waits for, the deadline, the next
// automatic reminder, the grace window of an Expired envelope and the projection's progress. A query records
// nothing in the workflow's history. Asked only while a workflow can still change the envelope: a Draft has
// none, and a Completed, Declined or Cancelled envelope's has ended (an Expired one may be revived within its
// grace window, so it is asked). Bounded like every Temporal call of a request (TEMPORAL_REQUEST_TIMEOUT_MS):
// Temporal or the workers unreachable is a 503 with Retry-After, the page keeps what PostgreSQL says.
import { QueryNotRegisteredError, WorkflowNotFoundError } from '@temporalio/client';
import type { DocumentLiveView } from '../../domain/document.ts';
import { isTerminalEnvelopeStatus } from '../../domain/vocabulary.ts';
import {
  TemporalUnavailableError,
  temporalTimeoutMs,
  withTemporalDeadline,
} from '../../temporal/deadline.ts';
import { envelopeLiveViewQuery } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { DEPENDENCY_RETRY_AFTER_SECONDS, ServiceUnavailable } from '../errors.ts';
import { type DocumentReader, findVisibleEnvelope } from './document-reader.ts';

export async function documentLiveView(
  ctx: ServiceContext,
  reader: DocumentReader,
  id: string,
): Promise<DocumentLiveView> {
  const envelope = await findVisibleEnvelope(ctx, reader, id);
  const { workflowId, status } = envelope;
  if (!workflowId || status === 'Draft' || (isTerminalEnvelopeStatus(status) && status !== 'Expired')) {
    return { live: null };
  }
  try {
    const view = await withTemporalDeadline(
      ctx.temporal,
      temporalTimeoutMs(ctx.config),
      `the live view of envelope ${envelope.id}`,
      () => ctx.temporal.workflow.getHandle(workflowId).query(envelopeLiveViewQuery),
    );
    return { live: view };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return { live: null };
    if (error instanceof TemporalUnavailableError || error instanceof QueryNotRegisteredError) {
      throw new ServiceUnavailable(
        `The workflow of envelope ${envelope.id} cannot be asked now: ${error.message}`,
        [],
        DEPENDENCY_RETRY_AFTER_SECONDS,
      );
    }
    throw error;
  }
}

// What a service needs to know about the Idempotency-Key request it serves, so that a retried request never
// repeats what an earlier attempt already did (api/plugins/idempotency.ts claims the key; docs/api.md,
// "Idempotency").
//
// The plugin claims the key before the handler runs and the request's service context carries the claim
// (`ctx.idempotency`, api/http/request-context.ts); services read it there:
//   - a create records the id of what it made in the key's record, in its own transaction
//     (`recordIdempotentResult`), and a retry of the same request finds that id (`scope.resultId`) and answers
//     with it instead of creating again. The write is fenced by the claim: an attempt whose claim was taken
//     over by a retry (its process looked dead) fails instead of committing a second result;
//   - a workflow Update carries an Update id derived from the record (`idempotentUpdateId`), the same for
//     every attempt of the request, so Temporal applies it once and answers a retry with the first outcome,
//     even after the workflow has finished.
// Without the header (and outside the API: CLI, tests, activities) there is no scope and nothing changes.
import type { EntityManager } from '@mikro-orm/postgresql';
import { IdempotencyRequestInProgress } from './errors.ts';

export interface IdempotencyScope {
  organizationId: string;
  key: string;
  /** The record's id: the same for every attempt of one request within the retention period. */
  recordId: string;
  /** This attempt's claim on the record (a fencing token: a later attempt's claim replaces it). */
  claimId: string;
  /** 1 for the first attempt, more when an earlier attempt crashed or failed before answering. */
  attempt: number;
  /** What an earlier attempt of the same request committed (the created resource's id), if anything. */
  resultId: string | null;
}

/**
 * Records, inside the caller's transaction `tx`, that this request created `resultId`. Throws (and so rolls
 * the transaction back) when the claim is no longer this attempt's: a retry has taken the key over and will
 * answer the request itself.
 */
export async function recordIdempotentResult(
  tx: EntityManager,
  scope: IdempotencyScope,
  resultId: string,
): Promise<void> {
  const rows = await tx.execute<{ claim_id: string }[]>(
    `update idempotency_record set result_id = ?
      where organization_id = ? and idempotency_key = ? and claim_id = ? and state = 'processing'
      returning claim_id`,
    [resultId, scope.organizationId, scope.key, scope.claimId],
  );
  if (rows.length === 0) {
    throw new IdempotencyRequestInProgress(
      'Another attempt with this Idempotency-Key took the request over; retry to get its answer.',
    );
  }
}

/**
 * The id of the Update `updateName` sent for this request: the same for every attempt, unique to the request.
 * A request sends at most one Update of each kind; a second one with the same name would get the first's answer.
 */
export function idempotentUpdateId(scope: IdempotencyScope, updateName: string): string {
  return `idempotency/${scope.recordId}/${updateName}`;
}

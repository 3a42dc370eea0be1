// Operators: envelopes whose projection (the workflow's transitions written to PostgreSQL) is failing or
// behind. `parked`: a transition PostgreSQL refused for good waits for `sigil envelope resume-projection`
// (the envelope row holds the reason; docs/envelope-lifecycle.md). `behind`: an open envelope whose row has
// not moved for the given time while its workflow still has a projection pending — retrying (PostgreSQL
// unreachable, a timeout) or not started (no worker polls the queue); Temporal's description of the workflow
// says which, without needing a worker.

import { type WorkflowExecutionDescription, WorkflowNotFoundError } from '@temporalio/client';
import proto from '@temporalio/proto';
import { OPEN_STATUSES } from '../../domain/document-lifecycle.ts';
import { sanitizeText } from '../../domain/text.ts';
import type { EnvelopeStatus } from '../../domain/vocabulary.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import type { DataContext, ServiceContext } from '../context.ts';

export interface StuckEnvelope {
  envelopeId: string;
  organizationId: string;
  /** The status PostgreSQL holds (the workflow may have decided more). */
  status: EnvelopeStatus;
  kind: 'parked' | 'behind';
  reason: string;
  /** ISO 8601: when the projection parked, or when its pending attempt was scheduled. */
  since: string;
  /** Attempts of the pending projection so far (behind only). */
  attempts: number | null;
}

export interface StuckEnvelopeQuery {
  organizationId?: string;
  /** An open envelope counts as behind once its row has not moved for this long (default 60). */
  olderThanSeconds?: number;
  /** At most this many open envelopes are described to find the ones behind (default 500, oldest first). */
  limit?: number;
}

/** Workflows described at once. */
const CONCURRENCY = 8;
/** The projection activities: a batch of transitions (runs since issue 19), or one (older runs, refusals). */
const PROJECTION_ACTIVITIES = ['projectEnvelopeTransitions', 'projectEnvelopeTransition'];
const { PendingActivityState } = proto.temporal.api.enums.v1;

/** How many envelopes have a parked projection: one indexed count, for GET /api/health. */
export async function countParkedProjections(ctx: DataContext): Promise<number> {
  const [row] = await ctx.em
    .getConnection()
    .execute<{ count: string }[]>(
      'select count(*) as count from envelope where projection_error is not null',
    );
  return Number(row?.count ?? 0);
}

export async function listStuckEnvelopes(
  ctx: ServiceContext,
  query: StuckEnvelopeQuery = {},
): Promise<StuckEnvelope[]> {
  const olderThanSeconds = query.olderThanSeconds ?? 60;
  const connection = ctx.em.getConnection();
  const byOrganization = query.organizationId ? 'and organization_id = ?' : '';
  const organization = query.organizationId ? [query.organizationId] : [];
  const parked = await connection.execute<
    {
      id: string;
      organization_id: string;
      status: EnvelopeStatus;
      projection_error: string;
      projection_failed_at: Date;
    }[]
  >(
    `select id, organization_id, status, projection_error, projection_failed_at from envelope
      where projection_error is not null ${byOrganization}
      order by projection_failed_at`,
    organization,
  );
  const candidates = await connection.execute<
    { id: string; organization_id: string; status: EnvelopeStatus }[]
  >(
    `select id, organization_id, status from envelope
      where projection_error is null and status in (${OPEN_STATUSES.map(() => '?').join(', ')})
        and updated_at < now() - ? * interval '1 second' ${byOrganization}
      order by updated_at limit ?`,
    [...OPEN_STATUSES, olderThanSeconds, ...organization, query.limit ?? 500],
  );

  const behind: StuckEnvelope[] = [];
  for (let start = 0; start < candidates.length; start += CONCURRENCY) {
    const batch = candidates.slice(start, start + CONCURRENCY);
    const found = await Promise.all(batch.map((row) => pendingProjection(ctx, row.id, olderThanSeconds)));
    batch.forEach((row, index) => {
      const pending = found[index];
      if (pending) {
        behind.push({
          envelopeId: row.id,
          organizationId: row.organization_id,
          status: row.status,
          kind: 'behind',
          ...pending,
        });
      }
    });
  }
  return [
    ...parked.map((row) => ({
      envelopeId: row.id,
      organizationId: row.organization_id,
      status: row.status,
      kind: 'parked' as const,
      reason: row.projection_error,
      since: new Date(row.projection_failed_at).toISOString(),
      attempts: null,
    })),
    ...behind.sort((a, b) => a.since.localeCompare(b.since)),
  ];
}

/** The workflow's pending projection when it has waited longer than allowed (or is retrying); else null. */
export async function pendingProjection(
  ctx: ServiceContext,
  envelopeId: string,
  olderThanSeconds: number,
): Promise<Pick<StuckEnvelope, 'reason' | 'since' | 'attempts'> | null> {
  let description: WorkflowExecutionDescription;
  try {
    description = await ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return null;
    throw error;
  }
  const pending = description.raw.pendingActivities?.find((activity) =>
    PROJECTION_ACTIVITIES.includes(activity.activityType?.name ?? ''),
  );
  if (!pending) return null;
  const scheduled = timestampOf(pending.scheduledTime) ?? timestampOf(pending.lastStartedTime);
  const attempts = pending.attempt ?? 1;
  const waited = scheduled === null ? 0 : Date.now() - scheduled.getTime();
  if (attempts <= 1 && waited < olderThanSeconds * 1000) return null;
  const failure = pending.lastFailure?.message;
  const reason = failure
    ? `retrying: ${sanitizeText((failure.split('\n')[0] ?? '').slice(0, 300))}`
    : pending.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
      ? 'a projection attempt is running'
      : 'waiting for a worker to run the projection';
  return { reason, since: (scheduled ?? new Date()).toISOString(), attempts };
}

function timestampOf(
  value: { seconds?: { toNumber(): number } | number | null; nanos?: number | null } | null | undefined,
): Date | null {
  if (!value?.seconds) return null;
  const seconds = typeof value.seconds === 'number' ? value.seconds : value.seconds.toNumber();
  return new Date(seconds * 1000 + Math.floor((value.nanos ?? 0) / 1e6));
}

// Projections tried as local activities first (patch local-projections, issue 19): on the real dev server an
// Update is accepted, projected and answered within one workflow task, no projection activity task is
// scheduled, and the deadline keeps one timer across changes (patch steady-wake-timer). A local try that fails
// falls back to the durable activity, whose retries are visible as before (projection-parking.test.ts lists
// such an envelope as behind).
import { randomUUID } from 'node:crypto';
import type { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeRecipient } from '../../api/services/envelopes/complete-recipient.ts';
import { remindEnvelope } from '../../api/services/envelopes/remind-envelope.ts';
import { sendEnvelope } from '../../api/services/envelopes/send-envelope.ts';
import { Envelope } from '../../db/entities/index.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { draftTwoSignerEnvelope, openTestContext, type TestContext } from '../support/context.ts';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

let ctx: TestContext;
beforeAll(async () => {
  ctx = await openTestContext();
});
afterAll(() => ctx.close());

const PROJECTIONS = ['projectEnvelopeTransitions', 'projectEnvelopeTransition'];
const DAY_MS = 24 * 60 * 60 * 1000;

async function historyOf(envelopeId: string): Promise<HistoryEvent[]> {
  const history = await ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).fetchHistory();
  return history.events ?? [];
}

/** The event's type as Temporal names it, without the prefix (WorkflowTaskStarted, MarkerRecorded, …). */
function typeOf(event: HistoryEvent): string {
  const attributes = Object.keys(event).find(
    (key) => key.endsWith('EventAttributes') && event[key as keyof HistoryEvent],
  );
  return (attributes ?? '').replace(/EventAttributes$/, '').replace(/^./, (c) => c.toUpperCase());
}

const projectionActivities = (events: HistoryEvent[]) =>
  events.filter((event) =>
    PROJECTIONS.includes(event.activityTaskScheduledEventAttributes?.activityType?.name ?? ''),
  );
const localActivityMarkers = (events: HistoryEvent[]) =>
  events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity');

describe('local projections', () => {
  it('answers each Update within one workflow task, projecting without an activity task', async () => {
    const expiresAt = new Date(Date.now() + 30 * DAY_MS).toISOString();
    const { organizationId, envelopeId, first, second } = await draftTwoSignerEnvelope(ctx, {
      title: 'Local projections',
      expiresAt,
    });
    await sendEnvelope(ctx, organizationId, envelopeId);
    await remindEnvelope(ctx, organizationId, envelopeId);
    await completeRecipient(ctx, organizationId, envelopeId, first.id);
    await completeRecipient(ctx, organizationId, envelopeId, second.id);
    const handle = ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId));
    const result = await handle.result();
    expect(result.status).toBe('Completed');

    const row = await ctx.orm.em.fork().findOneOrFail(Envelope, { id: envelopeId });
    const events = await historyOf(envelopeId);
    expect(row.status).toBe('Completed');
    expect(projectionActivities(events)).toEqual([]);
    // Sent, reminded, two completions, the final PDF: every batch written by a local activity, all of it.
    expect(localActivityMarkers(events).length).toBeGreaterThanOrEqual(5);
    expect(row.projectedSequence).toBe(result.sequence);
    expect(result.sequence).toBeGreaterThanOrEqual(5);

    // Every Update was accepted and answered with no workflow task started in between.
    const types = events.map(typeOf);
    const accepted = types.flatMap((type, index) =>
      type === 'WorkflowExecutionUpdateAccepted' ? [index] : [],
    );
    expect(accepted.length).toBeGreaterThanOrEqual(3);
    for (const index of accepted) {
      const completed = types.indexOf('WorkflowExecutionUpdateCompleted', index);
      expect(completed).toBeGreaterThan(index);
      expect(types.slice(index, completed)).not.toContain('WorkflowTaskStarted');
    }

    // One deadline timer for the whole envelope: the Updates left the deadline as it was.
    expect(types.filter((type) => type === 'TimerStarted')).toHaveLength(1);
    expect(types.filter((type) => type === 'TimerCanceled')).toHaveLength(0);
  });

  it('falls back to the durable activity when the local try fails, and projects in order', async () => {
    const { organizationId, envelopeId } = await draftTwoSignerEnvelope(ctx, { title: 'Local try fails' });
    await sendEnvelope(ctx, organizationId, envelopeId);
    // The reminder's first write is refused once (a failure retrying may fix), then allowed: a sequence counts
    // the tries, since nextval() is not rolled back with the refused transaction.
    const suffix = randomUUID().replaceAll('-', '');
    const connection = ctx.orm.em.getConnection();
    await connection.execute(`create sequence tries_${suffix}`);
    await connection.execute(`
      create function refuse_once_${suffix}() returns trigger language plpgsql as $$
      begin
        if new.envelope_id = '${envelopeId}' and new.type = 'envelope.reminded'
           and nextval('tries_${suffix}') = 1 then
          raise exception 'not yet, try again';
        end if;
        return new;
      end $$`);
    await connection.execute(
      `create trigger refuse_once_${suffix} before insert on audit_event for each row execute function refuse_once_${suffix}()`,
    );
    try {
      const state = await remindEnvelope(ctx, organizationId, envelopeId);
      expect(state).toBeDefined();
      const row = await ctx.orm.em.fork().findOneOrFail(Envelope, { id: envelopeId });
      expect(row.projectedSequence).toBe(2);
      expect(row.reminderCount).toBe(1);
      const events = await historyOf(envelopeId);
      // The local try failed (its marker carries the failure); the activity then wrote the reminder.
      const failedMarker = localActivityMarkers(events).find(
        (event) => event.markerRecordedEventAttributes?.failure,
      );
      expect(failedMarker?.markerRecordedEventAttributes?.failure?.message).toMatch(/not yet, try again/);
      expect(projectionActivities(events)).toHaveLength(1);
      expect(events.map(typeOf)).toContain('ActivityTaskCompleted');
    } finally {
      await connection.execute(`drop trigger if exists refuse_once_${suffix} on audit_event`);
      await connection.execute(`drop function if exists refuse_once_${suffix}()`);
      await connection.execute(`drop sequence if exists tries_${suffix}`);
    }
  });
});

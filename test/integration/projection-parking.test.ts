// A transition PostgreSQL refuses for good no longer loops: the projection fails at once (ProjectionDataError),
// the workflow parks with the transition queued, the envelope row says why, `sigil envelope stuck` and
// GET /api/health show it, every Update is refused with a clear 409, and after the cause is repaired
// `sigil envelope resume-projection` writes the queued transitions and the envelope goes on.
//
// Two causes: a refusal on the database's side (a trigger standing in for a constraint the data violates;
// repaired by dropping it), and text the projection cannot write that an older workflow accepted (a NUL in a
// cancel reason; the real workflow runs with its validators skipped, on a task queue of this file's own, and
// the repair is `--sanitize`).
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { bundleWorkflowCode, DefaultLogger, NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { AuditEvent, Envelope } from '../../db/entities/index.ts';
import { cancelEnvelope } from '../../services/envelopes/cancel-envelope.ts';
import { remindEnvelope } from '../../services/envelopes/remind-envelope.ts';
import { resumeProjection } from '../../services/envelopes/resume-projection.ts';
import { envelopeWorkflowInput, sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { listStuckEnvelopes } from '../../services/envelopes/stuck-envelopes.ts';
import { Conflict } from '../../services/errors.ts';
import { createEnvelopeWorker, WORKFLOWS_PATH } from '../../temporal/worker/worker.ts';
import {
  cancelEnvelopeUpdate,
  ENVELOPE_WORKFLOW_TYPE,
  envelopeWorkflowId,
  projectionStatusQuery,
} from '../../workflows/contracts.ts';
import type { envelopeWorkflow } from '../../workflows/envelope.ts';
import { buildTestApp } from '../support/api.ts';
import { draftTwoSignerEnvelope, openTestContext, type TestContext } from '../support/context.ts';
import { installQuietRuntime } from '../support/infrastructure.ts';

const CLI = fileURLToPath(new URL('../../api/cli/sigil.ts', import.meta.url));

let ctx: TestContext;

beforeAll(async () => {
  ctx = await openTestContext();
});
afterAll(() => ctx.close());

function sigil(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: {
          ...process.env,
          DATABASE_URL: inject('databaseUrl'),
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          TEMPORAL_NAMESPACE: inject('namespace'),
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within 20 s (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const row = (envelopeId: string) => ctx.orm.em.fork().findOneOrFail(Envelope, { id: envelopeId });

/** The projection activities: a batch of transitions, or one (after a batch met a refusal). */
const PROJECTIONS = ['projectEnvelopeTransitions', 'projectEnvelopeTransition'];

/** Projection attempts the workflow has scheduled so far (each retry of an attempt counts once here). */
async function projectionCommands(envelopeId: string): Promise<number> {
  const history = await ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).fetchHistory();
  return (history.events ?? []).filter((event) =>
    PROJECTIONS.includes(event.activityTaskScheduledEventAttributes?.activityType?.name ?? ''),
  ).length;
}

describe('a projection PostgreSQL refuses for good', () => {
  it('parks the envelope visibly, refuses Updates, and resumes once the cause is repaired', async () => {
    const { organizationId, envelopeId } = await draftTwoSignerEnvelope(ctx, { title: 'Parked envelope' });
    await sendEnvelope(ctx, organizationId, envelopeId);

    // The database refuses this envelope's reminder event as a constraint would (SQLSTATE 23514).
    const suffix = randomUUID().replaceAll('-', '');
    const connection = ctx.orm.em.getConnection();
    await connection.execute(`
      create function refuse_${suffix}() returns trigger language plpgsql as $$
      begin
        if new.envelope_id = '${envelopeId}' and new.type = 'envelope.reminded' then
          raise exception 'the parking test refuses this event' using errcode = '23514';
        end if;
        return new;
      end $$`);
    await connection.execute(
      `create trigger refuse_${suffix} before insert on audit_event for each row execute function refuse_${suffix}()`,
    );
    const dropTrigger = async () => {
      await connection.execute(`drop trigger if exists refuse_${suffix} on audit_event`);
      await connection.execute(`drop function if exists refuse_${suffix}()`);
    };

    try {
      // The remind is decided, its projection refused at once: the caller hears so instead of waiting.
      const remind = remindEnvelope(ctx, organizationId, envelopeId);
      await expect(remind).rejects.toBeInstanceOf(Conflict);
      await expect(remind).rejects.toThrow(/record is being repaired: the change was accepted/);

      const parked = await until(
        'the envelope row marked',
        () => row(envelopeId),
        (envelope) => envelope.projectionError !== null && envelope.projectionError !== undefined,
      );
      expect(parked.status).toBe('Sent');
      expect(parked.reminderCount).toBe(0);
      expect(parked.projectionError).toMatch(
        /PostgreSQL refused transition 2 \(envelope\.reminded\) of envelope .*: SQLSTATE 23514: the parking test refuses this event/,
      );
      expect(parked.projectionFailedAt).toBeInstanceOf(Date);

      const handle = ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId));
      expect(await handle.query(projectionStatusQuery)).toMatchObject({
        projectedSequence: 1,
        decidedSequence: 2,
        parked: { sequence: 2, eventType: 'envelope.reminded', sqlState: '23514' },
      });

      // No loop: one attempt, failed for good, and no new one seconds later.
      const attempts = await projectionCommands(envelopeId);
      const pending = (await handle.describe()).raw.pendingActivities ?? [];
      expect(pending.filter((a) => PROJECTIONS.includes(a.activityType?.name ?? ''))).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(await projectionCommands(envelopeId)).toBe(attempts);

      // Every change is refused meanwhile, with the reason.
      const cancel = cancelEnvelope(ctx, organizationId, envelopeId, 'while parked');
      await expect(cancel).rejects.toBeInstanceOf(Conflict);
      await expect(cancel).rejects.toThrow("The envelope's record is being repaired; try again later.");

      // Operators see it: the CLI and the health detail.
      const stuck = await sigil(['envelope', 'stuck', '--org', organizationId, '--json']);
      expect(stuck.stderr).toBe('');
      expect(stuck.code).toBe(0);
      const listed = JSON.parse(stuck.stdout) as { envelopes: Record<string, unknown>[] };
      expect(listed.envelopes).toEqual([
        expect.objectContaining({
          envelopeId,
          organizationId,
          status: 'Sent',
          kind: 'parked',
          reason: expect.stringMatching(/SQLSTATE 23514/),
          since: (parked.projectionFailedAt as Date).toISOString(),
        }),
      ]);
      const text = await sigil(['envelope', 'stuck', '--org', organizationId]);
      expect(text.stdout).toContain(`envelope ${envelopeId} (organization ${organizationId})`);
      expect(text.stdout).toMatch(/parked\s+since .*, PostgreSQL says Sent/);

      const app = await buildTestApp(ctx);
      try {
        const health = await app.inject({ method: 'GET', url: '/api/health' });
        expect(health.statusCode).toBe(200);
        expect(health.json()).toMatchObject({ status: 'ok', db: 'ok', temporal: 'ok' });
        expect(health.json().projection.stuck).toBeGreaterThanOrEqual(1);
      } finally {
        await app.close();
      }

      // Resuming before the repair: PostgreSQL refuses again, and the envelope stays parked.
      const early = await sigil([
        'envelope',
        'resume-projection',
        '--org',
        organizationId,
        '--envelope',
        envelopeId,
      ]);
      expect(early.code).toBe(1);
      expect(early.stderr).toMatch(/The projection was parked again: .*SQLSTATE 23514/);
      expect((await row(envelopeId)).projectionError).toMatch(/SQLSTATE 23514/);

      await dropTrigger();
      const resumed = await sigil([
        'envelope',
        'resume-projection',
        '--org',
        organizationId,
        '--envelope',
        envelopeId,
        '--json',
      ]);
      expect(resumed.stderr).toBe('');
      expect(resumed.code).toBe(0);
      expect(JSON.parse(resumed.stdout)).toMatchObject({
        envelopeId,
        state: { status: 'Sent', sequence: 2 },
      });

      const repaired = await row(envelopeId);
      expect(repaired.projectionError ?? null).toBeNull();
      expect(repaired.projectionFailedAt ?? null).toBeNull();
      expect(repaired.reminderCount).toBe(1);
      expect(repaired.projectedSequence).toBe(2);
      expect((await listStuckEnvelopes(ctx, { organizationId })).map((s) => s.envelopeId)).toEqual([]);
      const notParked = await sigil([
        'envelope',
        'resume-projection',
        '--org',
        organizationId,
        '--envelope',
        envelopeId,
      ]);
      expect(notParked.code).toBe(1);
      expect(notParked.stderr).toMatch(/not parked: there is nothing to resume/);

      // The envelope goes on.
      const cancelled = await cancelEnvelope(ctx, organizationId, envelopeId, 'after the repair');
      expect(cancelled.status).toBe('Cancelled');
      expect((await row(envelopeId)).status).toBe('Cancelled');
      const events = await ctx.orm.em
        .fork()
        .find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
      expect(events.map((e) => [e.sequence, e.type])).toEqual([
        [1, 'envelope.sent'],
        [2, 'envelope.reminded'],
        [3, 'envelope.cancelled'],
      ]);
    } finally {
      await dropTrigger();
    }
  });

  it('lists a projection that is merely behind (retrying) as behind, and not once it caught up', async () => {
    const { organizationId, envelopeId } = await draftTwoSignerEnvelope(ctx, { title: 'Behind envelope' });
    await sendEnvelope(ctx, organizationId, envelopeId);
    // A failure retrying may fix (no SQLSTATE of class 22 or 23): the projection keeps retrying.
    const suffix = randomUUID().replaceAll('-', '');
    const connection = ctx.orm.em.getConnection();
    await connection.execute(`
      create function delay_${suffix}() returns trigger language plpgsql as $$
      begin
        if new.envelope_id = '${envelopeId}' and new.type = 'envelope.reminded' then
          raise exception 'the database is not ready for this yet';
        end if;
        return new;
      end $$`);
    await connection.execute(
      `create trigger delay_${suffix} before insert on audit_event for each row execute function delay_${suffix}()`,
    );
    const dropTrigger = async () => {
      await connection.execute(`drop trigger if exists delay_${suffix} on audit_event`);
      await connection.execute(`drop function if exists delay_${suffix}()`);
    };
    try {
      const reminded = remindEnvelope(ctx, organizationId, envelopeId).catch((error: unknown) => error);
      const [behind] = await until(
        'listed as behind',
        () => listStuckEnvelopes(ctx, { organizationId, olderThanSeconds: 0 }),
        (list) => (list[0]?.attempts ?? 0) > 1,
      );
      expect(behind).toMatchObject({
        envelopeId,
        organizationId,
        status: 'Sent',
        kind: 'behind',
        reason: expect.stringMatching(/^retrying: .*the database is not ready for this yet/),
        attempts: expect.any(Number),
      });
      expect(behind?.attempts).toBeGreaterThan(1);
      // Not parked: the row is unmarked and the health detail does not count it.
      expect((await row(envelopeId)).projectionError ?? null).toBeNull();
      // With the default threshold (60 s) an envelope that has been behind for seconds is not listed yet.
      expect(await listStuckEnvelopes(ctx, { organizationId })).toEqual([]);

      await dropTrigger();
      await reminded;
      await until(
        'caught up',
        () => row(envelopeId),
        (envelope) => envelope.projectedSequence === 2,
      );
      expect(await listStuckEnvelopes(ctx, { organizationId, olderThanSeconds: 0 })).toEqual([]);
    } finally {
      await dropTrigger();
    }
  });

  it('parks on a NUL an older workflow accepted, and resumes with the text repaired (--sanitize)', async () => {
    installQuietRuntime();
    const taskQueue = `envelopes-parking-${randomUUID().slice(0, 8)}`;
    const bundle = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      workflowInterceptorModules: [
        fileURLToPath(new URL('../support/unvalidated-updates.ts', import.meta.url)),
      ],
      logger: new DefaultLogger('WARN'),
    });
    const connection = await NativeConnection.connect({ address: inject('temporalAddress') });
    const worker = await createEnvelopeWorker({
      connection,
      namespace: inject('namespace'),
      activities: createActivities({
        orm: ctx.orm,
        notifications: { env: 'test', publicBaseUrl: 'http://localhost:3000' },
      }),
      workflowBundle: bundle,
      taskQueue,
    });
    const running = worker.run();
    try {
      const { organizationId, envelope, envelopeId, recipients } = await draftTwoSignerEnvelope(ctx, {
        title: 'Accepted a NUL',
      });
      const handle = await ctx.temporal.workflow.start<typeof envelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
        workflowId: envelopeWorkflowId(envelopeId),
        taskQueue,
        args: [envelopeWorkflowInput(envelope, recipients)],
      });
      await until(
        'sent',
        () => row(envelopeId),
        (e) => e.status === 'Sent',
      );

      // The validator is skipped, as on code that had none for the reason: the cancel is decided.
      const update = handle.executeUpdate(cancelEnvelopeUpdate, { args: [{ reason: 'x\u0000y' }] });
      const failure = await update.catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(WorkflowUpdateFailedError);
      expect((failure as WorkflowUpdateFailedError).cause).toBeInstanceOf(ApplicationFailure);
      expect(((failure as WorkflowUpdateFailedError).cause as ApplicationFailure).type).toBe(
        'EnvelopeRecordBeingRepaired',
      );

      const parked = await until(
        'parked',
        () => row(envelopeId),
        (e) => Boolean(e.projectionError),
      );
      expect(parked.status).toBe('Sent');
      // jsonb refuses the escaped NUL (22P05); nothing of the reason reaches the row's own column.
      expect(parked.projectionError).toMatch(
        /SQLSTATE 22P05: unsupported Unicode escape sequence \(\\u0000 cannot be converted to text\.\)/,
      );
      expect(parked.projectionError).not.toContain('\u0000');
      const [listed] = await listStuckEnvelopes(ctx, { organizationId });
      expect(listed).toMatchObject({ envelopeId, kind: 'parked', status: 'Sent' });

      // Resumed as it is, the same text is refused again; repaired, it is written and the envelope ends.
      await expect(resumeProjection(ctx, organizationId, envelopeId)).rejects.toThrow(
        /The projection was parked again: .*SQLSTATE 22P05/,
      );
      const state = await resumeProjection(ctx, organizationId, envelopeId, { sanitize: true });
      expect(state.status).toBe('Cancelled');
      expect(await handle.result()).toMatchObject({ status: 'Cancelled' });
      const done = await row(envelopeId);
      expect(done.status).toBe('Cancelled');
      expect(done.projectionError ?? null).toBeNull();
      const cancelled = await ctx.orm.em
        .fork()
        .findOneOrFail(AuditEvent, { envelopeId, type: 'envelope.cancelled' });
      expect(cancelled.data).toEqual({ reason: 'x\uFFFDy' });
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
    }
  });
});

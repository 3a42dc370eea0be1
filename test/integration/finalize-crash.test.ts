// A worker killed (SIGKILL) in the middle of finalizeEnvelope: after a new worker starts, the envelope still
// completes, with exactly one final PDF and one audit trail. The workflow runs on this file's own task queue,
// served by worker processes this test starts and kills (test/support/crash-worker.ts), never by the
// suite's shared worker.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { AuditEvent, Envelope, StoredFile } from '../../db/entities/index.ts';
import { sealedDocumentsOf } from '../../db/sealing.ts';
import { findSignatures } from '../../pdf/sealing/inspect.ts';
import { envelopeWorkflowInput } from '../../services/envelopes/send-envelope.ts';
import {
  completeRecipientUpdate,
  ENVELOPE_WORKFLOW_TYPE,
  envelopeWorkflowId,
} from '../../workflows/contracts.ts';
import type { envelopeWorkflow } from '../../workflows/envelope.ts';
import { draftTwoSignerEnvelope, openTestContext, type TestContext } from '../support/context.ts';
import { storedBytes } from '../support/stored-files.ts';

const WORKER_SCRIPT = fileURLToPath(new URL('../support/crash-worker.ts', import.meta.url));
const TASK_QUEUE = `envelopes-crash-${randomUUID().slice(0, 8)}`;

type CrashPoint = 'before-render' | 'after-commit';

interface WorkerProcess {
  child: ChildProcess;
  /** Resolves with the first stdout message of this event type. */
  next(event: string): Promise<Record<string, unknown>>;
  exited: Promise<NodeJS.Signals | number | null>;
}

const started: WorkerProcess[] = [];
let ctx: TestContext;

beforeAll(async () => {
  ctx = await openTestContext();
});
afterEach(async () => {
  for (const worker of started.splice(0)) {
    if (worker.child.exitCode === null && worker.child.signalCode === null) worker.child.kill('SIGTERM');
    await worker.exited;
  }
});
afterAll(() => ctx.close());

function startWorker(crashPoint?: CrashPoint): WorkerProcess {
  const child = spawn(process.execPath, [WORKER_SCRIPT], {
    env: {
      ...process.env,
      DATABASE_URL: inject('databaseUrl'),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_NAMESPACE: inject('namespace'),
      WORKFLOW_BUNDLE_PATH: inject('workflowBundlePath'),
      TASK_QUEUE,
      CRASH_POINT: crashPoint ?? '',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const messages: Record<string, unknown>[] = [];
  const waiters: { event: string; resolve: (message: Record<string, unknown>) => void }[] = [];
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(signal ?? code));
  });
  createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    messages.push(message);
    for (const waiter of waiters.filter((w) => w.event === message.event)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(message);
    }
  });
  const next = (event: string) => {
    const seen = messages.find((m) => m.event === event);
    if (seen) return Promise.resolve(seen);
    return Promise.race([
      new Promise<Record<string, unknown>>((resolve) => waiters.push({ event, resolve })),
      exited.then((how) => {
        throw new Error(`the crash worker exited (${String(how)}) before announcing ${event}`);
      }),
    ]);
  };
  const worker = { child, next, exited };
  started.push(worker);
  return worker;
}

async function kill(worker: WorkerProcess): Promise<void> {
  worker.child.kill('SIGKILL');
  expect(await worker.exited).toBe('SIGKILL');
}

describe('finalization survives a worker crash', () => {
  it.each<CrashPoint>(['after-commit', 'before-render'])(
    'a worker killed at %s: after a restart the envelope completes with exactly one final PDF',
    async (crashPoint) => {
      const title = `Crash test ${crashPoint} ${randomUUID().slice(0, 8)}`;
      const { organizationId, envelope, envelopeId, recipients, first, second } =
        await draftTwoSignerEnvelope(ctx, { title, workflowType: 'Sequential' });
      const crashing = startWorker(crashPoint);
      await crashing.next('worker-running');

      const handle = await ctx.temporal.workflow.start<typeof envelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
        workflowId: envelopeWorkflowId(envelopeId),
        taskQueue: TASK_QUEUE,
        args: [envelopeWorkflowInput(envelope, recipients)],
      });
      await handle.executeUpdate(completeRecipientUpdate, { args: [{ recipientId: first.id }] });
      const signed = await handle.executeUpdate(completeRecipientUpdate, {
        args: [{ recipientId: second.id }],
      });
      expect(signed.status).toBe('ProcessingFinalPdf');

      const reached = await crashing.next('finalize-reached');
      expect(reached).toMatchObject({ point: crashPoint, attempt: 1, envelopeId });
      const crashedAt = Date.now();
      await kill(crashing);

      // What the killed attempt left behind: after the commit the artifacts exist, before rendering nothing.
      const em = ctx.orm.em.fork();
      const leftBehind = await em.findOneOrFail(Envelope, { id: envelopeId });
      expect(leftBehind.status).toBe('ProcessingFinalPdf');
      if (crashPoint === 'after-commit') {
        expect(leftBehind.finalPdfFileId).toBe((reached.result as { finalPdfFileId: string }).finalPdfFileId);
      } else {
        expect(leftBehind.finalPdfFileId ?? null).toBeNull();
      }
      // Temporal still sees the killed attempt as running: nothing told it the worker is gone.
      const [pending] = (await handle.describe()).raw.pendingActivities ?? [];
      expect(pending?.activityType?.name).toBe('finalizeEnvelope');
      expect(pending?.attempt).toBe(1);
      expect(pending?.state).toBe(PendingActivityState.PENDING_ACTIVITY_STATE_STARTED);

      // The lost attempt times out (see expireLostAttempt); then a worker without the crash, on the same
      // task queue, takes the retry.
      await expireLostAttempt(envelopeId);
      const restarted = startWorker();
      await restarted.next('worker-running');
      const result = await handle.result();
      const recoveredIn = Date.now() - crashedAt;
      console.info(`${crashPoint}: envelope completed ${recoveredIn} ms after the worker was killed`);

      expect(result.status).toBe('Completed');
      const row = await ctx.orm.em.fork().findOneOrFail(Envelope, { id: envelopeId });
      expect(row.status).toBe('Completed');
      expect(row.finalPdfFileId).toMatch(/^[0-9a-f-]{36}$/);
      expect(row.auditTrailFileId).toMatch(/^[0-9a-f-]{36}$/);
      if (crashPoint === 'after-commit') {
        // The retry found the committed artifacts and returned them; it did not render a second pair.
        const committed = reached.result as { finalPdfFileId: string; auditTrailFileId: string };
        expect(row.finalPdfFileId).toBe(committed.finalPdfFileId);
        expect(row.auditTrailFileId).toBe(committed.auditTrailFileId);
      }

      // Exactly one final PDF and one audit trail: the organization (new for this test) holds the template's
      // source PDF, and the two artifacts, and nothing else.
      const files = await ctx.orm.em
        .fork()
        .find(StoredFile, { organizationId }, { orderBy: { createdAt: 'asc' } });
      const artifacts = files.filter((f) => f.filename.startsWith(title));
      expect(artifacts.map((f) => [f.id, f.filename]).sort()).toEqual(
        [
          [row.finalPdfFileId, `${title} - signed.pdf`],
          [row.auditTrailFileId, `${title} - audit trail.pdf`],
        ].sort(),
      );
      expect(files.map((f) => f.contentType)).toEqual(Array(3).fill('application/pdf'));
      // Sealed exactly once each: one seal record per document, for the stored files, and one seal in each.
      const seals = await sealedDocumentsOf(ctx.orm.em.fork(), organizationId, envelopeId);
      expect(seals.map((s) => [s.kind, s.storedFileId])).toEqual([
        ['audit_trail', row.auditTrailFileId],
        ['final_pdf', row.finalPdfFileId],
      ]);
      for (const id of [row.finalPdfFileId, row.auditTrailFileId] as string[]) {
        const stored = await storedBytes(ctx, id);
        expect(findSignatures(new Uint8Array(stored)).map((s) => s.fieldName)).toEqual(['SigilSeal']);
      }

      const events = await ctx.orm.em
        .fork()
        .find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
      expect(events.map((e) => e.type)).toEqual([
        'envelope.sent',
        'recipient.completed',
        'recipient.completed',
        'envelope.completed',
        'document.final_pdf_ready',
      ]);
      const ready = events.filter((e) => e.type === 'document.final_pdf_ready');
      expect(ready).toHaveLength(1);
      expect(ready[0]?.data).toMatchObject({
        final_pdf_file_id: row.finalPdfFileId,
        audit_trail_file_id: row.auditTrailFileId,
      });
    },
  );
});

const { PendingActivityState, TimeoutType } = proto.temporal.api.enums.v1;

async function pendingFinalize(envelopeId: string) {
  const description = await ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelopeId)).describe();
  return description.raw.pendingActivities?.find((a) => a.activityType?.name === 'finalizeEnvelope');
}

/**
 * The killed worker never reports its attempt, so Temporal retries it only when the attempt's start-to-close
 * timeout runs out: 2 minutes for finalizeEnvelope, which has no heartbeat timeout. Instead of waiting, the
 * test does what an operator could do: it shortens that timeout for this pending activity to one second,
 * waits until the lost attempt has timed out and the retry is scheduled (no worker polls the queue yet, so
 * the retry waits), and restores the workflow's own options, so the retry runs with its real 2 minutes.
 */
async function expireLostAttempt(envelopeId: string): Promise<void> {
  const target = {
    namespace: inject('namespace'),
    execution: { workflowId: envelopeWorkflowId(envelopeId) },
    identity: 'finalize-crash-test',
    id: (await pendingFinalize(envelopeId))?.activityId ?? '',
  };
  await ctx.temporal.workflowService.updateActivityOptions({
    ...target,
    activityOptions: { startToCloseTimeout: proto.google.protobuf.Duration.fromObject({ seconds: 1 }) },
    updateMask: { paths: ['start_to_close_timeout'] },
  });
  const deadline = Date.now() + 20_000;
  let pending = await pendingFinalize(envelopeId);
  while (pending?.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED) {
    if (Date.now() > deadline) throw new Error('the lost finalizeEnvelope attempt did not time out');
    await new Promise((resolve) => setTimeout(resolve, 100));
    pending = await pendingFinalize(envelopeId);
  }
  expect(pending?.attempt).toBe(2);
  expect(pending?.lastFailure?.timeoutFailureInfo?.timeoutType).toBe(TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE);
  await ctx.temporal.workflowService.updateActivityOptions({ ...target, restoreOriginal: true });
  const restored = await pendingFinalize(envelopeId);
  expect(Number(restored?.activityOptions?.startToCloseTimeout?.seconds)).toBe(120);
  expect(restored?.state).not.toBe(PendingActivityState.PENDING_ACTIVITY_STATE_STARTED);
}

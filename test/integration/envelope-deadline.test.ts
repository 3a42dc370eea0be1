// The signing deadline, under the Java time-skipping test server: a 30-day deadline passes in seconds.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { findEnvelope } from '../../api/services/envelopes/find-envelope.ts';
import { envelopeWorkflowInput } from '../../api/services/envelopes/send-envelope.ts';
import { AuditEvent } from '../../db/entities/index.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import {
  ENVELOPE_WORKFLOW_TYPE,
  envelopeWorkflowId,
  extendEnvelopeUpdate,
} from '../../workflows/contracts.ts';
import type { envelopeWorkflow } from '../../workflows/envelope.ts';
import { draftTwoSignerEnvelope } from '../support/context.ts';
import { installQuietRuntime } from '../support/infrastructure.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const TASK_QUEUE = 'envelopes-time-skipping';

let env: TestWorkflowEnvironment;
let orm: Orm;

beforeAll(async () => {
  installQuietRuntime();
  env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: inject('timeSkippingServerPath') } },
  });
  orm = await createOrm({ databaseUrl: inject('databaseUrl'), poolMax: 2 });
});
afterAll(async () => {
  await env?.teardown();
  await orm?.close();
});

describe('envelope deadline', () => {
  it('expires an envelope whose 30-day deadline passes, with every waiting recipient Expired', async () => {
    const ctx = { orm };
    const expiresAt = new Date(Date.now() + 30 * DAY_MS);
    const { organizationId, envelope, recipients } = await draftTwoSignerEnvelope(ctx, {
      title: 'Deadline test',
      expiresAt: expiresAt.toISOString(),
    });

    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUE,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities({ orm }),
    });
    const wallClock = Date.now();
    const result = await worker.runUntil(
      env.client.workflow.execute<typeof envelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
        workflowId: envelopeWorkflowId(envelope.id),
        taskQueue: TASK_QUEUE,
        args: [envelopeWorkflowInput(envelope, recipients)],
      }),
    );
    const elapsed = Date.now() - wallClock;

    expect(result.status).toBe('Expired');
    expect(result.recipients.map((r) => r.status)).toEqual(['Expired', 'Expired']);
    // Simulated time really passed the deadline; the wall-clock time is reported, not asserted.
    expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(expiresAt.getTime());
    console.info(`30-day deadline expired after ${elapsed} ms of wall-clock time`);

    const row = await findEnvelope(ctx, organizationId, envelope.id);
    expect(row.envelope.status).toBe('Expired');
    expect(row.recipients.map((r) => r.status)).toEqual(['Expired', 'Expired']);
    const events = await orm.em
      .fork()
      .find(AuditEvent, { envelopeId: envelope.id }, { orderBy: { sequence: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['envelope.sent', 'envelope.expired']);
  });

  it('expires at the extended deadline, not the original one', async () => {
    const ctx = { orm };
    // The test server's clock has moved on in earlier tests: deadlines are relative to its time.
    const original = new Date((await env.currentTimeMs()) + 2 * DAY_MS);
    const { envelope, recipients } = await draftTwoSignerEnvelope(ctx, { expiresAt: original.toISOString() });
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUE,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities({ orm }),
    });
    const extendedTo = new Date(original.getTime() + 10 * DAY_MS).toISOString();
    const result = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start<typeof envelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
        workflowId: envelopeWorkflowId(envelope.id),
        taskQueue: TASK_QUEUE,
        args: [envelopeWorkflowInput(envelope, recipients)],
      });
      await handle.executeUpdate(extendEnvelopeUpdate, { args: [{ expiresAt: extendedTo }] });
      return handle.result();
    });
    expect(result.status).toBe('Expired');
    expect(result.expiresAt).toBe(extendedTo);
    expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(Date.parse(extendedTo));
    const events = await orm.em
      .fork()
      .find(AuditEvent, { envelopeId: envelope.id }, { orderBy: { sequence: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['envelope.sent', 'envelope.extended', 'envelope.expired']);
  });
});

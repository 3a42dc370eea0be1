// The signing deadline, under the Java time-skipping test server: a 30-day deadline passes in seconds.
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { AuditEvent, Envelope } from '../../db/entities/index.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { envelopeWorkflowInput } from '../../services/envelopes/send-envelope.ts';
import {
  ENVELOPE_WORKFLOW_TYPE,
  envelopeStateQuery,
  envelopeWorkflowId,
  extendEnvelopeUpdate,
} from '../../workflows/contracts.ts';
import type { envelopeWorkflow } from '../../workflows/envelope.ts';
import { draftTwoSignerEnvelope, servicesOn } from '../support/context.ts';
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
    const ctx = servicesOn(orm);
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
    const ctx = servicesOn(orm);
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

  it('sends automatic reminders on the organization’s schedule, at most the maximum count', async () => {
    const ctx = servicesOn(orm);
    const start = await env.currentTimeMs();
    const { envelope, recipients } = await draftTwoSignerEnvelope(ctx, {
      expiresAt: new Date(start + 10 * DAY_MS).toISOString(),
    });
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUE,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities({ orm }),
    });
    const settings = { reminderIntervalDays: 3, maxAutomaticReminders: 2, expiredExtensionGraceDays: 0 };
    const result = await worker.runUntil(
      env.client.workflow.execute<typeof envelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
        workflowId: envelopeWorkflowId(envelope.id),
        taskQueue: TASK_QUEUE,
        args: [envelopeWorkflowInput(envelope, recipients, settings)],
      }),
    );
    expect(result.status).toBe('Expired');
    const events = await orm.em
      .fork()
      .find(AuditEvent, { envelopeId: envelope.id }, { orderBy: { sequence: 'asc' } });
    expect(events.map((e) => e.type)).toEqual([
      'envelope.sent',
      'envelope.reminded',
      'envelope.reminded',
      'envelope.expired',
    ]);
    const [first, second] = events.filter((e) => e.type === 'envelope.reminded');
    expect(first?.data).toEqual({ recipient_ids: [recipients[0]?.id], automatic: true });
    // Three days apart, from the send.
    const sentAt = events[0]?.occurredAt.getTime() as number;
    expect(Math.round(((first?.occurredAt.getTime() as number) - sentAt) / DAY_MS)).toBe(3);
    expect(Math.round(((second?.occurredAt.getTime() as number) - sentAt) / DAY_MS)).toBe(6);
    const row = await orm.em.fork().findOneOrFail(Envelope, { id: envelope.id });
    expect(row.reminderCount).toBe(2);
  });

  it('revives an Expired envelope extended within the grace window, and ends it after the window', async () => {
    const ctx = servicesOn(orm);
    const start = await env.currentTimeMs();
    const { envelope, recipients } = await draftTwoSignerEnvelope(ctx, {
      expiresAt: new Date(start + 1 * DAY_MS).toISOString(),
    });
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue: TASK_QUEUE,
      workflowBundle: { codePath: inject('workflowBundlePath') },
      activities: createActivities({ orm }),
    });
    const settings = { reminderIntervalDays: null, maxAutomaticReminders: 0, expiredExtensionGraceDays: 5 };
    const newDeadline = new Date(start + 4 * DAY_MS).toISOString();
    const result = await worker.runUntil(async () => {
      const handle = await env.client.workflow.start<typeof envelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
        workflowId: envelopeWorkflowId(envelope.id),
        taskQueue: TASK_QUEUE,
        args: [envelopeWorkflowInput(envelope, recipients, settings)],
      });
      await env.sleep('2 days');
      expect((await handle.query(envelopeStateQuery)).status).toBe('Expired');
      const revived = await handle.executeUpdate(extendEnvelopeUpdate, {
        args: [{ expiresAt: newDeadline }],
      });
      expect(revived.status).toBe('Sent');
      expect(revived.recipients.map((r) => r.status)).toEqual(['Pending', 'WaitingForTurn']);
      return handle.result();
    });
    // The new deadline passed too, and then its grace window: the envelope ends Expired.
    expect(result.status).toBe('Expired');
    expect(await env.currentTimeMs()).toBeGreaterThanOrEqual(Date.parse(newDeadline) + 5 * DAY_MS);
    const events = await orm.em
      .fork()
      .find(AuditEvent, { envelopeId: envelope.id }, { orderBy: { sequence: 'asc' } });
    expect(events.map((e) => e.type)).toEqual([
      'envelope.sent',
      'envelope.expired',
      'envelope.extended',
      'envelope.expired',
    ]);
    expect(events[2]?.data).toMatchObject({ revived_from: 'Expired', expires_at: newDeadline });
  });
});

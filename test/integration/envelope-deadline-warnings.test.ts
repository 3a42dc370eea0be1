// Deadline warnings, expiry notices and reminder settings changed while an envelope is open, under the Java
// time-skipping test server (docs/envelope-lifecycle.md, "Reminders and deadline warnings").
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { AuditEvent, Envelope, Notification } from '../../db/entities/index.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { envelopeWorkflowInput } from '../../services/envelopes/send-envelope.ts';
import {
  ENVELOPE_WORKFLOW_TYPE,
  envelopeLiveViewQuery,
  envelopeStateQuery,
  envelopeWorkflowId,
  extendEnvelopeUpdate,
  updateEnvelopeSettingsUpdate,
} from '../../workflows/contracts.ts';
import type { envelopeWorkflow } from '../../workflows/envelope.ts';
import { draftTwoSignerEnvelope, servicesOn, TWO_SIGNERS } from '../support/context.ts';
import { installQuietRuntime } from '../support/infrastructure.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const TASK_QUEUE = 'envelopes-deadline-warnings';

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

function worker(): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: { codePath: inject('workflowBundlePath') },
    // No providers: every message is captured, and recorded in PostgreSQL like any other.
    activities: createActivities({
      orm,
      notifications: { env: 'test', publicBaseUrl: 'http://127.0.0.1:3000' },
    }),
  });
}

async function eventsOf(envelopeId: string): Promise<AuditEvent[]> {
  return orm.em.fork().find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
}

/** The messages recorded for the envelope, as `kind → recipient`, in the order they were first attempted. */
async function messagesOf(envelopeId: string): Promise<{ kind: string; recipientId: string | null }[]> {
  const rows = await orm.em
    .fork()
    .find(Notification, { envelopeId }, { orderBy: { createdAt: 'asc', kind: 'asc' } });
  return rows.map((row) => ({ kind: row.kind, recipientId: row.recipientId ?? null }));
}

const days = (from: Date, to: Date) => Math.round((to.getTime() - from.getTime()) / DAY_MS);

/** The two signers, invited by email (so every message to them is sent and recorded). */
const BY_EMAIL = TWO_SIGNERS.map((recipient) => ({ ...recipient, deliveryChannel: 'Email' as const }));

/** What an Update's refusal says: the validator's reason is the cause of the client's error. */
async function refusal(update: Promise<unknown>): Promise<string> {
  try {
    await update;
  } catch (error) {
    return error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
  }
  throw new Error('the Update was accepted');
}

describe('deadline warnings and expiry notices', () => {
  it('warns the recipient in turn the set number of days before the deadline, then tells them it expired', async () => {
    const ctx = servicesOn(orm);
    const start = await env.currentTimeMs();
    const expiresAt = new Date(start + 10 * DAY_MS).toISOString();
    const { envelope, recipients, first, second } = await draftTwoSignerEnvelope(ctx, {
      expiresAt,
      expiringSoonDays: 3,
      expiredExtensionGraceDays: 0,
      recipients: BY_EMAIL,
    });
    // The create kept the request's settings over the organization's defaults (3 reminders, no interval).
    expect(envelope.deadlineSettings).toEqual({
      reminderIntervalDays: null,
      maxAutomaticReminders: 3,
      expiringSoonDays: 3,
      expiredExtensionGraceDays: 0,
    });
    const result = await (await worker()).runUntil(
      env.client.workflow.execute<typeof envelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
        workflowId: envelopeWorkflowId(envelope.id),
        taskQueue: TASK_QUEUE,
        args: [envelopeWorkflowInput(envelope, recipients, envelope.deadlineSettings ?? undefined)],
      }),
    );
    expect(result.status).toBe('Expired');

    const events = await eventsOf(envelope.id);
    expect(events.map((e) => e.type)).toEqual([
      'envelope.sent',
      'recipient.invitation_sent',
      'envelope.expiring_soon',
      'envelope.expired',
    ]);
    const [sent, , warning, expired] = events as [AuditEvent, AuditEvent, AuditEvent, AuditEvent];
    expect(warning.data).toEqual({ recipient_ids: [first.id], expires_at: expiresAt, days_left: 3 });
    // Seven days after the send: three before the ten-day deadline.
    expect(days(sent.occurredAt, warning.occurredAt)).toBe(7);
    expect(days(sent.occurredAt, expired.occurredAt)).toBe(10);

    // The recipient in turn got the invitation, the warning and the notice; the second, not yet in turn, nothing.
    expect(await messagesOf(envelope.id)).toEqual([
      { kind: 'invitation', recipientId: first.id },
      { kind: 'expiring_soon', recipientId: first.id },
      { kind: 'expired', recipientId: first.id },
    ]);
    expect((await messagesOf(envelope.id)).some((m) => m.recipientId === second.id)).toBe(false);
  });

  it('warns again before an extended deadline, and not at all once the warning time had passed', async () => {
    const ctx = servicesOn(orm);
    const start = await env.currentTimeMs();
    const original = new Date(start + 5 * DAY_MS).toISOString();
    const { envelope, recipients } = await draftTwoSignerEnvelope(ctx, {
      expiresAt: original,
      expiringSoonDays: 2,
      expiredExtensionGraceDays: 0,
    });
    const extendedTo = new Date(start + 12 * DAY_MS).toISOString();
    await (await worker()).runUntil(async () => {
      const handle = await env.client.workflow.start<typeof envelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
        workflowId: envelopeWorkflowId(envelope.id),
        taskQueue: TASK_QUEUE,
        args: [envelopeWorkflowInput(envelope, recipients, envelope.deadlineSettings ?? undefined)],
      });
      await env.sleep('4 days');
      // The warning for the first deadline went out on day 3; the extension plans one for day 10.
      await handle.executeUpdate(extendEnvelopeUpdate, { args: [{ expiresAt: extendedTo }] });
      const view = await handle.query(envelopeLiveViewQuery);
      expect(view.expiryWarningAt).toBe(new Date(Date.parse(extendedTo) - 2 * DAY_MS).toISOString());
      return handle.result();
    });
    const events = await eventsOf(envelope.id);
    expect(events.map((e) => e.type)).toEqual([
      'envelope.sent',
      'envelope.expiring_soon',
      'envelope.extended',
      'envelope.expiring_soon',
      'envelope.expired',
    ]);
    expect(events[1]?.data).toMatchObject({ expires_at: original, days_left: 2 });
    expect(events[3]?.data).toMatchObject({ expires_at: extendedTo, days_left: 2 });

    // A deadline nearer than the lead time: no warning at all (the invitation names the deadline).
    const near = await draftTwoSignerEnvelope(ctx, {
      expiresAt: new Date((await env.currentTimeMs()) + 1 * DAY_MS).toISOString(),
      expiringSoonDays: 2,
      expiredExtensionGraceDays: 0,
    });
    await (await worker()).runUntil(
      env.client.workflow.execute<typeof envelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
        workflowId: envelopeWorkflowId(near.envelope.id),
        taskQueue: TASK_QUEUE,
        args: [
          envelopeWorkflowInput(near.envelope, near.recipients, near.envelope.deadlineSettings ?? undefined),
        ],
      }),
    );
    expect((await eventsOf(near.envelope.id)).map((e) => e.type)).toEqual([
      'envelope.sent',
      'envelope.expired',
    ]);
  });
});

describe('changing the settings while the envelope is open', () => {
  it('a new reminder interval moves the next reminder, counted from the change, and is projected', async () => {
    const ctx = servicesOn(orm);
    const start = await env.currentTimeMs();
    const { envelope, recipients } = await draftTwoSignerEnvelope(ctx, {
      expiresAt: new Date(start + 20 * DAY_MS).toISOString(),
      reminderIntervalDays: 3,
      maxAutomaticReminders: 2,
      expiredExtensionGraceDays: 0,
    });
    let changedAt = 0;
    await (await worker()).runUntil(async () => {
      const handle = await env.client.workflow.start<typeof envelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
        workflowId: envelopeWorkflowId(envelope.id),
        taskQueue: TASK_QUEUE,
        args: [envelopeWorkflowInput(envelope, recipients, envelope.deadlineSettings ?? undefined)],
      });
      await env.sleep('1 day');
      const before = await handle.query(envelopeLiveViewQuery);
      changedAt = await env.currentTimeMs();
      await handle.executeUpdate(updateEnvelopeSettingsUpdate, {
        args: [{ automaticReminders: { everyDays: 5, max: 2 } }],
      });
      const after = await handle.query(envelopeLiveViewQuery);
      expect(after.automaticReminders).toEqual({ sent: 0, max: 2, everyDays: 5 });
      // From three days after the send (the schedule it was sent with) to five days after the change.
      expect(Math.round((Date.parse(before.nextReminderAt as string) - changedAt) / DAY_MS)).toBe(2);
      expect(Math.round((Date.parse(after.nextReminderAt as string) - changedAt) / DAY_MS)).toBe(5);
      expect(Date.parse(after.nextReminderAt as string)).toBeGreaterThan(
        Date.parse(before.nextReminderAt as string),
      );
      // The envelope row holds the new settings (the projection of envelope.settings_updated).
      const row = await orm.em.fork().findOneOrFail(Envelope, { id: envelope.id });
      expect(row.deadlineSettings).toEqual({
        reminderIntervalDays: 5,
        maxAutomaticReminders: 2,
        expiringSoonDays: 0,
        expiredExtensionGraceDays: 0,
      });
      return handle.result();
    });
    const events = await eventsOf(envelope.id);
    expect(events.map((e) => e.type)).toEqual([
      'envelope.sent',
      'envelope.settings_updated',
      'envelope.reminded',
      'envelope.reminded',
      'envelope.expired',
    ]);
    expect(events[1]?.data).toMatchObject({
      changed: ['reminderIntervalDays', 'maxAutomaticReminders'],
      reminder_interval_days: 5,
      max_automatic_reminders: 2,
    });
    const [first, second] = events.filter((e) => e.type === 'envelope.reminded');
    // Days 6 and 11 after the send (1 + 5, then 5 more), not 3 and 6 as sent.
    const sentAt = events[0]?.occurredAt as Date;
    expect(days(sentAt, first?.occurredAt as Date)).toBe(6);
    expect(days(sentAt, second?.occurredAt as Date)).toBe(11);
  });

  it('is refused once the envelope is final, and bad values are refused naming the setting', async () => {
    const ctx = servicesOn(orm);
    const start = await env.currentTimeMs();
    const { envelope, recipients } = await draftTwoSignerEnvelope(ctx, {
      expiresAt: new Date(start + 1 * DAY_MS).toISOString(),
      expiredExtensionGraceDays: 5,
    });
    await (await worker()).runUntil(async () => {
      const handle = await env.client.workflow.start<typeof envelopeWorkflow>(ENVELOPE_WORKFLOW_TYPE, {
        workflowId: envelopeWorkflowId(envelope.id),
        taskQueue: TASK_QUEUE,
        args: [envelopeWorkflowInput(envelope, recipients, envelope.deadlineSettings ?? undefined)],
      });
      expect(
        await refusal(
          handle.executeUpdate(updateEnvelopeSettingsUpdate, { args: [{ expiringSoonDays: 400 }] }),
        ),
      ).toBe('expiringSoonDays must be a whole number from 0 to 365.');
      await env.sleep('2 days');
      // Expired, its workflow still running for the grace window: the validator refuses the change.
      expect((await handle.query(envelopeStateQuery)).status).toBe('Expired');
      expect(
        await refusal(
          handle.executeUpdate(updateEnvelopeSettingsUpdate, { args: [{ expiredExtensionGraceDays: 10 }] }),
        ),
      ).toBe('The envelope is Expired. Its settings cannot change.');
      return handle.result();
    });
    expect((await eventsOf(envelope.id)).map((e) => e.type)).toEqual(['envelope.sent', 'envelope.expired']);
  });
});

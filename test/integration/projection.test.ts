// The projection activity is idempotent under retry: the same transition written twice leaves one audit
// row and the same envelope state, and an older transition never overwrites a newer one.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createProjectionActivities } from '../../activities/projection.ts';
import { AuditEvent } from '../../db/entities/index.ts';
import { createOrm } from '../../db/orm.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import type { EnvelopeTransition } from '../../workflows/contracts.ts';
import {
  createOrganizationWithTemplate,
  draftTwoSignerEnvelope,
  openTestContext,
  type TestContext,
} from '../support/context.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await openTestContext();
});
afterAll(() => ctx.close());

async function draft() {
  const { organizationId, envelopeId, recipients } = await draftTwoSignerEnvelope(ctx);
  return { organizationId, envelopeId, ids: recipients.map((r) => r.id) };
}

function transition(
  base: { organizationId: string; envelopeId: string; ids: string[] },
  sequence: number,
  type: string,
  envelopeStatus: EnvelopeTransition['envelopeStatus'],
  statuses: EnvelopeTransition['recipients'][number]['status'][],
): EnvelopeTransition {
  return {
    envelopeId: base.envelopeId,
    organizationId: base.organizationId,
    sequence,
    envelopeStatus,
    recipients: base.ids.map((id, index) => ({ id, status: statuses[index] ?? 'Pending' })),
    event: { type, recipientId: null, data: {} },
    occurredAt: new Date().toISOString(),
  };
}

describe('projectEnvelopeTransition', () => {
  it('writes one audit row and one state change when run twice with the same transition', async () => {
    const { projectEnvelopeTransition } = createProjectionActivities({ orm: ctx.orm });
    const base = await draft();
    const sent = transition(base, 1, 'envelope.sent', 'Sent', ['Pending', 'WaitingForTurn']);

    expect(await projectEnvelopeTransition(sent)).toEqual({ applied: true });
    expect(await projectEnvelopeTransition(sent)).toEqual({ applied: false });

    const events = await ctx.orm.em.fork().find(AuditEvent, { envelopeId: base.envelopeId });
    expect(events).toHaveLength(1);
    expect(events[0]?.type).toBe('envelope.sent');
    const row = await findEnvelope(ctx, base.organizationId, base.envelopeId);
    expect(row.envelope.status).toBe('Sent');
    expect(row.envelope.projectedSequence).toBe(1);
    expect(row.recipients.map((r) => r.status)).toEqual(['Pending', 'WaitingForTurn']);
  });

  it('never lets a retried older transition overwrite a newer one', async () => {
    const { projectEnvelopeTransition } = createProjectionActivities({ orm: ctx.orm });
    const base = await draft();
    const sent = transition(base, 1, 'envelope.sent', 'Sent', ['Pending', 'WaitingForTurn']);
    const firstSigned = transition(base, 2, 'recipient.completed', 'WaitingForNextSigner', [
      'Completed',
      'Pending',
    ]);
    await projectEnvelopeTransition(sent);
    await projectEnvelopeTransition(firstSigned);

    expect(await projectEnvelopeTransition(sent)).toEqual({ applied: false });
    const row = await findEnvelope(ctx, base.organizationId, base.envelopeId);
    expect(row.envelope.status).toBe('WaitingForNextSigner');
    expect(row.recipients.map((r) => r.status)).toEqual(['Completed', 'Pending']);
    expect(await ctx.orm.em.fork().count(AuditEvent, { envelopeId: base.envelopeId })).toBe(2);
  });

  it('writes nothing for an envelope of another organization', async () => {
    const { projectEnvelopeTransition } = createProjectionActivities({ orm: ctx.orm });
    const base = await draft();
    const other = await createOrganizationWithTemplate(ctx);
    const foreign = {
      ...transition(base, 1, 'envelope.sent', 'Sent', []),
      organizationId: other.organization.id,
    };
    await expect(projectEnvelopeTransition(foreign)).rejects.toThrow();
    const row = await findEnvelope(ctx, base.organizationId, base.envelopeId);
    expect(row.envelope.status).toBe('Draft');
    expect(await ctx.orm.em.fork().count(AuditEvent, { envelopeId: base.envelopeId })).toBe(0);
  });
});

describe('webhook events of a projection', () => {
  it('looks up and queues nothing while no endpoint can receive them, and queues once one can', async () => {
    const statements: string[] = [];
    const orm = await createOrm({
      databaseUrl: inject('databaseUrl'),
      poolMax: 2,
      onQuery: (sql) => statements.push(sql),
    });
    try {
      const { projectEnvelopeTransition } = createProjectionActivities({ orm });
      const base = await draft();
      const sent = {
        ...transition(base, 1, 'envelope.sent', 'Sent', ['Pending', 'WaitingForTurn']),
        webhooks: true as const,
      };
      expect(await projectEnvelopeTransition(sent)).toEqual({ applied: true, deliveryIds: [] });
      expect(statements.filter((sql) => /webhook_delivery|from audit_event a join/.test(sql))).toEqual([]);

      await createWebhookEndpoint(ctx, {
        organizationId: base.organizationId,
        url: 'https://hooks.example.com/in',
      });
      statements.length = 0;
      const cancelled = {
        ...transition(base, 2, 'envelope.cancelled', 'Cancelled', ['Cancelled', 'Cancelled']),
        webhooks: true as const,
      };
      const result = await projectEnvelopeTransition(cancelled);
      expect(result.deliveryIds).toHaveLength(1);
      // A retry finds the same delivery.
      expect((await projectEnvelopeTransition(cancelled)).deliveryIds).toEqual(result.deliveryIds);
      expect(statements.some((sql) => /insert into webhook_delivery/.test(sql))).toBe(true);
    } finally {
      await orm.close();
    }
  });
});

describe('projectEnvelopeTransitions (a batch in one transaction)', () => {
  it('writes several transitions in order, and a retry of the batch changes nothing', async () => {
    const { projectEnvelopeTransitions } = createProjectionActivities({ orm: ctx.orm });
    const base = await draft();
    const batch = [
      transition(base, 1, 'envelope.sent', 'Sent', ['Pending', 'WaitingForTurn']),
      transition(base, 2, 'recipient.opened', 'Opened', ['Pending', 'WaitingForTurn']),
      transition(base, 3, 'recipient.completed', 'WaitingForNextSigner', ['Completed', 'Pending']),
    ];
    expect(await projectEnvelopeTransitions(batch)).toEqual([
      { applied: true },
      { applied: true },
      { applied: true },
    ]);
    // Retried whole (a lost completion), or overlapping what was written: nothing moves back.
    expect(await projectEnvelopeTransitions(batch)).toEqual([
      { applied: false },
      { applied: false },
      { applied: false },
    ]);
    const row = await findEnvelope(ctx, base.organizationId, base.envelopeId);
    expect(row.envelope.status).toBe('WaitingForNextSigner');
    expect(row.envelope.projectedSequence).toBe(3);
    expect(row.recipients.map((r) => r.status)).toEqual(['Completed', 'Pending']);
    const events = await ctx.orm.em
      .fork()
      .find(AuditEvent, { envelopeId: base.envelopeId }, { orderBy: { sequence: 'asc' } });
    expect(events.map((event) => [event.sequence, event.type])).toEqual([
      [1, 'envelope.sent'],
      [2, 'recipient.opened'],
      [3, 'recipient.completed'],
    ]);
  });

  it('rolls the whole batch back when PostgreSQL refuses one, naming that transition', async () => {
    const { projectEnvelopeTransitions } = createProjectionActivities({ orm: ctx.orm });
    const base = await draft();
    const batch = [
      transition(base, 1, 'envelope.sent', 'Sent', ['Pending', 'WaitingForTurn']),
      // A NUL in jsonb: a data exception (SQLSTATE 22P05) no retry can fix.
      {
        ...transition(base, 2, 'envelope.reminded', 'Sent', []),
        event: { type: 'envelope.reminded', recipientId: null, data: { note: 'a\u0000b' } },
      },
    ];
    await expect(projectEnvelopeTransitions(batch)).rejects.toMatchObject({
      type: 'ProjectionDataError',
      message: expect.stringMatching(/refused transition 2 \(envelope\.reminded\)/),
    });
    const row = await findEnvelope(ctx, base.organizationId, base.envelopeId);
    expect(row.envelope.status).toBe('Draft');
    expect(row.envelope.projectedSequence).toBe(0);
    expect(await ctx.orm.em.fork().count(AuditEvent, { envelopeId: base.envelopeId })).toBe(0);
  });

  it('refuses a batch that mixes envelopes, writing nothing', async () => {
    const { projectEnvelopeTransitions } = createProjectionActivities({ orm: ctx.orm });
    const first = await draft();
    const second = await draft();
    await expect(
      projectEnvelopeTransitions([
        transition(first, 1, 'envelope.sent', 'Sent', []),
        transition(second, 1, 'envelope.sent', 'Sent', []),
      ]),
    ).rejects.toMatchObject({ type: 'InvalidProjectionBatch' });
    expect(await ctx.orm.em.fork().count(AuditEvent, { envelopeId: first.envelopeId })).toBe(0);
  });
});

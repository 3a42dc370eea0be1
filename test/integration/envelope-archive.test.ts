// Archive, unarchive and delete through HTTP with signed-in sessions, on the real PostgreSQL, Temporal server
// and worker (docs/envelope-lifecycle.md, "After signing: archive, delete, retention"): every trigger from
// every status as the rule table says (domain/document-lifecycle.ts, the rows of the generated transition
// table), with real lifecycles for the statuses that matter (a Completed envelope archived, brought back and
// deleted; a running one refused until cancelled; Declined and Expired ones; Drafts), the audit events each
// change records (numbered apart from the workflow's), what stays possible afterwards (downloads, extend,
// send), another organization's and another team's envelopes not found, and the documents list hiding
// archived and deleted envelopes from its active tabs.
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectionActivities } from '../../activities/projection.ts';
import { AuditEvent, Envelope } from '../../db/entities/index.ts';
import {
  RECORD_EVENT_SEQUENCE_BASE,
  RECORD_TRANSITIONS,
  RETENTION_DELETED_DAYS,
} from '../../domain/document-lifecycle.ts';
import type { TemplateDefinition } from '../../domain/template.ts';
import { ENVELOPE_STATUSES, type EnvelopeStatus } from '../../domain/vocabulary.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { cancelEnvelope } from '../../services/envelopes/cancel-envelope.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { createEnvelope, type EnvelopeSender } from '../../services/envelopes/create-envelope.ts';
import { declineRecipient } from '../../services/envelopes/decline-recipient.ts';
import { envelopeDocument } from '../../services/envelopes/envelope-document.ts';
import { extendEnvelope } from '../../services/envelopes/extend-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { readAll } from '../../storage/object-store.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { TWO_SIGNERS } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

let harness: ApiHarness;
let owner: SignedInUser;
let templateId: string;

beforeAll(async () => {
  harness = await openApiHarness();
  owner = await signedInUser(harness, { role: 'owner' });
  templateId = await templateOf(owner.organization.id);
});
afterAll(() => harness?.close());

async function templateOf(organizationId: string): Promise<string> {
  const template = await createTemplate(harness.ctx, {
    organizationId,
    pdf: await buildDemoPdf(),
    filename: 'lifecycle.pdf',
    definition: DEMO_TEMPLATE_DEFINITION as unknown as TemplateDefinition,
    publish: true,
  });
  return template.id;
}

type Action = 'archive' | 'unarchive' | 'delete';

function act(as: SignedInUser, id: string, action: Action): Promise<LightMyRequestResponse> {
  return harness.app.inject({ method: 'POST', url: `/api/documents/${id}/${action}`, headers: as.headers });
}

async function ok(as: SignedInUser, id: string, action: Action) {
  const response = await act(as, id, action);
  expect(response.statusCode, `${action} ${id}: ${response.body}`).toBe(200);
  return response.json();
}

async function refused(response: Promise<LightMyRequestResponse>, status: number, code: string) {
  const answer = await response;
  expect(answer.statusCode, answer.body).toBe(status);
  const body = answer.json();
  expect(body.error).toMatchObject({ code, message: expect.any(String), request_id: expect.any(String) });
  return body.error as { code: string; message: string; details: { field?: string; message: string }[] };
}

interface Draft {
  id: string;
  organizationId: string;
  recipientIds: string[];
}

interface DraftOptions {
  organizationId?: string;
  templateId?: string;
  sender?: EnvelopeSender;
  expiresAt?: string;
  title?: string;
}

async function draft(options: DraftOptions = {}): Promise<Draft> {
  const organizationId = options.organizationId ?? owner.organization.id;
  const envelope = await createEnvelope(
    harness.ctx,
    {
      title: options.title ?? `Lifecycle ${randomUUID().slice(0, 8)}`,
      recipients: TWO_SIGNERS,
      organizationId,
      templateId: options.templateId ?? templateId,
      ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}),
    },
    options.sender,
  );
  const { recipients } = await findEnvelope(harness.ctx, organizationId, envelope.id);
  return { id: envelope.id, organizationId, recipientIds: recipients.map((r) => r.id) };
}

async function sent(options: DraftOptions = {}): Promise<Draft> {
  const envelope = await draft(options);
  await sendEnvelope(harness.ctx, envelope.organizationId, envelope.id);
  return envelope;
}

async function completed(options: DraftOptions = {}): Promise<Draft> {
  const envelope = await sent(options);
  for (const recipientId of envelope.recipientIds) {
    await completeRecipient(harness.ctx, envelope.organizationId, envelope.id, recipientId);
  }
  await harness.ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelope.id)).result();
  return envelope;
}

async function cancelled(options: DraftOptions = {}): Promise<Draft> {
  const envelope = await sent(options);
  await cancelEnvelope(harness.ctx, envelope.organizationId, envelope.id, 'changed plans');
  return envelope;
}

const row = (id: string) => harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id });
const events = (id: string) =>
  harness.ctx.orm.em.fork().find(AuditEvent, { envelopeId: id }, { orderBy: { sequence: 'asc' } });

/** Sets an envelope's status in its row: the rules read nothing else (a status no test reaches cheaply). */
async function withStatus(status: EnvelopeStatus): Promise<Draft> {
  const envelope = await draft();
  await harness.ctx.orm.em
    .fork()
    .nativeUpdate(
      Envelope,
      { id: envelope.id },
      { status, previousStatus: status === 'Archived' || status === 'Deleted' ? 'Completed' : null },
    );
  return envelope;
}

const IN_PROGRESS: EnvelopeStatus[] = [
  'ReadyToSend',
  'Sending',
  'Sent',
  'Opened',
  'InProgress',
  'WaitingForNextSigner',
  'DeliveryFailed',
  'ProcessingFinalPdf',
  'FinalPdfFailed',
];

describe('archive, unarchive and delete from every status', () => {
  for (const action of ['archive', 'unarchive', 'delete'] as const) {
    const rule = RECORD_TRANSITIONS.find((candidate) => candidate.trigger === action);
    it(`${action}: allowed exactly from ${rule?.from.join(', ')}; refused with 409 from every other status, changing nothing`, async () => {
      expect(rule).toBeDefined();
      for (const status of ENVELOPE_STATUSES.filter((candidate) => candidate !== 'Deleted')) {
        const envelope = await withStatus(status);
        const before = await row(envelope.id);
        const response = await act(owner, envelope.id, action);
        if (rule?.from.includes(status)) {
          expect(response.statusCode, `${action} from ${status}: ${response.body}`).toBe(200);
          const expected = action === 'archive' ? 'Archived' : action === 'delete' ? 'Deleted' : 'Completed';
          expect(response.json().status, `${action} from ${status}`).toBe(expected);
          expect((await row(envelope.id)).status).toBe(expected);
          const recorded = (await events(envelope.id)).map((event) => event.type);
          expect(recorded).toEqual([`envelope.${action}d`]);
        } else {
          expect(response.statusCode, `${action} from ${status}: ${response.body}`).toBe(409);
          const error = response.json().error;
          expect(error.code, `${action} from ${status}`).toBe(
            action !== 'unarchive' && IN_PROGRESS.includes(status)
              ? 'envelope_in_progress'
              : 'invalid_status',
          );
          expect(error.details).toEqual([{ field: 'status', message: status }]);
          const after = await row(envelope.id);
          expect([after.status, after.previousStatus, after.archivedAt, after.deletedAt]).toEqual([
            before.status,
            before.previousStatus,
            before.archivedAt,
            before.deletedAt,
          ]);
          expect(await events(envelope.id)).toEqual([]);
        }
      }
    });
  }

  it('answers a Deleted envelope, an unknown id and a malformed one as not found or a 400 naming params.id', async () => {
    const deleted = await withStatus('Deleted');
    for (const action of ['archive', 'unarchive', 'delete'] as const) {
      await refused(act(owner, deleted.id, action), 404, 'not_found');
      await refused(act(owner, randomUUID(), action), 404, 'not_found');
      const malformed = await refused(act(owner, 'not-a-uuid', action), 400, 'invalid_request');
      expect(malformed.details.map((detail) => detail.field)).toContain('params.id');
    }
    expect(await events(deleted.id)).toEqual([]);
  });
});

describe('after signing', () => {
  it('archives a Completed envelope, brings it back, deletes it; each change is an audit event after the workflow’s', async () => {
    const envelope = await completed();
    const signing = await events(envelope.id);
    expect(signing.at(-1)?.type).toBe('document.final_pdf_ready');

    const archived = await ok(owner, envelope.id, 'archive');
    expect(archived).toEqual({
      id: envelope.id,
      title: expect.any(String),
      status: 'Archived',
      previousStatus: 'Completed',
      archivedAt: expect.any(String),
      deletedAt: null,
      filesPurgeAfter: null,
      filesPurgedAt: null,
    });
    // Everything is kept: the final PDF still downloads.
    const kept = await envelopeDocument(harness.ctx, envelope.organizationId, envelope.id, 'final-pdf');
    expect((await readAll(kept.content)).subarray(0, 5).toString()).toBe('%PDF-');
    await refused(act(owner, envelope.id, 'archive'), 409, 'invalid_status');

    const restored = await ok(owner, envelope.id, 'unarchive');
    expect(restored).toMatchObject({ status: 'Completed', previousStatus: null, archivedAt: null });
    await refused(act(owner, envelope.id, 'unarchive'), 409, 'invalid_status');

    await ok(owner, envelope.id, 'archive');
    const deleted = await ok(owner, envelope.id, 'delete');
    expect(deleted).toMatchObject({
      status: 'Deleted',
      previousStatus: 'Completed',
      archivedAt: expect.any(String),
      deletedAt: expect.any(String),
      filesPurgedAt: null,
    });
    expect(Date.parse(deleted.filesPurgeAfter) - Date.parse(deleted.deletedAt)).toBe(
      RETENTION_DELETED_DAYS.default * DAY_MS,
    );
    // Hidden from every route of the application now.
    for (const action of ['archive', 'unarchive', 'delete'] as const) {
      await refused(act(owner, envelope.id, action), 404, 'not_found');
    }
    // Its files stay until the retention run purges them (retention.test.ts).
    const pdf = await envelopeDocument(harness.ctx, envelope.organizationId, envelope.id, 'final-pdf');
    expect((await readAll(pdf.content)).subarray(0, 5).toString()).toBe('%PDF-');

    const all = await events(envelope.id);
    expect(all.slice(0, signing.length).map((event) => [event.sequence, event.type])).toEqual(
      signing.map((event) => [event.sequence, event.type]),
    );
    const record = all.slice(signing.length);
    expect(record.map((event) => [event.sequence, event.type])).toEqual([
      [RECORD_EVENT_SEQUENCE_BASE + 1, 'envelope.archived'],
      [RECORD_EVENT_SEQUENCE_BASE + 2, 'envelope.unarchived'],
      [RECORD_EVENT_SEQUENCE_BASE + 3, 'envelope.archived'],
      [RECORD_EVENT_SEQUENCE_BASE + 4, 'envelope.deleted'],
    ]);
    expect(record.map((event) => event.data)).toEqual([
      { previous_status: 'Completed', user_id: owner.user.id },
      { status: 'Completed', user_id: owner.user.id },
      { previous_status: 'Completed', user_id: owner.user.id },
      { previous_status: 'Completed', purge_after: deleted.filesPurgeAfter, user_id: owner.user.id },
    ]);
    expect(record.every((event) => event.organizationId === envelope.organizationId)).toBe(true);
  });

  it('keeps Archived and Deleted when a late transition of the workflow is projected', async () => {
    const projection = createProjectionActivities({ orm: harness.ctx.orm });
    for (const action of ['archive', 'delete'] as const) {
      const envelope = await cancelled();
      const before = await row(envelope.id);
      await ok(owner, envelope.id, action);
      // Say the workflow decided one more transition (as an extension within an expiry's grace window would).
      const { recipients } = await findEnvelope(harness.ctx, envelope.organizationId, envelope.id);
      const late = await projection.projectEnvelopeTransition({
        envelopeId: envelope.id,
        organizationId: envelope.organizationId,
        sequence: before.projectedSequence + 1,
        envelopeStatus: 'Sent',
        recipients: recipients.map((recipient) => ({ id: recipient.id, status: recipient.status })),
        event: { type: 'envelope.extended', recipientId: null, data: {} },
        occurredAt: new Date().toISOString(),
      });
      expect(late.applied).toBe(true);
      const after = await row(envelope.id);
      expect([after.status, after.previousStatus, after.projectedSequence]).toEqual([
        action === 'archive' ? 'Archived' : 'Deleted',
        'Sent',
        before.projectedSequence + 1,
      ]);
      // Both events are kept, the workflow's in its own numbering.
      expect((await events(envelope.id)).map((event) => [event.sequence, event.type]).slice(-2)).toEqual([
        [before.projectedSequence + 1, 'envelope.extended'],
        [RECORD_EVENT_SEQUENCE_BASE + 1, `envelope.${action}d`],
      ]);
    }
  });

  it('refuses a running envelope (409 envelope_in_progress) until it is cancelled', async () => {
    const envelope = await sent();
    for (const action of ['archive', 'delete'] as const) {
      const error = await refused(act(owner, envelope.id, action), 409, 'envelope_in_progress');
      expect(error.message).toContain('cancel it first');
    }
    await refused(act(owner, envelope.id, 'unarchive'), 409, 'invalid_status');
    expect((await row(envelope.id)).status).toBe('Sent');
    await cancelEnvelope(harness.ctx, envelope.organizationId, envelope.id);
    expect(await ok(owner, envelope.id, 'archive')).toMatchObject({
      status: 'Archived',
      previousStatus: 'Cancelled',
    });
    expect(await ok(owner, envelope.id, 'delete')).toMatchObject({
      status: 'Deleted',
      previousStatus: 'Cancelled',
    });
  });

  it('archives Declined and Expired envelopes; an archived Expired one is extended only after unarchiving', async () => {
    const declined = await sent();
    await declineRecipient(
      harness.ctx,
      declined.organizationId,
      declined.id,
      declined.recipientIds[0] as string,
      { reason: 'Wrong amount' },
    );
    expect(await ok(owner, declined.id, 'archive')).toMatchObject({ previousStatus: 'Declined' });

    const expiring = await sent({ expiresAt: new Date(Date.now() + 2500).toISOString() });
    await expect.poll(async () => (await row(expiring.id)).status).toBe('Expired');
    expect(await ok(owner, expiring.id, 'archive')).toMatchObject({ previousStatus: 'Expired' });
    const later = { expiresAt: new Date(Date.now() + 10 * DAY_MS).toISOString() };
    await expect(
      extendEnvelope(harness.ctx, expiring.organizationId, expiring.id, later),
    ).rejects.toMatchObject({
      status: 409,
      message: expect.stringContaining('unarchive it before extending it'),
    });
    expect(await ok(owner, expiring.id, 'unarchive')).toMatchObject({ status: 'Expired' });
    expect((await row(expiring.id)).status).toBe('Expired');
  });

  it('deletes a Draft, which can then not be sent; a Draft whose send reached Temporal is refused', async () => {
    const first = await draft();
    expect(await ok(owner, first.id, 'delete')).toMatchObject({ status: 'Deleted', previousStatus: 'Draft' });
    await expect(sendEnvelope(harness.ctx, first.organizationId, first.id)).rejects.toMatchObject({
      status: 409,
    });
    expect((await row(first.id)).workflowId).toBeNull();

    // A send that recorded its workflow id but was interrupted before Temporal started anything.
    const interrupted = await draft();
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(Envelope, { id: interrupted.id }, { workflowId: envelopeWorkflowId(interrupted.id) });
    expect(await ok(owner, interrupted.id, 'delete')).toMatchObject({ status: 'Deleted' });

    // A Draft row whose recorded workflow exists in Temporal: its send is under way.
    const running = await sent();
    const sending = await draft();
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(Envelope, { id: sending.id }, { workflowId: envelopeWorkflowId(running.id) });
    const error = await refused(act(owner, sending.id, 'delete'), 409, 'envelope_in_progress');
    expect(error.message).toContain('being sent');
    expect((await row(sending.id)).status).toBe('Draft');
  });

  it('dates the purge by the organization’s retention.deletedDays', async () => {
    const settings = await harness.app.inject({
      method: 'PUT',
      url: '/api/organization/settings',
      headers: owner.headers,
      payload: { retention: { deletedDays: 7 } },
    });
    expect(settings.statusCode, settings.body).toBe(200);
    expect(settings.json().retention.deletedDays).toBe(7);
    try {
      const envelope = await cancelled();
      const deleted = await ok(owner, envelope.id, 'delete');
      expect(Date.parse(deleted.filesPurgeAfter) - Date.parse(deleted.deletedAt)).toBe(7 * DAY_MS);
    } finally {
      await harness.app.inject({
        method: 'PUT',
        url: '/api/organization/settings',
        headers: owner.headers,
        payload: { retention: { deletedDays: null } },
      });
    }
  });
});

describe('who may', () => {
  it('finds nothing of another organization, and changes nothing there', async () => {
    const stranger = await signedInUser(harness, { role: 'owner' });
    const theirs = await cancelled({
      organizationId: stranger.organization.id,
      templateId: await templateOf(stranger.organization.id),
    });
    for (const action of ['archive', 'unarchive', 'delete'] as const) {
      const error = await refused(act(owner, theirs.id, action), 404, 'not_found');
      expect(error.message).toBe(`Envelope ${theirs.id} was not found.`);
    }
    expect((await row(theirs.id)).status).toBe('Cancelled');
    expect((await events(theirs.id)).map((event) => event.type)).toEqual([
      'envelope.sent',
      'envelope.cancelled',
    ]);
    // Their own owner may.
    expect(await ok(stranger, theirs.id, 'archive')).toMatchObject({ status: 'Archived' });
  });

  it('lets a sender change only the envelopes they see (their own, their team’s), and a member none', async () => {
    const sender = await signedInUser(harness, { role: 'sender', organizationId: owner.organization.id });
    const member = await signedInUser(harness, { role: 'member', organizationId: owner.organization.id });
    const owners = await cancelled({ sender: { userId: owner.user.id, teamId: null } });
    const senders = await cancelled({ sender: { userId: sender.user.id, teamId: null } });
    await refused(act(sender, owners.id, 'archive'), 404, 'not_found');
    expect(await ok(sender, senders.id, 'archive')).toMatchObject({ status: 'Archived' });
    for (const action of ['archive', 'unarchive', 'delete'] as const) {
      const error = await refused(act(member, senders.id, action), 403, 'forbidden');
      expect(error.details).toEqual([
        { permission: 'documents:manage', message: 'requires documents:manage' },
      ]);
    }
    expect((await row(owners.id)).status).toBe('Cancelled');
    expect((await row(senders.id)).status).toBe('Archived');
  });
});

describe('the documents list', () => {
  /** The ids GET /api/documents lists under a tab, among envelopes whose title has `marker`. */
  async function listed(tab: string, marker: string): Promise<string[]> {
    const response = await harness.app.inject({
      method: 'GET',
      url: `/api/documents?tab=${tab}&search=${marker}&limit=100`,
      headers: owner.headers,
    });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json().documents as { id: string }[]).map((document) => document.id);
  }

  it('shows an archived envelope only under the archived tab, and a deleted one nowhere', async () => {
    const marker = `listed${randomUUID().slice(0, 8)}`;
    const title = `Lifecycle ${marker}`;
    const archived = await cancelled({ title });
    const deleted = await cancelled({ title });
    const active = await cancelled({ title });
    await ok(owner, archived.id, 'archive');
    await ok(owner, deleted.id, 'delete');
    expect(await listed('all', marker)).toEqual([active.id]);
    expect(await listed('cancelled', marker)).toEqual([active.id]);
    expect(await listed('archived', marker)).toEqual([archived.id]);
    await ok(owner, archived.id, 'unarchive');
    expect((await listed('all', marker)).sort()).toEqual([active.id, archived.id].sort());
    expect(await listed('archived', marker)).toEqual([]);
  });
});

// The backoffice's envelopes across organizations on the real PostgreSQL and Temporal (docs/backoffice.md,
// "Envelopes"): the lookup by id, external reference, recipient email and phone finds envelopes of organizations
// the staff belong to none of, a page at a time; the envelope's page shows status, organization, recipients with
// their messages, audit events, projection state and the workflow's link, never the field values; the contents
// need a reason; every view and repair is recorded in the backoffice audit log and the organization's security
// log, which the organization's owner reads. Each repair runs on a real envelope put in the state it repairs:
// a projection parked on purpose (a trigger refusing its event, as projection-parking.test.ts does), a final PDF
// failed on purpose (a template PDF that no longer parses, as envelope-workflow.test.ts does), signing links to
// re-issue, an audit chain to verify. Support (the narrower role) does the repairs: they are its safe actions.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuditEvent,
  BackofficeAuditEvent,
  Envelope,
  SecurityEvent,
  SigningLink,
  Template,
} from '../../db/entities/index.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { remindEnvelope } from '../../services/envelopes/remind-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { Conflict } from '../../services/errors.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError } from '../support/app-requests.ts';
import { type SignedInAdmin, signedInAdmin } from '../support/backoffice.ts';
import { draftTwoSignerEnvelope } from '../support/context.ts';
import { signedInUser } from '../support/signed-in-user.ts';
import { replaceStoredBytes } from '../support/stored-files.ts';

let harness: ApiHarness;
let administrator: SignedInAdmin;
let support: SignedInAdmin;
const RUN = randomUUID().slice(0, 8);
const EMAIL = `dana-${RUN}@example.com`;
const PHONE = `+97250${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
const BASE = '/api/backoffice/envelopes';

beforeAll(async () => {
  harness = await openApiHarness();
  administrator = await signedInAdmin(harness, 'envelopes');
  support = await signedInAdmin(harness, 'envelopes-support', 'support');
});
afterAll(() => harness?.close());

/** A Draft of a new organization whose first signer is this run's Dana (email and phone). */
function draft(options: { externalReference?: string; title?: string } = {}) {
  return draftTwoSignerEnvelope(harness.ctx, {
    title: options.title ?? `Lookup ${RUN}`,
    ...(options.externalReference ? { externalReference: options.externalReference } : {}),
    recipients: [
      {
        roleName: 'Client',
        fullName: 'Dana Levi',
        email: EMAIL,
        phone: PHONE,
        deliveryChannel: 'ManualLink',
      },
      {
        roleName: 'Provider',
        fullName: 'Sam Cohen',
        email: 'sam@example.com',
        deliveryChannel: 'ManualLink',
      },
    ],
  });
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within 30 s (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const row = (id: string) => harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id });
const staffEvents = (targetId: string) =>
  harness.ctx.orm.em.fork().find(BackofficeAuditEvent, { targetId }, { orderBy: { occurredAt: 'asc' } });
const supportAccesses = (organizationId: string) =>
  harness.ctx.orm.em
    .fork()
    .find(SecurityEvent, { organizationId, type: 'support.accessed' }, { orderBy: { occurredAt: 'asc' } });

describe('the lookup across organizations', () => {
  it('finds envelopes by id, external reference, recipient email and phone, in every organization', async () => {
    const reference = `REF-${RUN}`;
    const a = await draft({ externalReference: reference });
    const b = await draft();
    const c = await draft();
    expect(new Set([a.organizationId, b.organizationId, c.organizationId]).size).toBe(3);

    const byId = await callAs(harness.app, support, 'GET', `${BASE}?q=${a.envelopeId}`);
    expect(byId.envelopes).toEqual([
      expect.objectContaining({
        id: a.envelopeId,
        matchedBy: 'id',
        status: 'Draft',
        externalReference: reference,
        organization: { id: a.organizationId, name: expect.any(String) },
      }),
    ]);
    const byReference = await callAs(harness.app, support, 'GET', `${BASE}?q=${reference.toLowerCase()}`);
    expect(byReference.envelopes.map((e: { id: string }) => e.id)).toEqual([a.envelopeId]);
    expect(byReference.envelopes[0].matchedBy).toBe('external_reference');

    const byEmail = await callAs(
      harness.app,
      support,
      'GET',
      `${BASE}?q=${encodeURIComponent(EMAIL.toUpperCase())}`,
    );
    expect(byEmail.envelopes.map((e: { id: string }) => e.id)).toEqual([
      c.envelopeId,
      b.envelopeId,
      a.envelopeId,
    ]);
    expect(byEmail.envelopes.every((e: { matchedBy: string }) => e.matchedBy === 'email')).toBe(true);
    const byPhone = await callAs(harness.app, administrator, 'GET', `${BASE}?q=${encodeURIComponent(PHONE)}`);
    expect(byPhone.envelopes.map((e: { id: string }) => e.id)).toEqual([
      c.envelopeId,
      b.envelopeId,
      a.envelopeId,
    ]);

    // A page at a time.
    const first = await callAs(harness.app, support, 'GET', `${BASE}?q=${encodeURIComponent(EMAIL)}&limit=2`);
    expect(first.envelopes.map((e: { id: string }) => e.id)).toEqual([c.envelopeId, b.envelopeId]);
    const second = await callAs(
      harness.app,
      support,
      'GET',
      `${BASE}?q=${encodeURIComponent(EMAIL)}&limit=2&cursor=${first.nextCursor}`,
    );
    expect(second.envelopes.map((e: { id: string }) => e.id)).toEqual([a.envelopeId]);
    expect(second.nextCursor).toBeNull();

    const nothing = await callAs(harness.app, support, 'GET', `${BASE}?q=nobody-${RUN}@example.com`);
    expect(nothing).toEqual({ envelopes: [], nextCursor: null });
  });

  it('answers bad input with 400 naming the field', async () => {
    const empty = await asUser(harness.app, support, 'GET', `${BASE}?q=`);
    expectError(empty, 400, 'invalid_request');
    expect(JSON.stringify(empty.json().error.details)).toContain('q');
    expectError(
      await asUser(harness.app, support, 'GET', `${BASE}?q=x&cursor=bm9wZQ`),
      400,
      'invalid_request',
    );
    expectError(await asUser(harness.app, support, 'GET', `${BASE}/not-a-uuid`), 400, 'invalid_request');
    expectError(await asUser(harness.app, support, 'GET', `${BASE}/${randomUUID()}`), 404, 'not_found');
  });
});

describe('the envelope’s page', () => {
  it('shows what support needs, never the field values, and records the view for the organization’s owner', async () => {
    const e = await draft({ title: `Page ${RUN}` });
    await sendEnvelope(harness.ctx, e.organizationId, e.envelopeId);
    await until(
      'sent',
      () => row(e.envelopeId),
      (envelope) => envelope.status === 'Sent',
    );

    const page = await callAs(harness.app, support, 'GET', `${BASE}/${e.envelopeId}`);
    expect(page).toMatchObject({
      id: e.envelopeId,
      title: `Page ${RUN}`,
      status: 'Sent',
      organization: { id: e.organizationId, plan: 'Business' },
      projection: { state: 'current', reason: null },
      workflow: { id: envelopeWorkflowId(e.envelopeId), namespace: expect.any(String) },
    });
    expect(page.recipients.map((r: { fullName: string; status: string }) => r.fullName)).toEqual([
      'Dana Levi',
      'Sam Cohen',
    ]);
    expect(page.recipients[0]).toMatchObject({ email: EMAIL, phone: PHONE, deliveryChannel: 'ManualLink' });
    expect(page.auditEvents.map((event: { type: string }) => event.type)).toContain('envelope.sent');
    // The contents stay out of the page: no field value, no audit event data.
    expect(JSON.stringify(page)).not.toMatch(/fieldValues|"data"/);

    const [viewed] = (await staffEvents(e.envelopeId)).filter((event) => event.action === 'envelope.viewed');
    expect(viewed).toMatchObject({
      actorAdminId: support.admin.id,
      details: { organizationId: e.organizationId },
    });
    const [access] = await supportAccesses(e.organizationId);
    expect(access?.details).toMatchObject({
      action: 'envelope.viewed',
      staff: support.admin.email,
      staffRole: 'support',
      targetId: e.envelopeId,
    });
    const owner = await signedInUser(harness, { role: 'owner', organizationId: e.organizationId });
    const log = await callAs(harness.app, owner, 'GET', '/api/organization/security-log');
    expect(log.events.map((event: { type: string }) => event.type)).toContain('support.accessed');
  });

  it('shows the contents only for a reason, and records it', async () => {
    const e = await draft();
    const path = `${BASE}/${e.envelopeId}/contents`;
    const refused = await asUser(harness.app, support, 'POST', path, {});
    expectError(refused, 400, 'invalid_request');
    expect(JSON.stringify(refused.json().error.details)).toContain('reason');
    expect(await supportAccesses(e.organizationId)).toEqual([]);

    const contents = await callAs(harness.app, support, 'POST', path, {
      reason: 'Ticket 981: the signer asks',
    });
    expect(contents.envelopeId).toBe(e.envelopeId);
    expect(Array.isArray(contents.fieldValues)).toBe(true);
    const [access] = await supportAccesses(e.organizationId);
    expect(access?.details).toMatchObject({
      action: 'envelope.contents_viewed',
      reason: 'Ticket 981: the signer asks',
      staff: support.admin.email,
    });
  });
});

describe('the repairs', () => {
  it('verify-audit: needs a reason, verifies the chain and records it', async () => {
    const e = await draft();
    await sendEnvelope(harness.ctx, e.organizationId, e.envelopeId);
    const path = `${BASE}/${e.envelopeId}/verify-audit`;
    expectError(await asUser(harness.app, support, 'POST', path, { reason: '' }), 400, 'invalid_request');
    const verified = await callAs(harness.app, support, 'POST', path, {
      reason: 'Customer doubts the trail',
    });
    expect(verified).toMatchObject({ envelopeId: e.envelopeId, repair: 'verify-audit' });
    expect(verified.outcome).toMatch(/intact: \d+ event/);
    const events = await staffEvents(e.envelopeId);
    expect(events.map((event) => event.action)).toEqual(['envelope.verify-audit']);
    expect(events[0]?.details).toMatchObject({ reason: 'Customer doubts the trail' });
  });

  it('resume-projection: the page shows the parked projection and why; support resumes it', async () => {
    const e = await draft();
    await sendEnvelope(harness.ctx, e.organizationId, e.envelopeId);
    const suffix = randomUUID().replaceAll('-', '');
    const connection = harness.ctx.orm.em.getConnection();
    await connection.execute(`
      create function refuse_${suffix}() returns trigger language plpgsql as $$
      begin
        if new.envelope_id = '${e.envelopeId}' and new.type = 'envelope.reminded' then
          raise exception 'the backoffice test refuses this event' using errcode = '23514';
        end if;
        return new;
      end $$`);
    await connection.execute(
      `create trigger refuse_${suffix} before insert on audit_event for each row execute function refuse_${suffix}()`,
    );
    try {
      await expect(remindEnvelope(harness.ctx, e.organizationId, e.envelopeId)).rejects.toBeInstanceOf(
        Conflict,
      );
      await until(
        'parked',
        () => row(e.envelopeId),
        (envelope) => Boolean(envelope.projectionError),
      );
      const page = await callAs(harness.app, support, 'GET', `${BASE}/${e.envelopeId}`);
      expect(page.projection).toMatchObject({
        state: 'parked',
        reason: expect.stringMatching(/SQLSTATE 23514/),
      });
      // Still refused while the cause is there: 409 with the reason, nothing recorded as done.
      const again = await asUser(harness.app, support, 'POST', `${BASE}/${e.envelopeId}/resume-projection`, {
        reason: 'Ticket 77',
      });
      expect(again.statusCode).toBe(409);
      expect((await staffEvents(e.envelopeId)).map((event) => event.action)).toEqual(['envelope.viewed']);
    } finally {
      await connection.execute(`drop trigger if exists refuse_${suffix} on audit_event`);
      await connection.execute(`drop function if exists refuse_${suffix}()`);
    }
    await until(
      'parked again',
      () => row(e.envelopeId),
      (envelope) => Boolean(envelope.projectionError),
    );
    const resumed = await callAs(harness.app, support, 'POST', `${BASE}/${e.envelopeId}/resume-projection`, {
      reason: 'Ticket 77: trigger removed',
    });
    expect(resumed).toMatchObject({ repair: 'resume-projection', status: 'Sent' });
    const after = await row(e.envelopeId);
    expect(after.projectionError).toBeNull();
    expect(after.reminderCount).toBe(1);
    const page = await callAs(harness.app, support, 'GET', `${BASE}/${e.envelopeId}`);
    expect(page.projection.state).toBe('current');
    expect(page.auditEvents.map((event: { type: string }) => event.type)).toContain('envelope.reminded');
    const accesses = await supportAccesses(e.organizationId);
    expect(accesses.map((a) => a.details.action)).toContain('envelope.resume-projection');
    expect(accesses.find((a) => a.details.action === 'envelope.resume-projection')?.details.reason).toBe(
      'Ticket 77: trigger removed',
    );
  });

  it('retry-final-pdf: an envelope whose final PDF failed on purpose is finalized again', async () => {
    const e = await draft();
    const template = await harness.ctx.orm.em
      .fork()
      .findOneOrFail(Template, { id: e.envelope.templateId as string });
    const restore = await replaceStoredBytes(harness.ctx, template.fileId, Buffer.from('%PDF-1.7 broken'));
    await sendEnvelope(harness.ctx, e.organizationId, e.envelopeId);
    await completeRecipient(harness.ctx, e.organizationId, e.envelopeId, e.first.id);
    await completeRecipient(harness.ctx, e.organizationId, e.envelopeId, e.second.id);
    await until(
      'failed',
      () => row(e.envelopeId),
      (envelope) => envelope.status === 'FinalPdfFailed',
    );

    const path = `${BASE}/${e.envelopeId}/retry-final-pdf`;
    await restore();
    const retried = await callAs(harness.app, support, 'POST', path, { reason: 'PDF fixed' });
    expect(retried).toMatchObject({ repair: 'retry-final-pdf', status: 'ProcessingFinalPdf' });
    await until(
      'completed',
      () => row(e.envelopeId),
      (envelope) => envelope.status === 'Completed',
    );
    expect((await row(e.envelopeId)).finalPdfFileId).not.toBeNull();
    // Not failed any more: 409, and only the one retry is recorded.
    expect((await asUser(harness.app, support, 'POST', path, { reason: 'again' })).statusCode).toBe(409);
    expect((await staffEvents(e.envelopeId)).map((event) => event.action)).toEqual([
      'envelope.retry-final-pdf',
    ]);
  });

  it('reissue-links: earlier links stop working, recipients are reminded, staff never see a link', async () => {
    const e = await draft();
    await sendEnvelope(harness.ctx, e.organizationId, e.envelopeId);
    await until(
      'sent',
      () => row(e.envelopeId),
      (envelope) => envelope.status === 'Sent',
    );
    await issueSigningLinks(harness.ctx, e.organizationId, e.envelopeId);
    const before = await harness.ctx.orm.em
      .fork()
      .find(SigningLink, { envelopeId: e.envelopeId, revokedAt: null });
    expect(before.length).toBe(2);

    const answer = await asUser(harness.app, support, 'POST', `${BASE}/${e.envelopeId}/reissue-links`, {
      reason: 'Dana lost the link',
    });
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.body).not.toMatch(/\/sign\//);
    expect(answer.json()).toMatchObject({ repair: 'reissue-links', status: 'Sent' });
    const links = await harness.ctx.orm.em.fork().find(SigningLink, { envelopeId: e.envelopeId });
    for (const link of before) {
      expect(links.find((l) => l.tokenHash === link.tokenHash)?.revokedAt).toBeInstanceOf(Date);
    }
    await until(
      'reminded',
      () =>
        harness.ctx.orm.em.fork().find(AuditEvent, { envelopeId: e.envelopeId, type: 'envelope.reminded' }),
      (events) => events.length === 1,
    );
    // A Draft has no links to re-issue.
    const d = await draft();
    const refused = await asUser(harness.app, support, 'POST', `${BASE}/${d.envelopeId}/reissue-links`, {
      reason: 'x'.repeat(5),
    });
    expect(refused.statusCode).toBe(409);
    expect(await staffEvents(d.envelopeId)).toEqual([]);
  });
});

// Correcting a recipient and reminding one (issue 33, docs/envelope-lifecycle.md "Correcting a recipient"):
// PATCH /api/v1/envelopes/{id}/recipients/{recipientId} and POST …/recipients/{recipientId}/remind, and their
// business-app routes. A corrected recipient's old link ends (404), the new invitation goes to the new address
// and its link signs; the audit event, the audit trail and a webhook say old → new; bad input, a foreign tenant, a
// missing scope and a recipient who completed are refused in the error body and change nothing; the workflow's
// validator refuses on its own; a DeliveryFailed recipient is reachable again; Idempotency-Key replays.
import { randomUUID } from 'node:crypto';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent, DevNotification, Envelope, Recipient } from '../../db/entities/index.ts';
import type { DocumentDetail } from '../../domain/document.ts';
import { updateEnvelope } from '../../services/envelopes/envelope-update.ts';
import { Conflict } from '../../services/errors.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { correctRecipientUpdate, remindEnvelopeUpdate } from '../../workflows/contracts.ts';
import {
  type ApiHarness,
  type Integrator,
  listenLocally,
  newIntegrator,
  openApiHarness,
  type SentEnvelope,
  sentEnvelope,
} from '../support/api.ts';
import { asUser, callAs, expectError, signThroughApi } from '../support/app-requests.ts';
import { signedInUser } from '../support/signed-in-user.ts';
import {
  type ReceivedRequest,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../support/webhook-receiver.ts';

let harness: ApiHarness;
let baseUrl: string;
let acme: Integrator;
let sender: { organizationId: string; headers: Record<string, string> };
let receiver: WebhookReceiver;
let hookPath: string;

beforeAll(async () => {
  harness = await openApiHarness();
  baseUrl = await listenLocally(harness.app);
  acme = await newIntegrator(harness);
  sender = { organizationId: acme.organizationId, headers: await acme.auth() };
  receiver = await startWebhookReceiver();
  hookPath = `/hooks/${randomUUID()}`;
  await createWebhookEndpoint(harness.ctx, {
    organizationId: acme.organizationId,
    url: `${receiver.url}${hookPath}`,
    eventTypes: ['recipient.corrected'],
  });
});
afterAll(async () => {
  await receiver?.close();
  await harness?.close();
});

/** A Sequential envelope of the demo template, Dana then Sam by email, sent. */
function sent(): Promise<SentEnvelope> {
  return sentEnvelope(harness, sender, {
    title: 'Corrected agreement',
    workflowType: 'Sequential',
    templateId: acme.templateId,
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@typo.example', signingOrder: 1 },
      { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@provider.example', signingOrder: 2 },
    ],
  });
}

const correctionPath = (envelope: SentEnvelope, name: string) =>
  `/api/v1/envelopes/${envelope.id}/recipients/${envelope.recipientIdOf(name)}`;
const patch = (envelope: SentEnvelope, name: string, body: unknown, headers = sender.headers) =>
  harness.app.inject({
    method: 'PATCH',
    url: correctionPath(envelope, name),
    headers,
    payload: body as object,
  });
const signerView = (token: string) => harness.app.inject({ method: 'GET', url: `/api/signing/${token}` });

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const value = await probe();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const em = () => harness.ctx.orm.em.fork();
const recipientRow = (id: string) => em().findOneOrFail(Recipient, { id });
const eventsOf = async (envelopeId: string, type: string) =>
  (await em().find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } })).filter(
    (e) => e.type === type,
  );
/** The envelope's events but the deliveries of its messages, which the worker records whenever they land. */
const decidedEvents = async (envelopeId: string) =>
  (await em().find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } }))
    .filter((event) => event.type !== 'recipient.invitation_sent')
    .map((event) => event.type);
const invitationTo = (recipientId: string, to: string) =>
  waitFor(`the invitation to ${to}`, () =>
    em().findOne(
      DevNotification,
      { recipientId, kind: 'invitation', to },
      { orderBy: { createdAt: 'desc' } },
    ),
  );

async function pdfText(bytes: Uint8Array): Promise<string> {
  const pdf = await getDocument({ data: bytes.slice(), verbosity: 0 }).promise;
  const parts: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const page = await pdf.getPage(number);
    const items = (await page.getTextContent()).items.filter((item): item is TextItem => 'str' in item);
    parts.push(items.map((item) => item.str).join(' '));
  }
  return parts.join('\n');
}

/** What must stay as it was after a refused correction: the recipient's row, the events, the link. */
async function unchanged(envelope: SentEnvelope, name: string) {
  const recipientId = envelope.recipientIdOf(name);
  const before = await recipientRow(recipientId);
  const events = await decidedEvents(envelope.id);
  return async () => {
    const after = await recipientRow(recipientId);
    expect({
      name: after.fullName,
      email: after.email,
      phone: after.phone,
      channel: after.deliveryChannel,
    }).toEqual({
      name: before.fullName,
      email: before.email,
      phone: before.phone,
      channel: before.deliveryChannel,
    });
    expect(await eventsOf(envelope.id, 'recipient.corrected')).toEqual([]);
    expect(await decidedEvents(envelope.id)).toEqual(events);
    if (after.status !== 'Completed') expect((await signerView(envelope.tokenOf(name))).statusCode).toBe(200);
  };
}

describe('PATCH /api/v1/envelopes/{id}/recipients/{recipientId}', () => {
  it('corrects an address: the old link ends, the new invitation signs, the audit trail and a webhook say old → new', async () => {
    const envelope = await sent();
    const dana = envelope.recipientIdOf('Dana Levi');
    const oldToken = envelope.tokenOf('Dana Levi');
    // Whoever got the mistyped invitation opened it: opening is not acting, so the correction is allowed.
    expect((await signerView(oldToken)).statusCode).toBe(200);

    const key = randomUUID();
    const first = await asUser(
      harness.app,
      { headers: sender.headers },
      'PATCH',
      correctionPath(envelope, 'Dana Levi'),
      { email: 'dana@client.example' },
      { idempotencyKey: key },
    );
    expect(first.statusCode, first.body).toBe(200);
    const view = first.json();
    expect(view.recipients.find((r: { id: string }) => r.id === dana)).toMatchObject({
      email: 'dana@client.example',
      fullName: 'Dana Levi',
      status: expect.stringMatching(/^(Pending|InvitationSent)$/),
    });
    // The same key again: the first answer, applied once.
    const again = await asUser(
      harness.app,
      { headers: sender.headers },
      'PATCH',
      correctionPath(envelope, 'Dana Levi'),
      { email: 'dana@client.example' },
      { idempotencyKey: key },
    );
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(view);

    // The old link has ended, as any ended link.
    const ended = await signerView(oldToken);
    expect(ended.statusCode).toBe(404);
    expect(ended.json().error.code).toBe('not_found');

    const [event, ...more] = await eventsOf(envelope.id, 'recipient.corrected');
    expect(more).toEqual([]);
    expect(event?.recipientId).toBe(dana);
    expect(event?.data).toEqual({
      changes: { email: { old: 'dana@typo.example', new: 'dana@client.example' } },
    });

    const [hook] = await receiver.waitFor(1, (request: ReceivedRequest) => request.path === hookPath, 30_000);
    expect(JSON.parse(hook?.rawBody ?? '{}')).toMatchObject({
      type: 'recipient.corrected',
      data: {
        envelope_id: envelope.id,
        recipient_id: dana,
        changes: { email: { old: 'dana@typo.example', new: 'dana@client.example' } },
      },
    });

    // The invitation went to the new address, with a link that works; Dana signs with it, then Sam.
    const invitation = await invitationTo(dana, 'dana@client.example');
    await signThroughApi(baseUrl, invitation.signingLink as string);
    await signThroughApi(baseUrl, envelope.linkOf('Sam Cohen').url);
    await waitFor(
      'Completed',
      async () => (await em().findOneOrFail(Envelope, { id: envelope.id })).status === 'Completed',
    );
    const trail = await harness.app.inject({
      method: 'GET',
      url: `/api/v1/envelopes/${envelope.id}/documents/audit-trail`,
      headers: sender.headers,
    });
    expect(trail.statusCode).toBe(200);
    const text = await pdfText(new Uint8Array(trail.rawPayload));
    expect(text).toContain('Recipient corrected by the sender');
    expect(text).toContain('Corrected email from dana@typo.example to dana@client.example');
  });

  it('a recipient waiting for their turn is not invited now, and is invited at the new address when it comes', async () => {
    const envelope = await sent();
    const sam = envelope.recipientIdOf('Sam Cohen');
    const corrected = await patch(envelope, 'Sam Cohen', {
      fullName: 'Samuel Cohen',
      email: 'samuel@provider.example',
      language: 'he',
    });
    expect(corrected.statusCode, corrected.body).toBe(200);
    expect(await recipientRow(sam)).toMatchObject({
      fullName: 'Samuel Cohen',
      email: 'samuel@provider.example',
      language: 'he',
      status: 'WaitingForTurn',
    });
    expect(await em().count(DevNotification, { recipientId: sam, kind: 'invitation' })).toBe(0);
    await signThroughApi(baseUrl, envelope.linkOf('Dana Levi').url);
    const invitation = await invitationTo(sam, 'samuel@provider.example');
    expect(invitation.signingLink).toMatch(/\/sign\//);
  });

  it('bad input: 400 naming the field, and nothing changes', async () => {
    const envelope = await sent();
    const check = await unchanged(envelope, 'Dana Levi');
    const cases: [unknown, string | undefined][] = [
      [{ email: 'not an address' }, 'email'],
      [{ deliveryChannel: 'Sms' }, 'phone'],
      [{ phone: '0501234567' }, 'phone'],
      [{ deliveryChannel: 'Pigeon' }, 'deliveryChannel'],
      [{ fullName: '' }, 'fullName'],
      [{ language: 'fr' }, 'language'],
      [{ email: null }, 'email'],
    ];
    for (const [body, field] of cases) {
      const error = expectError(await patch(envelope, 'Dana Levi', body), 400, 'invalid_request');
      // A field the route's schema refuses is named in the body (`body.email`), one the recipient's rules refuse
      // after merging by its own name.
      expect(
        error.details.map((detail) => detail.field?.replace(/^body\./, '')),
        JSON.stringify(body),
      ).toContain(field);
    }
    expectError(await patch(envelope, 'Dana Levi', {}), 400, 'invalid_request');
    expectError(await patch(envelope, 'Dana Levi', { emial: 'x@example.com' }), 400, 'invalid_request');
    const same = expectError(
      await patch(envelope, 'Dana Levi', { email: 'dana@typo.example' }),
      400,
      'invalid_request',
    );
    expect(same.message).toMatch(/changes nothing/);
    await check();
  });

  it('another organization’s envelope or an unknown recipient is 404; without envelopes.write 403', async () => {
    const envelope = await sent();
    const check = await unchanged(envelope, 'Dana Levi');
    const other = await newIntegrator(harness);
    expectError(
      await patch(envelope, 'Dana Levi', { email: 'x@example.com' }, await other.auth()),
      404,
      'not_found',
    );
    const unknown = await harness.app.inject({
      method: 'PATCH',
      url: `/api/v1/envelopes/${envelope.id}/recipients/${randomUUID()}`,
      headers: sender.headers,
      payload: { email: 'x@example.com' },
    });
    expectError(unknown, 404, 'not_found');
    expectError(
      await patch(envelope, 'Dana Levi', { email: 'x@example.com' }, await acme.auth(['envelopes.read'])),
      403,
      'forbidden',
    );
    await check();
  });

  it('refused with 409 once the recipient completed or the envelope ended; the workflow refuses on its own too', async () => {
    const envelope = await sent();
    await signThroughApi(baseUrl, envelope.linkOf('Dana Levi').url);
    await waitFor('Dana Completed', async () =>
      (await recipientRow(envelope.recipientIdOf('Dana Levi'))).status === 'Completed' ? true : null,
    );
    const check = await unchanged(envelope, 'Dana Levi');
    const late = expectError(await patch(envelope, 'Dana Levi', { email: 'x@example.com' }), 409, 'conflict');
    expect(late.message).toMatch(/already completed/);
    // Straight to the workflow, past the service's checks.
    const row = await em().findOneOrFail(Envelope, { id: envelope.id });
    const party = {
      fullName: 'Dana Levi',
      email: 'dana@typo.example',
      phone: null,
      deliveryChannel: 'Email' as const,
    };
    const refused = updateEnvelope(harness.ctx, row, correctRecipientUpdate, {
      recipientId: envelope.recipientIdOf('Dana Levi'),
      from: party,
      to: { ...party, email: 'x@example.com' },
    });
    await expect(refused).rejects.toBeInstanceOf(Conflict);
    await expect(refused).rejects.toThrow(/already completed/);
    await check();

    await callAs(harness.app, { headers: sender.headers }, 'POST', `/api/v1/envelopes/${envelope.id}/cancel`);
    const samCheck = await unchanged(envelope, 'Sam Cohen');
    const ended = expectError(
      await patch(envelope, 'Sam Cohen', { email: 'y@example.com' }),
      409,
      'conflict',
    );
    expect(ended.message).toMatch(/Cancelled/);
    await samCheck();
  });

  it('a DeliveryFailed recipient is reachable again at the corrected address, and the envelope resumes', async () => {
    const envelope = await sent();
    const dana = envelope.recipientIdOf('Dana Levi');
    // The address is lost behind the workflow's back: the next message to Dana fails for good (NoAddress).
    await em().nativeUpdate(Recipient, { id: dana }, { email: null });
    await callAs(harness.app, { headers: sender.headers }, 'POST', `/api/v1/envelopes/${envelope.id}/remind`);
    await waitFor('DeliveryFailed', async () =>
      (await em().findOneOrFail(Envelope, { id: envelope.id })).status === 'DeliveryFailed' ? true : null,
    );
    expect((await recipientRow(dana)).status).toBe('DeliveryFailed');

    const corrected = await patch(envelope, 'Dana Levi', { email: 'dana@found.example' });
    expect(corrected.statusCode, corrected.body).toBe(200);
    await invitationTo(dana, 'dana@found.example');
    await waitFor('the envelope resumed', async () =>
      (await em().findOneOrFail(Envelope, { id: envelope.id })).status === 'Sent' ? true : null,
    );
    expect((await recipientRow(dana)).status).toBe('InvitationSent');
  });

  it('sandbox: the same checks and answers on a synthetic envelope', async () => {
    const headers = { ...sender.headers, 'x-service-sandbox': 'true' };
    const created = await callAs(
      harness.app,
      { headers },
      'POST',
      '/api/v1/envelopes/from-template',
      {
        title: 'Sandbox correction',
        workflowType: 'Sequential',
        templateId: acme.templateId,
        recipients: [
          { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@typo.example', signingOrder: 1 },
          { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@provider.example', signingOrder: 2 },
        ],
      },
      { status: 201 },
    );
    const [dana, sam] = created.recipients as { id: string }[];
    await callAs(harness.app, { headers }, 'POST', `/api/v1/envelopes/${created.id}/send`);
    const path = (id: string | undefined) => `/api/v1/envelopes/${created.id}/recipients/${id}`;
    const corrected = await callAs(harness.app, { headers }, 'PATCH', path(dana?.id), {
      email: 'dana@client.example',
    });
    expect(corrected.recipients[0]).toMatchObject({ email: 'dana@client.example', status: 'Pending' });
    expectError(
      await asUser(harness.app, { headers }, 'PATCH', path(dana?.id), { deliveryChannel: 'Sms' }),
      400,
      'invalid_request',
    );
    const reminded = await callAs(harness.app, { headers }, 'POST', `${path(dana?.id)}/remind`);
    expect(reminded.reminderCount).toBe(1);
    expectError(await asUser(harness.app, { headers }, 'POST', `${path(sam?.id)}/remind`), 409, 'conflict');
    expectError(
      await asUser(harness.app, { headers }, 'POST', `${path(randomUUID())}/remind`),
      404,
      'not_found',
    );
  });
});

describe('POST /api/v1/envelopes/{id}/recipients/{recipientId}/remind', () => {
  it('reminds that recipient alone; refused for one who cannot act now; Idempotency-Key replays', async () => {
    const envelope = await sent();
    const dana = envelope.recipientIdOf('Dana Levi');
    const key = randomUUID();
    const remind = (name: string, headers = sender.headers, idempotencyKey?: string) =>
      asUser(
        harness.app,
        { headers },
        'POST',
        `${correctionPath(envelope, name)}/remind`,
        undefined,
        idempotencyKey ? { idempotencyKey } : {},
      );
    const first = await remind('Dana Levi', sender.headers, key);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().reminderCount).toBe(1);
    const again = await remind('Dana Levi', sender.headers, key);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().reminderCount).toBe(1);
    const [reminded, ...more] = await eventsOf(envelope.id, 'envelope.reminded');
    expect(more).toEqual([]);
    expect(reminded?.data).toEqual({ recipient_ids: [dana] });
    await waitFor('the reminder', () =>
      em().findOne(DevNotification, { recipientId: dana, kind: 'reminder' }),
    );

    // Sam waits for his turn: nothing to remind him of.
    const early = expectError(await remind('Sam Cohen'), 409, 'conflict');
    expect(early.message).toMatch(/cannot act now/);
    expectError(await remind('Dana Levi', await acme.auth(['envelopes.read'])), 403, 'forbidden');
    const other = await newIntegrator(harness);
    expectError(await remind('Dana Levi', await other.auth()), 404, 'not_found');
    expect((await em().findOneOrFail(Envelope, { id: envelope.id })).reminderCount).toBe(1);
    expect(await em().count(DevNotification, { envelopeId: envelope.id, kind: 'reminder' })).toBe(1);

    // The workflow's validator refuses on its own, and so for the whole envelope once Dana completed.
    const row = await em().findOneOrFail(Envelope, { id: envelope.id });
    await expect(
      updateEnvelope(harness.ctx, row, remindEnvelopeUpdate, {
        recipientId: envelope.recipientIdOf('Sam Cohen'),
      }),
    ).rejects.toThrow(/cannot act now/);
  });
});

describe('the business app’s routes', () => {
  it('the envelope page says whom to remind and correct; a sender corrects and reminds, a read-only member may not', async () => {
    const envelope = await sent();
    const owner = await signedInUser(harness, { role: 'owner', organizationId: acme.organizationId });
    const page = await callAs<DocumentDetail>(harness.app, owner, 'GET', `/api/documents/${envelope.id}`);
    const flags = page.recipients.map((r) => ({ name: r.fullName, remind: r.remind, correct: r.correct }));
    expect(flags).toEqual([
      { name: 'Dana Levi', remind: true, correct: true },
      { name: 'Sam Cohen', remind: false, correct: true },
    ]);
    const dana = envelope.recipientIdOf('Dana Levi');
    const path = `/api/documents/${envelope.id}/recipients/${dana}`;

    const member = await signedInUser(harness, { role: 'member', organizationId: acme.organizationId });
    expectError(
      await asUser(harness.app, member, 'POST', `${path}/correct`, { email: 'm@example.com' }),
      403,
      'forbidden',
    );
    const refused = expectError(
      await asUser(harness.app, owner, 'POST', `${path}/correct`, { deliveryChannel: 'Sms' }),
      400,
      'invalid_request',
    );
    expect(refused.details.map((detail) => detail.field)).toContain('phone');

    const after = await callAs<DocumentDetail>(harness.app, owner, 'POST', `${path}/correct`, {
      fullName: 'Dana Levi-Cohen',
      phone: '+972501234567',
      deliveryChannel: 'Sms',
    });
    expect(after.recipients[0]).toMatchObject({ fullName: 'Dana Levi-Cohen', deliveryChannel: 'Sms' });
    await invitationTo(dana, '+972501234567');
    const reminded = await callAs<DocumentDetail>(harness.app, owner, 'POST', `${path}/remind`);
    expect(reminded.reminderCount).toBe(1);
    // The timeline names the recipient as they were before the correction.
    const corrected = reminded.timeline.find((event) => event.type === 'recipient.corrected');
    expect(corrected?.recipient?.fullName).toBe('Dana Levi');
  });
});

// Delegation where the sender allows it (issue 32, docs/signing.md "Handing your part to someone else"): with
// the envelope's `allowDelegation` on, a signer hands their part to another person through
// POST /api/signing/{token}/delegate; their link ends (404), the delegate is invited on their channel (the
// development capture), signs in the same place in the order, the envelope completes, and the audit events and
// the audit trail's event log say who delegated to whom. Off, after acting, out of turn or with bad input it is
// refused in the error body and nothing changes; the workflow's validator refuses on its own too.
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AuditEvent,
  DevNotification,
  Envelope,
  EnvelopeFieldValue,
  Recipient,
} from '../../db/entities/index.ts';
import type { DocumentDetail } from '../../domain/document.ts';
import type { TemplateDetail } from '../../domain/template-builder.ts';
import { updateEnvelope } from '../../services/envelopes/envelope-update.ts';
import { Conflict } from '../../services/errors.ts';
import { delegateRecipientUpdate } from '../../workflows/contracts.ts';
import {
  type ApiHarness,
  type Integrator,
  newIntegrator,
  openApiHarness,
  type SentEnvelope,
  sentEnvelope,
} from '../support/api.ts';
import { callAs } from '../support/app-requests.ts';
import { encodePng } from '../support/png.ts';
import { signedInUser } from '../support/signed-in-user.ts';

const SIGNER_IP = '203.0.113.61';

let harness: ApiHarness;
let acme: Integrator;
let sender: { organizationId: string; headers: Record<string, string> };

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  sender = { organizationId: acme.organizationId, headers: await acme.auth() };
});
afterAll(() => harness?.close());

/** A Sequential envelope of the demo template, both signers by email, sent; `body` adds to the request. */
function sent(body: Record<string, unknown> = {}): Promise<SentEnvelope> {
  return sentEnvelope(harness, sender, {
    title: 'Delegated agreement',
    workflowType: 'Sequential',
    templateId: acme.templateId,
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@client.example', signingOrder: 1 },
      { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@provider.example', signingOrder: 2 },
    ],
    ...body,
  });
}

function signer(method: 'GET' | 'PUT' | 'POST', url: string, payload?: Record<string, unknown>) {
  return harness.app.inject({
    method,
    url,
    remoteAddress: SIGNER_IP,
    headers: { 'user-agent': 'Sigil delegation test' },
    ...(payload ? { payload } : {}),
  });
}

const delegate = (token: string, body: Record<string, unknown>) =>
  signer('POST', `/api/signing/${token}/delegate`, body);

/** A value for a field of the demo template. */
function valueFor(type: string, name: string): unknown {
  if (type === 'Signature' || type === 'Initials') {
    const png = encodePng(60, 20, (_x, y) => (Math.abs(y - 10) < 2 ? [20, 30, 120, 255] : [0, 0, 0, 0]));
    return { imagePngBase64: png.toString('base64'), typedName: name };
  }
  if (type === 'Date') return '2026-05-01';
  return name;
}

/** Fills the link's required fields and completes with consent. */
async function signAs(token: string, name: string): Promise<void> {
  const view = await signer('GET', `/api/signing/${token}`);
  expect(view.statusCode, view.body).toBe(200);
  const values = (view.json().fields as { fieldDefinitionId: string; type: string; required: boolean }[])
    .filter((field) => field.required)
    .map((field) => ({ fieldDefinitionId: field.fieldDefinitionId, value: valueFor(field.type, name) }));
  const saved = await signer('PUT', `/api/signing/${token}/fields`, { values });
  expect(saved.statusCode, saved.body).toBe(200);
  const done = await signer('POST', `/api/signing/${token}/complete`, { consent: true });
  expect(done.statusCode, done.body).toBe(200);
}

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
const auditEvents = (envelopeId: string) =>
  em().find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
/** The envelope's events but the deliveries of its invitations, which the worker records whenever they land. */
const decidedEvents = async (envelopeId: string) =>
  (await auditEvents(envelopeId))
    .filter((event) => event.type !== 'recipient.invitation_sent')
    .map((event) => event.type);

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

/**
 * What must stay as it was after a refused delegation: the recipient's row, the events, the link (opened first,
 * so that reading it again records nothing).
 */
async function unchanged(envelope: SentEnvelope, name: string) {
  const recipientId = envelope.recipientIdOf(name);
  expect((await signer('GET', `/api/signing/${envelope.tokenOf(name)}`)).statusCode).toBe(200);
  const before = {
    recipient: await recipientRow(recipientId),
    events: await decidedEvents(envelope.id),
  };
  return async () => {
    const after = await recipientRow(recipientId);
    expect({ fullName: after.fullName, email: after.email, status: after.status }).toEqual({
      fullName: before.recipient.fullName,
      email: before.recipient.email,
      status: before.recipient.status,
    });
    expect((await auditEvents(envelope.id)).map((e) => e.type)).not.toContain('recipient.delegated');
    expect(await decidedEvents(envelope.id)).toEqual(before.events);
    const link = await signer('GET', `/api/signing/${envelope.tokenOf(name)}`);
    expect(link.statusCode, link.body).toBe(200);
    expect(await em().count(DevNotification, { envelopeId: envelope.id, to: 'noa@delegate.example' })).toBe(
      0,
    );
  };
}

describe('delegation on the signer API', () => {
  it('on: the delegate is invited, signs in the same place, the envelope completes and the audit trail says who delegated to whom', async () => {
    const envelope = await sent({ allowDelegation: true });
    expect(envelope.created.allowDelegation).toBe(true);
    const dana = envelope.tokenOf('Dana Levi');
    const recipientId = envelope.recipientIdOf('Dana Levi');
    const opened = await signer('GET', `/api/signing/${dana}`);
    expect(opened.json()).toMatchObject({ state: 'ready', allowDelegation: true });
    // Dana begins (a value the delegate must not inherit), then hands her part to Noa.
    const name = (opened.json().fields as { fieldDefinitionId: string; type: string }[]).find(
      (field) => field.type === 'Full name',
    );
    const saved = await signer('PUT', `/api/signing/${dana}/fields`, {
      values: [{ fieldDefinitionId: name?.fieldDefinitionId as string, value: 'Dana Levi' }],
    });
    expect(saved.statusCode, saved.body).toBe(200);

    const handed = await delegate(dana, { fullName: 'Noa Bar', email: 'noa.bar@delegate.example' });
    expect(handed.statusCode, handed.body).toBe(200);
    expect(handed.json()).toEqual({
      state: 'delegated',
      envelopeStatus: 'InProgress',
      delegate: { fullName: 'Noa Bar', deliveryChannel: 'Email' },
    });

    // Dana's link has ended, as any ended link: 404 in the error body, for reading and for acting.
    const ended = await signer('GET', `/api/signing/${dana}`);
    expect(ended.statusCode).toBe(404);
    expect(ended.json().error.code).toBe('not_found');
    expect((await delegate(dana, { fullName: 'Eve', email: 'eve@example.com' })).statusCode).toBe(404);

    // The recipient is Noa now: same id, role and place in the order, Pending again, Dana's value gone.
    const row = await recipientRow(recipientId);
    expect(row).toMatchObject({
      fullName: 'Noa Bar',
      email: 'noa.bar@delegate.example',
      deliveryChannel: 'Email',
      roleName: 'Client',
      signingOrder: 1,
    });
    expect(await em().count(EnvelopeFieldValue, { envelopeId: envelope.id, recipientId })).toBe(0);

    // Noa's invitation, captured in test, carries her own link.
    const invitation = await waitFor('the delegate’s invitation', () =>
      em().findOne(DevNotification, { recipientId, kind: 'invitation', to: 'noa.bar@delegate.example' }),
    );
    const noa = (invitation.signingLink as string).split('/sign/')[1] as string;
    const noaView = await signer('GET', `/api/signing/${noa}`);
    expect(noaView.json()).toMatchObject({ state: 'ready', recipient: { name: 'Noa Bar' } });
    expect(
      (noaView.json().fields as { fieldDefinitionId: string; value: unknown }[]).find(
        (field) => field.fieldDefinitionId === name?.fieldDefinitionId,
      )?.value ?? null,
    ).toBeNull();
    await signAs(noa, 'Noa Bar');
    await signAs(envelope.tokenOf('Sam Cohen'), 'Sam Cohen');
    await waitFor(
      'Completed',
      async () => (await em().findOneOrFail(Envelope, { id: envelope.id })).status === 'Completed',
    );

    const delegated = (await auditEvents(envelope.id)).filter((e) => e.type === 'recipient.delegated');
    expect(delegated).toHaveLength(1);
    expect(delegated[0]?.recipientId).toBe(recipientId);
    expect(delegated[0]?.data).toEqual({
      delegated_by_name: 'Dana Levi',
      delegated_by_email: 'dana@client.example',
      delegated_by_channel: 'Email',
      delegated_to_name: 'Noa Bar',
      delegated_to_email: 'noa.bar@delegate.example',
      delegated_to_channel: 'Email',
      ip: SIGNER_IP,
      user_agent: 'Sigil delegation test',
    });
    const trail = await harness.app.inject({
      method: 'GET',
      url: `/api/v1/envelopes/${envelope.id}/documents/audit-trail`,
      headers: sender.headers,
    });
    expect(trail.statusCode).toBe(200);
    const text = await pdfText(new Uint8Array(trail.rawPayload));
    expect(text).toContain('Part handed to someone else');
    expect(text).toContain('recipient.delegated');
    expect(text).toContain('delegated_to_name: Noa Bar');
    // The events before the delegation name Dana (who opened the link), the later ones Noa.
    expect(text).toContain('dana@client.example');
    expect(text).toContain('noa.bar@delegate.example');
    // The business app's timeline names each event's recipient as they were then.
    const owner = await signedInUser(harness, { role: 'owner', organizationId: acme.organizationId });
    const page = await callAs<DocumentDetail>(harness.app, owner, 'GET', `/api/documents/${envelope.id}`);
    const actor = (type: string) =>
      page.timeline
        .filter((event) => event.type === type && event.recipient?.id === recipientId)
        .map((event) => event.recipient?.fullName);
    expect(actor('recipient.opened')).toEqual(['Dana Levi', 'Noa Bar']);
    expect(actor('recipient.delegated')).toEqual(['Dana Levi']);
    expect(actor('recipient.completed')).toEqual(['Noa Bar']);
  });

  it('by text message: the delegate is invited by SMS with their number', async () => {
    const envelope = await sent({ allowDelegation: true });
    const recipientId = envelope.recipientIdOf('Dana Levi');
    const handed = await delegate(envelope.tokenOf('Dana Levi'), {
      fullName: 'Omer Katz',
      phone: '+972501112233',
      deliveryChannel: 'Sms',
    });
    expect(handed.statusCode, handed.body).toBe(200);
    const invitation = await waitFor('the SMS invitation', () =>
      em().findOne(DevNotification, { recipientId, kind: 'invitation', to: '+972501112233' }),
    );
    expect(invitation.channel).toBe('Sms');
    expect(await recipientRow(recipientId)).toMatchObject({ phone: '+972501112233', deliveryChannel: 'Sms' });
  });

  it('off: refused with 403 naming the setting, and nothing changes', async () => {
    const envelope = await sent();
    expect(envelope.created.allowDelegation).toBe(false);
    const check = await unchanged(envelope, 'Dana Levi');
    expect(
      (await signer('GET', `/api/signing/${envelope.tokenOf('Dana Levi')}`)).json().allowDelegation,
    ).toBe(false);
    const refused = await delegate(envelope.tokenOf('Dana Levi'), {
      fullName: 'Noa Bar',
      email: 'noa@delegate.example',
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toMatchObject({
      code: 'forbidden',
      details: [{ field: 'allowDelegation', message: 'off for this envelope' }],
    });
    await check();
  });

  it('after acting or out of turn: refused with 409, and nothing changes; the workflow refuses on its own too', async () => {
    const envelope = await sent({ allowDelegation: true });
    const sam = await unchanged(envelope, 'Sam Cohen');
    const early = await delegate(envelope.tokenOf('Sam Cohen'), {
      fullName: 'Noa Bar',
      email: 'noa@delegate.example',
    });
    expect(early.statusCode).toBe(409);
    expect(early.json().error.details).toEqual([{ field: 'state', message: 'not_in_turn' }]);
    await sam();

    await signAs(envelope.tokenOf('Dana Levi'), 'Dana Levi');
    const dana = envelope.recipientIdOf('Dana Levi');
    const late = await delegate(envelope.tokenOf('Dana Levi'), {
      fullName: 'Noa Bar',
      email: 'noa@delegate.example',
    });
    expect(late.statusCode).toBe(409);
    expect(late.json().error.details).toEqual([{ field: 'state', message: 'completed' }]);
    // Straight to the workflow, past the signer API's checks: its validator refuses a recipient who acted.
    const row = await em().findOneOrFail(Envelope, { id: envelope.id });
    const refused = updateEnvelope(harness.ctx, row, delegateRecipientUpdate, {
      recipientId: dana,
      from: { fullName: 'Dana Levi', email: 'dana@client.example', phone: null, deliveryChannel: 'Email' },
      to: { fullName: 'Noa Bar', email: 'noa@delegate.example', phone: null, deliveryChannel: 'Email' },
    });
    await expect(refused).rejects.toBeInstanceOf(Conflict);
    await expect(refused).rejects.toThrow(/already completed/);
    expect((await recipientRow(dana)).fullName).toBe('Dana Levi');
    expect((await auditEvents(envelope.id)).map((e) => e.type)).not.toContain('recipient.delegated');
  });

  it('the workflow refuses when the envelope was sent without delegation, whatever its row says', async () => {
    const envelope = await sent();
    const check = await unchanged(envelope, 'Dana Levi');
    // The row is changed behind the workflow's back: the workflow's input (allowDelegation absent) decides.
    await em().nativeUpdate(Envelope, { id: envelope.id }, { allowDelegation: true });
    const refused = await delegate(envelope.tokenOf('Dana Levi'), {
      fullName: 'Noa Bar',
      email: 'noa@delegate.example',
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toMatch(/does not allow/);
    await check();
  });

  it('bad input: 400 naming each field, and nothing changes', async () => {
    const envelope = await sent({ allowDelegation: true });
    const check = await unchanged(envelope, 'Dana Levi');
    const token = envelope.tokenOf('Dana Levi');
    const cases: [Record<string, unknown>, string[]][] = [
      [{ fullName: '', email: 'not-an-address' }, ['fullName', 'email']],
      [{ fullName: 'Noa Bar', deliveryChannel: 'Sms' }, ['phone']],
      [
        { fullName: 'Noa Bar', email: 'noa@delegate.example', deliveryChannel: 'ManualLink' },
        ['deliveryChannel'],
      ],
      [{ fullName: 'Noa Bar', phone: '+972501112233' }, ['deliveryChannel']],
      [{ fullName: 'Noa\u0000Bar', email: 'noa@delegate.example' }, ['fullName']],
    ];
    for (const [body, fields] of cases) {
      const refused = await delegate(token, body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json().error.code).toBe('invalid_request');
      const named = (refused.json().error.details as { field: string }[]).map((d) => d.field);
      for (const field of fields)
        expect(
          named.some((f) => f.endsWith(field)),
          `${field} in ${named}`,
        ).toBe(true);
    }
    await check();
  });

  it('the builder saves it on a template version; envelopes created from it copy it unless the request says otherwise', async () => {
    const other = await newIntegrator(harness);
    const author = await signedInUser(harness, { role: 'sender', organizationId: other.organizationId });
    const otherSender = { organizationId: other.organizationId, headers: await other.auth() };
    const published = await callAs<TemplateDetail>(
      harness.app,
      author,
      'GET',
      `/api/templates/${other.templateId}`,
    );
    expect(published.allowDelegation).toBe(false);
    const definition = {
      roles: published.roles,
      fields: published.fields.map(({ id: _id, ...field }) => field),
    };
    // A save of the published version makes a new draft that takes the setting; a save without it keeps it.
    const draft = await callAs<TemplateDetail>(
      harness.app,
      author,
      'PUT',
      `/api/templates/${other.templateId}/definition`,
      {
        ...definition,
        allowDelegation: true,
      },
    );
    expect(draft).toMatchObject({ status: 'Draft', allowDelegation: true });
    const again = await callAs<TemplateDetail>(
      harness.app,
      author,
      'PUT',
      `/api/templates/${draft.id}/definition`,
      definition,
    );
    expect(again.allowDelegation).toBe(true);
    await callAs(harness.app, author, 'POST', `/api/templates/${draft.id}/publish`);
    const recipients = [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@client.example' },
      { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@provider.example' },
    ];
    const copied = await sentEnvelope(harness, otherSender, {
      title: 'Copied',
      templateId: draft.id,
      recipients,
    });
    expect(copied.created.allowDelegation).toBe(true);
    expect((await signer('GET', `/api/signing/${copied.tokenOf('Dana Levi')}`)).json().allowDelegation).toBe(
      true,
    );
    const overridden = await sentEnvelope(harness, otherSender, {
      title: 'Overridden',
      templateId: draft.id,
      recipients,
      allowDelegation: false,
    });
    expect(overridden.created.allowDelegation).toBe(false);
    const refused = await delegate(overridden.tokenOf('Dana Levi'), {
      fullName: 'Noa Bar',
      email: 'noa@delegate.example',
    });
    expect(refused.statusCode).toBe(403);
  });
});

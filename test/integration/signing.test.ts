// The signer API through the whole app: envelopes created and sent through /api/v1, links issued by the
// service, every signer action through /api/signing with a real workflow and PostgreSQL.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AuditEvent, EnvelopeFieldValue, StoredFile } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import {
  type ApiHarness,
  type Integrator,
  newIntegrator,
  openApiHarness,
  sentEnvelope,
} from '../support/api.ts';
import { encodePng } from '../support/png.ts';

let harness: ApiHarness;
let acme: Integrator;
let headers: { authorization: string };
let richTemplateId: string;

const SIGNER_IP = '203.0.113.7';
const SIGNER_AGENT = `Mozilla/5.0 (Sigil test) ${'x'.repeat(400)}`;

const box = { page: 1, width: 150, height: 20 };
const RICH_TEMPLATE = {
  name: 'Signer API template',
  roles: [
    { name: 'Client', required: true },
    { name: 'Provider', required: true },
    // Copies only: a Cc fills no fields.
    { name: 'Observer', required: false },
  ],
  fields: [
    { type: 'Full name', role: 'Client', label: 'Client name', x: 40, y: 40, required: true, ...box },
    { type: 'Signature', role: 'Client', label: 'Client signature', x: 40, y: 70, ...box, height: 40 },
    { type: 'Email', role: 'Client', label: 'Client email', x: 40, y: 120, ...box },
    { type: 'Phone', role: 'Client', label: 'Client phone', x: 40, y: 150, ...box },
    { type: 'Date', role: 'Client', label: 'Start date', x: 40, y: 180, ...box },
    { type: 'ID number', role: 'Client', label: 'Client ID', x: 40, y: 210, ...box },
    { type: 'Checkbox', role: 'Client', label: 'Agree to terms', x: 40, y: 240, ...box, width: 20 },
    { type: 'Radio', role: 'Client', label: 'Plan', x: 40, y: 270, ...box, options: ['Basic', 'Pro'] },
    { type: 'Dropdown', role: 'Client', label: 'City', x: 40, y: 300, ...box, options: ['Haifa', 'Eilat'] },
    { type: 'Read-only text', role: 'Client', label: 'Terms', x: 40, y: 330, ...box },
    { type: 'File upload', role: 'Client', label: 'Attachment', x: 40, y: 360, ...box },
    { type: 'Full name', role: 'Provider', label: 'Provider name', x: 300, y: 40, required: true, ...box },
    { type: 'Signature', role: 'Provider', label: 'Provider signature', x: 300, y: 70, ...box, height: 40 },
  ].map((field) => ({ ...field })),
};

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  headers = await acme.auth();
  const template = await createTemplate(harness.ctx, {
    organizationId: acme.organizationId,
    pdf: await buildDemoPdf(),
    filename: 'rich.pdf',
    definition: RICH_TEMPLATE,
    publish: true,
  });
  richTemplateId = template.id;
});
afterAll(() => harness.close());

/** A small PNG with a horizontal stroke. */
function png(width = 60, height = 20): Buffer {
  return encodePng(width, height, (_x, y) =>
    Math.abs(y - height / 2) < 2 ? [20, 30, 120, 255] : [0, 0, 0, 0],
  );
}

/** The request of a Sequential envelope from the rich template: Client, then Provider, and a Cc observer. */
function agreement(body: Record<string, unknown> = {}) {
  return {
    title: 'Signer API agreement',
    workflowType: 'Sequential',
    templateId: richTemplateId,
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1 },
      { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', signingOrder: 2 },
      {
        roleName: 'Observer',
        fullName: 'Avi Copy',
        email: 'avi@example.com',
        type: 'Cc',
        signingOrder: 3,
      },
    ],
    ...body,
  };
}

function signer(method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) {
  return harness.app.inject({
    method,
    url,
    remoteAddress: SIGNER_IP,
    headers: { 'user-agent': SIGNER_AGENT },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

const view = (token: string) => signer('GET', `/api/signing/${token}`);
const save = (token: string, values: { fieldDefinitionId: string; value: unknown }[]) =>
  signer('PUT', `/api/signing/${token}/fields`, { values });
const complete = (token: string, body: unknown = { consent: true }) =>
  signer('POST', `/api/signing/${token}/complete`, body);
const decline = (token: string, body: unknown) => signer('POST', `/api/signing/${token}/decline`, body);

async function fieldIds(token: string): Promise<Record<string, string>> {
  const response = await view(token);
  return Object.fromEntries(
    (response.json().fields as { label: string; fieldDefinitionId: string }[]).map((f) => [
      f.label,
      f.fieldDefinitionId,
    ]),
  );
}

async function events(envelopeId: string) {
  return harness.ctx.orm.em.fork().find(AuditEvent, { envelopeId }, { orderBy: { sequence: 'asc' } });
}

async function envelopeStatus(id: string): Promise<string> {
  const response = await harness.app.inject({ method: 'GET', url: `/api/v1/envelopes/${id}`, headers });
  return response.json().status;
}

async function waitForStatus(id: string, status: string) {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    if ((await envelopeStatus(id)) === status) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`envelope ${id} never reached ${status} (is ${await envelopeStatus(id)})`);
}

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

describe('the signer API', () => {
  it('walks two sequential signers from the first open to the final PDF', async () => {
    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      agreement(),
    );
    expect(envelope.links.map((l) => l.fullName)).toEqual(['Dana Levi', 'Sam Cohen']);

    const first = await view(envelope.tokenOf('Dana Levi'));
    expect(first.statusCode, first.body).toBe(200);
    const body = first.json();
    expect(body).toMatchObject({
      state: 'ready',
      title: 'Signer API agreement',
      recipient: { name: 'Dana Levi', status: 'LinkOpened', type: 'Signer', language: 'en' },
      authenticationRequired: false,
      awaitingCount: 2,
    });
    expect(body.consentText).toMatch(/electronically/);
    expect(body.fields.map((f: { label: string }) => f.label)).toContain('Client email');
    expect(body.fields.map((f: { label: string }) => f.label)).not.toContain('Provider name');
    expect(body.requiredFields.map((f: { label: string }) => f.label)).toEqual([
      'Client name',
      'Client signature',
    ]);
    await view(envelope.tokenOf('Dana Levi'));
    const opened = (await events(envelope.id)).filter((e) => e.type === 'recipient.opened');
    expect(opened).toHaveLength(1);
    expect(opened[0]?.data).toEqual({ ip: SIGNER_IP, user_agent: SIGNER_AGENT.slice(0, 300) });
    expect(await envelopeStatus(envelope.id)).toBe('Opened');

    // The second signer is not in turn: no fields, no saving, no completing.
    const waiting = await view(envelope.tokenOf('Sam Cohen'));
    expect(waiting.json()).toMatchObject({ state: 'not_in_turn', fields: [], awaitingCount: 0 });
    const template = await harness.app.inject({
      method: 'GET',
      url: `/api/v1/templates/${richTemplateId}`,
      headers,
    });
    const providerName = (template.json().fields as { label: string; fieldDefinitionId: string }[]).find(
      (f) => f.label === 'Provider name',
    )?.fieldDefinitionId as string;
    const early = await save(envelope.tokenOf('Sam Cohen'), [
      { fieldDefinitionId: providerName, value: 'Sam Cohen' },
    ]);
    expect(early.statusCode).toBe(409);
    expect(early.json().error.details).toEqual([{ field: 'state', message: 'not_in_turn' }]);
    const refused = await complete(envelope.tokenOf('Sam Cohen'));
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.message).toMatch(/not_in_turn/);

    const ids = await fieldIds(envelope.tokenOf('Dana Levi'));
    // The document as the first signer sees it.
    const document = await signer('GET', `/${envelope.tokenOf('Dana Levi')}/document`);
    expect(document.statusCode).toBe(200);
    expect(document.headers['content-type']).toBe('application/pdf');

    const saved = await save(envelope.tokenOf('Dana Levi'), [
      { fieldDefinitionId: ids['Client name'] as string, value: 'Dana Levi' },
      { fieldDefinitionId: ids['Client email'] as string, value: 'dana@example.com' },
      { fieldDefinitionId: ids['Start date'] as string, value: '2026-05-01' },
      { fieldDefinitionId: ids.Plan as string, value: 'Pro' },
      { fieldDefinitionId: ids['Agree to terms'] as string, value: true },
    ]);
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().awaitingCount).toBe(1);

    const noConsent = await complete(envelope.tokenOf('Dana Levi'), { consent: false });
    expect(noConsent.statusCode).toBe(400);
    expect(noConsent.json().error.details[0].field).toBe('consent');
    const missing = await complete(envelope.tokenOf('Dana Levi'));
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.message).toContain('Client signature');

    const signed = await save(envelope.tokenOf('Dana Levi'), [
      {
        fieldDefinitionId: ids['Client signature'] as string,
        value: { imagePngBase64: png().toString('base64'), typedName: 'Dana Levi' },
      },
    ]);
    expect(signed.statusCode, signed.body).toBe(200);
    const signature = signed.json().fields.find((f: { label: string }) => f.label === 'Client signature');
    expect(signature.value).toMatchObject({ typedName: 'Dana Levi' });
    const image = await harness.ctx.orm.em.fork().findOneOrFail(StoredFile, { id: signature.value.fileId });
    expect(image.contentType).toBe('image/png');

    const done = await complete(envelope.tokenOf('Dana Levi'));
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toEqual({ state: 'completed', envelopeStatus: 'WaitingForNextSigner' });
    expect((await view(envelope.tokenOf('Dana Levi'))).json()).toMatchObject({
      state: 'completed',
      fields: [],
    });

    const second = await view(envelope.tokenOf('Sam Cohen'));
    expect(second.json()).toMatchObject({ state: 'ready', recipient: { status: 'LinkOpened' } });
    const providerFields = await fieldIds(envelope.tokenOf('Sam Cohen'));
    // The second signer cannot touch the first signer's fields.
    const foreign = await save(envelope.tokenOf('Sam Cohen'), [
      { fieldDefinitionId: ids['Client name'] as string, value: 'Mallory' },
    ]);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json().error.details[0].field).toBe('values.0.fieldDefinitionId');
    // Their document shows the first signer's values.
    const theirDocument = await signer('GET', `/${envelope.tokenOf('Sam Cohen')}/document`);
    expect(await pdfText(new Uint8Array(theirDocument.rawPayload))).toContain('dana@example.com');

    expect(
      (
        await save(envelope.tokenOf('Sam Cohen'), [
          { fieldDefinitionId: providerFields['Provider name'] as string, value: 'Sam Cohen' },
          {
            fieldDefinitionId: providerFields['Provider signature'] as string,
            value: { imagePngBase64: png(80, 30).toString('base64') },
          },
        ])
      ).statusCode,
    ).toBe(200);
    const last = await complete(envelope.tokenOf('Sam Cohen'));
    expect(last.json()).toEqual({ state: 'finalizing', envelopeStatus: 'ProcessingFinalPdf' });

    await waitForStatus(envelope.id, 'Completed');
    expect((await view(envelope.tokenOf('Sam Cohen'))).json()).toMatchObject({
      state: 'completed',
      fields: [],
    });
    const finalPdf = await harness.app.inject({
      method: 'GET',
      url: `/api/v1/envelopes/${envelope.id}/documents/final-pdf`,
      headers,
    });
    const text = await pdfText(new Uint8Array(finalPdf.rawPayload));
    for (const value of ['Dana Levi', 'dana@example.com', '2026-05-01', 'Pro', 'Sam Cohen']) {
      expect(text).toContain(value);
    }
    const completed = (await events(envelope.id)).filter((e) => e.type === 'recipient.completed');
    expect(completed).toHaveLength(2);
    for (const event of completed) {
      expect(event.data).toMatchObject({ ip: SIGNER_IP, user_agent: SIGNER_AGENT.slice(0, 300) });
    }
    const auditTrail = await harness.app.inject({
      method: 'GET',
      url: `/api/v1/envelopes/${envelope.id}/documents/audit-trail`,
      headers,
    });
    expect(await pdfText(new Uint8Array(auditTrail.rawPayload))).toContain(SIGNER_IP);
  });

  it('rejects values wrong for their field type with 400 and saves nothing', async () => {
    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      agreement(),
    );
    const ids = await fieldIds(envelope.tokenOf('Dana Levi'));
    const wrong: [string, unknown][] = [
      ['Client email', 'not-an-email'],
      ['Client phone', '054-1234567'],
      ['Start date', '01/05/2026'],
      ['Client ID', 'x'],
      ['Agree to terms', 'yes'],
      ['Plan', 'Gold'],
      ['City', 'Paris'],
      ['Terms', 'edited'],
      ['Attachment', 'file.pdf'],
      ['Client signature', { imagePngBase64: Buffer.from('GIF89a not a png').toString('base64') }],
      ['Client signature', 'a string'],
      ['Client signature', { imagePngBase64: Buffer.alloc(1024 * 1024 + 10).toString('base64') }],
    ];
    for (const [label, value] of wrong) {
      const response = await save(envelope.tokenOf('Dana Levi'), [
        { fieldDefinitionId: ids['Client name'] as string, value: 'Dana Levi' },
        { fieldDefinitionId: ids[label] as string, value },
      ]);
      expect(response.statusCode, `${label}: ${JSON.stringify(value).slice(0, 60)}`).toBe(400);
      expect(response.json().error.details[0].message).toContain(label);
    }
    const attachment = await save(envelope.tokenOf('Dana Levi'), [
      { fieldDefinitionId: ids.Attachment as string, value: 'file.pdf' },
    ]);
    expect(attachment.json().error.message).toMatch(
      /must be an object \{ fileBase64, filename, contentType \}/,
    );
    const stored = await harness.ctx.orm.em.fork().count(EnvelopeFieldValue, { envelopeId: envelope.id });
    expect(stored).toBe(0);

    const good = await save(envelope.tokenOf('Dana Levi'), [
      { fieldDefinitionId: ids['Client phone'] as string, value: '+972541234567' },
      { fieldDefinitionId: ids['Client ID'] as string, value: '123456782' },
      { fieldDefinitionId: ids.City as string, value: 'Haifa' },
    ]);
    expect(good.statusCode, good.body).toBe(200);
    expect(await harness.ctx.orm.em.fork().count(EnvelopeFieldValue, { envelopeId: envelope.id })).toBe(3);
  });

  it('declines with a reason, and refuses a decline without one', async () => {
    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      agreement(),
    );
    const noReason = await decline(envelope.tokenOf('Dana Levi'), { reason: '   ' });
    expect(noReason.statusCode).toBe(400);
    expect((await decline(envelope.tokenOf('Dana Levi'), {})).statusCode).toBe(400);
    const declined = await decline(envelope.tokenOf('Dana Levi'), { reason: ' Wrong amount ' });
    expect(declined.statusCode, declined.body).toBe(200);
    expect(declined.json()).toEqual({ state: 'declined', envelopeStatus: 'Declined' });
    expect((await view(envelope.tokenOf('Dana Levi'))).json()).toMatchObject({
      state: 'declined',
      fields: [],
    });
    expect((await view(envelope.tokenOf('Sam Cohen'))).json()).toMatchObject({ state: 'declined' });
    const event = (await events(envelope.id)).find((e) => e.type === 'recipient.declined');
    expect(event?.data).toEqual({
      reason: 'Wrong amount',
      ip: SIGNER_IP,
      user_agent: SIGNER_AGENT.slice(0, 300),
    });
  });

  it('shows a cancelled envelope as cancelled and refuses to complete it', async () => {
    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      agreement(),
    );
    const cancelled = await harness.app.inject({
      method: 'POST',
      url: `/api/v1/envelopes/${envelope.id}/cancel`,
      headers,
    });
    expect(cancelled.statusCode).toBe(200);
    expect((await view(envelope.tokenOf('Dana Levi'))).json()).toMatchObject({
      state: 'cancelled',
      fields: [],
    });
    const refused = await complete(envelope.tokenOf('Dana Levi'));
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.details).toEqual([{ field: 'state', message: 'cancelled' }]);
    expect((await signer('GET', `/${envelope.tokenOf('Dana Levi')}/document`)).statusCode).toBe(409);
  });

  it('answers 404 for an unknown token and for a link that was issued again', async () => {
    const unknown = await view('A'.repeat(43));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
    expect((await view('short')).statusCode).toBe(404);

    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      agreement(),
    );
    const again = await issueSigningLinks(harness.ctx, acme.organizationId, envelope.id);
    expect((await view(envelope.tokenOf('Dana Levi'))).statusCode).toBe(404);
    expect((await complete(envelope.tokenOf('Dana Levi'))).statusCode).toBe(404);
    const fresh = again.find((l) => l.fullName === 'Dana Levi')?.url.split('/sign/')[1] as string;
    expect((await view(fresh)).json().state).toBe('ready');
  });

  it('refuses to complete for a recipient who has not verified a one-time code', async () => {
    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      agreement({
        recipients: [
          {
            roleName: 'Client',
            fullName: 'Dana Levi',
            phone: '+972541234567',
            deliveryChannel: 'Sms',
            authenticationMethod: 'OtpSms',
            language: 'he',
            signingOrder: 1,
          },
          { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', signingOrder: 2 },
        ],
      }),
    );
    const body = (await view(envelope.tokenOf('Dana Levi'))).json();
    expect(body).toMatchObject({ authenticationRequired: true, recipient: { language: 'he' } });
    expect(body.consentText).toMatch(/[\u0590-\u05FF]/);
    const refused = await complete(envelope.tokenOf('Dana Levi'));
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.message).toMatch(/one-time code/);
  });
});

describe('sigil envelope links', () => {
  it('prints one URL per acting recipient', async () => {
    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      agreement(),
    );
    const cli = fileURLToPath(new URL('../../api/cli/sigil.ts', import.meta.url));
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string }>((resolve) => {
        execFile(
          process.execPath,
          [cli, ...args],
          {
            env: {
              ...process.env,
              DATABASE_URL: inject('databaseUrl'),
              TEMPORAL_ADDRESS: inject('temporalAddress'),
              TEMPORAL_NAMESPACE: inject('namespace'),
              PUBLIC_BASE_URL: 'https://sign.example.com',
            },
          },
          (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
        );
      });
    const text = await run(['envelope', 'links', '--org', acme.organizationId, '--envelope', envelope.id]);
    expect(text.code).toBe(0);
    expect(text.stdout.match(/https:\/\/sign\.example\.com\/sign\/[\w-]{43}/g)).toHaveLength(2);
    const json = await run([
      'envelope',
      'links',
      '--org',
      acme.organizationId,
      '--envelope',
      envelope.id,
      '--json',
    ]);
    const links = JSON.parse(json.stdout).links as { fullName: string; url: string }[];
    expect(links.map((l) => l.fullName)).toEqual(['Dana Levi', 'Sam Cohen']);
    // The CLI's links replace the ones issued before.
    expect((await view(envelope.tokenOf('Dana Levi'))).statusCode).toBe(404);
    const token = links[0]?.url.split('/sign/')[1] as string;
    expect((await view(token)).json().state).toBe('ready');
  });
});

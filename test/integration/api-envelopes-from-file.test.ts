// POST /api/v1/envelopes/from-file through the whole app, on the real PostgreSQL, Temporal server and worker:
// an uploaded PDF (one upright page, one turned a quarter by /Rotate) with fields placed on it becomes an
// envelope; its signers see the fields where they were placed, complete, and the final PDF has their values
// drawn inside the boxes (text positions read back with pdf.js). Idempotent and conflicting replays, a
// foreign organization's file, fields off their page or on a page the PDF lacks, unknown types and bad option
// lists, and sandbox mode.
import { randomUUID } from 'node:crypto';
import { degrees, PDFDocument, StandardFonts } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Envelope,
  SandboxEnvelope,
  StoredFile,
  Template,
  TemplateField,
  TemplateRole,
} from '../../db/entities/index.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { encodePng } from '../support/png.ts';

let harness: ApiHarness;
let acme: Integrator;
let headers: { authorization: string };
/** The uploaded two-page PDF of acme. */
let fileId: string;

/** Page 1: A4 upright. Page 2: A4 turned a quarter clockwise, so displayed 841.89 wide and 595.28 high. */
const A4 = { width: 595.28, height: 841.89 };

async function twoPagePdf(): Promise<Uint8Array> {
  const document = await PDFDocument.create({ updateMetadata: false });
  const font = await document.embedFont(StandardFonts.Helvetica);
  const upright = document.addPage([A4.width, A4.height]);
  upright.drawText('Supply agreement, page 1', { x: 56, y: A4.height - 60, size: 14, font });
  const turned = document.addPage([A4.width, A4.height]);
  turned.setRotation(degrees(90));
  turned.drawText('Page 2 (landscape)', { x: 56, y: 60, size: 14, font });
  return document.save();
}

/** A multipart/form-data body with one file part named `file`. */
function multipart(bytes: Uint8Array, filename: string) {
  const boundary = `----from-file-${randomUUID()}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n` +
        'Content-Type: application/pdf\r\n\r\n',
    ),
    Buffer.from(bytes),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, contentType: `multipart/form-data; boundary=${boundary}` };
}

async function upload(integrator: Integrator, bytes: Uint8Array, filename = 'supply.pdf'): Promise<string> {
  const body = multipart(bytes, filename);
  const response = await harness.app.inject({
    method: 'POST',
    url: '/api/v1/files/upload',
    headers: { ...(await integrator.auth()), 'content-type': body.contentType },
    payload: body.payload,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().id;
}

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  headers = await acme.auth();
  fileId = await upload(acme, await twoPagePdf());
});
afterAll(() => harness.close());

const box = { width: 200, height: 24 };
/** The fields of the envelope: the Client's on both pages (one prefilled), the Provider's on the turned page. */
const FIELDS = [
  { type: 'Full name', role: 'Client', label: 'Client name', page: 1, x: 56, y: 120, ...box },
  {
    type: 'Signature',
    role: 'Client',
    label: 'Client signature',
    page: 1,
    x: 56,
    y: 160,
    ...box,
    height: 50,
  },
  { type: 'Date', role: 'Client', label: 'Signed on', page: 1, x: 320, y: 120, ...box, width: 150 },
  {
    type: 'Read-only text',
    role: 'Client',
    label: 'Order terms',
    page: 1,
    x: 56,
    y: 240,
    ...box,
    width: 400,
    value: 'Order 4521: net 30',
  },
  // Beyond the media box's width (595.28), within the displayed width of the turned page (841.89).
  {
    type: 'Dropdown',
    role: 'Client',
    label: 'Delivery city',
    page: 2,
    x: 600,
    y: 400,
    ...box,
    options: ['Haifa', 'Eilat'],
  },
  { type: 'Text', role: 'Provider', label: 'Provider reference', page: 2, x: 40, y: 40, ...box },
  {
    type: 'Signature',
    role: 'Provider',
    label: 'Provider signature',
    page: 2,
    x: 40,
    y: 80,
    ...box,
    height: 50,
  },
];

const RECIPIENTS = [
  { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'ManualLink' },
  { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', deliveryChannel: 'ManualLink' },
  // A Cc needs no field: their role exists only for them.
  { roleName: 'Observer', fullName: 'Avi Copy', email: 'avi@example.com', type: 'Cc' },
];

function body(changes: Record<string, unknown> = {}) {
  return { title: 'Supply agreement', fileId, fields: FIELDS, recipients: RECIPIENTS, ...changes };
}

function createFromFile(
  payload: Record<string, unknown>,
  extra: Record<string, string> = {},
  auth: { authorization: string } = headers,
) {
  return harness.app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-file',
    headers: { ...auth, ...extra },
    payload,
  });
}

/** Rows of the organization that a refused or sandboxed create must not add to. */
async function rowCounts(organizationId = acme.organizationId) {
  const em = harness.ctx.orm.em.fork();
  return {
    envelopes: await em.count(Envelope, { organizationId }),
    templates: await em.count(Template, { organizationId }),
    files: await em.count(StoredFile, { organizationId }),
  };
}

const api = (method: 'GET' | 'POST', url: string) => harness.app.inject({ method, url, headers });

async function waitForStatus(id: string, status: string) {
  for (let attempt = 0; attempt < 150; attempt += 1) {
    if ((await api('GET', `/api/v1/envelopes/${id}`)).json().status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`envelope ${id} never reached ${status}`);
}

const signer = (method: 'GET' | 'PUT' | 'POST', token: string, path = '', payload?: unknown) =>
  harness.app.inject({
    method,
    url: `/api/signing/${token}${path}`,
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

interface SignerField {
  fieldDefinitionId: string;
  label: string;
  type: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  required: boolean;
  options: string[] | null;
  value: unknown;
}

function signature(): string {
  return encodePng(60, 20, (_x, y) => (Math.abs(y - 10) < 2 ? [20, 30, 120, 255] : [0, 0, 0, 0])).toString(
    'base64',
  );
}

/** Each text item of the PDF with its origin in display space (top-left origin, the page's rotation applied). */
async function textPositions(bytes: Uint8Array) {
  const task = getDocument({ data: bytes.slice(), verbosity: 0 });
  const pdf = await task.promise;
  const items: { page: number; str: string; x: number; y: number }[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const page = await pdf.getPage(number);
    const viewport = page.getViewport({ scale: 1 });
    for (const item of (await page.getTextContent()).items) {
      if (!('str' in item)) continue;
      const text = item as TextItem;
      const [x, y] = viewport.convertToViewportPoint(text.transform[4], text.transform[5]);
      items.push({ page: number, str: text.str, x, y });
    }
  }
  await task.destroy();
  return items;
}

describe('POST /api/v1/envelopes/from-file', () => {
  it('creates, sends and completes an envelope whose values are drawn inside the placed boxes', async () => {
    const before = await rowCounts();
    const created = await createFromFile(body({ externalReference: 'SUPPLY-1' }));
    expect(created.statusCode, created.body).toBe(201);
    const envelope = created.json();
    expect(envelope).toMatchObject({
      status: 'Draft',
      title: 'Supply agreement',
      templateId: null,
      sourceFileId: fileId,
      externalReference: 'SUPPLY-1',
      finalPdfFileId: null,
    });
    expect(envelope.recipients.map((r: { roleName: string; type: string }) => [r.roleName, r.type])).toEqual([
      ['Client', 'Signer'],
      ['Provider', 'Signer'],
      ['Observer', 'Cc'],
    ]);
    // One envelope and its one-off template, made of the uploaded file itself (no copy of it).
    expect(await rowCounts()).toEqual({
      envelopes: before.envelopes + 1,
      templates: before.templates + 1,
      files: before.files,
    });
    const em = harness.ctx.orm.em.fork();
    const row = await em.findOneOrFail(Envelope, { id: envelope.id });
    const template = await em.findOneOrFail(Template, { id: row.templateId as string });
    expect(template).toMatchObject({ status: 'OneOff', fileId, pageCount: 2, name: 'Supply agreement' });
    const roles = await em.find(TemplateRole, { templateId: template.id }, { orderBy: { position: 'asc' } });
    expect(roles.map((role) => [role.name, role.required])).toEqual([
      ['Client', true],
      ['Provider', true],
      ['Observer', false],
    ]);
    const fields = await em.find(
      TemplateField,
      { templateId: template.id },
      { orderBy: { position: 'asc' } },
    );
    expect(fields.map((field) => [field.label, field.required])).toEqual(
      FIELDS.map((field) => [field.label, field.type === 'Signature']),
    );
    // The prefilled value, by the new field's id.
    const terms = fields.find((field) => field.label === 'Order terms');
    expect(envelope.initialValues).toEqual([{ fieldDefinitionId: terms?.id, value: 'Order 4521: net 30' }]);

    // The hidden template is no template of the API's: not listed, not served, not usable from-template.
    const listed = await api('GET', '/api/v1/templates');
    expect(listed.json().map((t: { id: string }) => t.id)).not.toContain(template.id);
    expect((await api('GET', `/api/v1/templates/${template.id}`)).statusCode).toBe(404);
    const reuse = await harness.app.inject({
      method: 'POST',
      url: '/api/v1/envelopes/from-template',
      headers,
      payload: { title: 'Again', templateId: template.id, recipients: RECIPIENTS },
    });
    expect(reuse.statusCode, reuse.body).toBe(404);

    const sent = await api('POST', `/api/v1/envelopes/${envelope.id}/send`);
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json()).toMatchObject({ status: 'Sent', templateId: null, sourceFileId: fileId });
    const links = await issueSigningLinks(harness.ctx, acme.organizationId, envelope.id);
    const tokenOf = (name: string) =>
      links.find((link) => link.fullName === name)?.url.split('/sign/')[1] as string;

    // The first signer sees their fields exactly where they were placed.
    const client = tokenOf('Dana Levi');
    const clientView = await signer('GET', client);
    expect(clientView.statusCode, clientView.body).toBe(200);
    const clientFields = clientView.json().fields as SignerField[];
    const placed = (role: string) =>
      FIELDS.filter((field) => field.role === role).map(({ type, label, page, x, y, width, height }) => ({
        type,
        label,
        page,
        x,
        y,
        width,
        height,
      }));
    expect(
      clientFields.map(({ type, label, page, x, y, width, height }) => ({
        type,
        label,
        page,
        x,
        y,
        width,
        height,
      })),
    ).toEqual(placed('Client'));
    expect(clientFields.find((f) => f.label === 'Delivery city')?.options).toEqual(['Haifa', 'Eilat']);
    expect(clientFields.find((f) => f.label === 'Order terms')?.value).toBe('Order 4521: net 30');
    const clientId = (label: string) =>
      clientFields.find((f) => f.label === label)?.fieldDefinitionId as string;
    const saved = await signer('PUT', client, '/fields', {
      values: [
        { fieldDefinitionId: clientId('Client name'), value: 'Dana Levi' },
        { fieldDefinitionId: clientId('Signed on'), value: '2026-05-01' },
        { fieldDefinitionId: clientId('Delivery city'), value: 'Eilat' },
        { fieldDefinitionId: clientId('Client signature'), value: { imagePngBase64: signature() } },
      ],
    });
    expect(saved.statusCode, saved.body).toBe(200);
    const clientDone = await signer('POST', client, '/complete', { consent: true });
    expect(clientDone.statusCode, clientDone.body).toBe(200);
    expect(clientDone.json()).toEqual({ state: 'completed', envelopeStatus: 'WaitingForNextSigner' });

    const provider = tokenOf('Sam Cohen');
    const providerFields = (await signer('GET', provider)).json().fields as SignerField[];
    expect(
      providerFields.map(({ type, label, page, x, y, width, height }) => ({
        type,
        label,
        page,
        x,
        y,
        width,
        height,
      })),
    ).toEqual(placed('Provider'));
    const providerId = (label: string) =>
      providerFields.find((f) => f.label === label)?.fieldDefinitionId as string;
    const providerSaved = await signer('PUT', provider, '/fields', {
      values: [
        { fieldDefinitionId: providerId('Provider reference'), value: 'PO-77' },
        { fieldDefinitionId: providerId('Provider signature'), value: { imagePngBase64: signature() } },
      ],
    });
    expect(providerSaved.statusCode, providerSaved.body).toBe(200);
    const providerDone = await signer('POST', provider, '/complete', { consent: true });
    expect(providerDone.json()).toEqual({ state: 'finalizing', envelopeStatus: 'ProcessingFinalPdf' });

    await waitForStatus(envelope.id, 'Completed');
    const finalPdf = await api('GET', `/api/v1/envelopes/${envelope.id}/documents/final-pdf`);
    expect(finalPdf.statusCode).toBe(200);
    const items = await textPositions(new Uint8Array(finalPdf.rawPayload));
    const drawn: [string, string][] = [
      ['Client name', 'Dana Levi'],
      ['Signed on', '2026-05-01'],
      ['Order terms', 'Order 4521: net 30'],
      ['Delivery city', 'Eilat'],
      ['Provider reference', 'PO-77'],
    ];
    for (const [label, value] of drawn) {
      const field = FIELDS.find((f) => f.label === label) as (typeof FIELDS)[number];
      const item = items.find((candidate) => candidate.str === value);
      expect(item, `${label}: "${value}" drawn`).toBeDefined();
      // The baseline's start lies inside the box, on the field's page, in the page's displayed orientation.
      expect(item?.page, label).toBe(field.page);
      expect(item?.x, label).toBeGreaterThanOrEqual(field.x);
      expect(item?.x, label).toBeLessThan(field.x + field.width);
      expect(item?.y, label).toBeGreaterThan(field.y);
      expect(item?.y, label).toBeLessThanOrEqual(field.y + field.height);
    }
  });

  it('replays the same request with the same Idempotency-Key and refuses another body with it', async () => {
    const before = await rowCounts();
    const key = { 'idempotency-key': `from-file-${randomUUID()}` };
    const first = await createFromFile(body(), key);
    const second = await createFromFile(body(), key);
    expect(first.statusCode, first.body).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json()).toEqual(first.json());
    expect(await rowCounts()).toEqual({
      ...before,
      envelopes: before.envelopes + 1,
      templates: before.templates + 1,
    });

    const other = await createFromFile(body({ title: 'Another title' }), key);
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe('idempotency_key_reused');
    // The same key on the other create route is another request too.
    const elsewhere = await harness.app.inject({
      method: 'POST',
      url: '/api/v1/envelopes/from-template',
      headers: { ...headers, ...key },
      payload: { title: 'Supply agreement', templateId: acme.templateId, recipients: RECIPIENTS.slice(0, 2) },
    });
    expect(elsewhere.statusCode).toBe(409);
    expect(await rowCounts()).toEqual({
      ...before,
      envelopes: before.envelopes + 1,
      templates: before.templates + 1,
    });
  });

  it('answers 404 for another organization’s file and for an unknown one, and writes nothing', async () => {
    const other = await newIntegrator(harness);
    const foreignFile = await upload(other, await twoPagePdf(), 'theirs.pdf');
    const before = await rowCounts();
    for (const id of [foreignFile, randomUUID()]) {
      const response = await createFromFile(body({ fileId: id }));
      expect(response.statusCode, response.body).toBe(404);
      expect(response.json().error).toMatchObject({
        code: 'not_found',
        message: `File ${id} was not found.`,
      });
      // In sandbox mode too.
      const sandbox = await createFromFile(body({ fileId: id }), { 'x-service-sandbox': 'true' });
      expect(sandbox.statusCode).toBe(404);
    }
    // The owner can use it.
    const theirs = await createFromFile(body({ fileId: foreignFile }), {}, await other.auth());
    expect(theirs.statusCode, theirs.body).toBe(201);
    expect(await rowCounts()).toEqual(before);
  });

  it('refuses fields off their page, on a page the PDF lacks, of unknown types or with bad options, naming the field', async () => {
    const before = await rowCounts();
    const field = (index: number, changes: Record<string, unknown>) =>
      FIELDS.map((f, i) => (i === index ? { ...f, ...changes } : f));
    const cases: [Record<string, unknown>, string, RegExp][] = [
      // Page 1 is 595.28 x 841.89 points.
      [{ fields: field(0, { x: 500 }) }, 'fields.0.width', /outside page 1 .*x \+ width is 700/],
      [{ fields: field(0, { x: 600 }) }, 'fields.0.x', /outside page 1 .*x must be less than 595.28/],
      [{ fields: field(2, { y: 830 }) }, 'fields.2.height', /outside page 1 .*y \+ height is 854/],
      [{ fields: field(2, { y: 900 }) }, 'fields.2.y', /y must be less than 841.89/],
      // Page 2 is displayed turned: 841.89 wide, 595.28 high.
      [{ fields: field(4, { y: 580 }) }, 'fields.4.height', /outside page 2 \(841.89 x 595.28 points/],
      [{ fields: field(5, { page: 3 }) }, 'fields.5.page', /page 3 does not exist: the PDF has 2 page/],
      [{ fields: field(1, { type: 'Stamp' }) }, 'body.fields.1.type', /type must be one of/],
      [{ fields: field(4, { options: undefined }) }, 'body.fields.4.options', /Dropdown fields need options/],
      [{ fields: field(4, { options: [] }) }, 'body.fields.4.options', /./],
      [
        { fields: field(4, { options: ['Haifa', 'Eilat', 'Haifa'] }) },
        'body.fields.4.options.2',
        /"Haifa" is given twice/,
      ],
      [{ fields: field(0, { options: ['A'] }) }, 'body.fields.0.options', /Full name fields take no options/],
      [{ fields: field(0, { page: 0 }) }, 'body.fields.0.page', /./],
      [{ fields: field(0, { width: 0 }) }, 'body.fields.0.width', /./],
      [{ fields: field(0, { x: -1 }) }, 'body.fields.0.x', /./],
      // Prefilled values are checked as initialValues are.
      [
        { fields: field(1, { value: 'x' }) },
        'fields.1.value',
        /Client signature: Signature fields are filled by the signer/,
      ],
      [{ fields: field(2, { value: 'tomorrow' }) }, 'fields.2.value', /Signed on:/],
      [{ fields: field(4, { value: 'Tel Aviv' }) }, 'fields.4.value', /Delivery city:/],
      // Roles: one spelling each, and a Signer needs fields of their role.
      [{ fields: field(5, { role: 'client' }) }, 'fields.5.role', /differ only in case/],
      [
        { recipients: [...RECIPIENTS, { roleName: 'Witness', fullName: 'Wes', email: 'w@example.com' }] },
        'recipients.3.roleName',
        /no field has the role "Witness".*roles of the fields: Client, Provider/,
      ],
      [{ recipients: RECIPIENTS.slice(1) }, 'fields.0.role', /no recipient acts in the role "Client"/],
      [
        { recipients: [{ ...RECIPIENTS[0], type: 'Cc' }, ...RECIPIENTS.slice(1)] },
        'fields.0.role',
        /no recipient acts in the role "Client".*not a Cc/,
      ],
      [{ fields: field(5, { role: 'Witness' }) }, 'fields.5.role', /no recipient acts in the role "Witness"/],
      [
        { recipients: [{ ...RECIPIENTS[0], type: 'Approver' }, ...RECIPIENTS.slice(1)] },
        'recipients.0.type',
        /an Approver fills no fields/,
      ],
      // The rules every create shares with from-template.
      [{ expiresAt: '2001-01-01T00:00:00Z' }, 'body.expiresAt', /expiresAt must be in the future/],
      [
        { recipients: [{ ...RECIPIENTS[0], language: 'fr' }, ...RECIPIENTS.slice(1)] },
        'recipients.0.language',
        /"fr" is not a language of this organization/,
      ],
      [
        { recipients: [{ ...RECIPIENTS[0], authenticationMethod: 'OtpSms' }, ...RECIPIENTS.slice(1)] },
        'body.recipients.0.phone',
        /phone is required/,
      ],
      [
        { workflowType: 'Sequential', recipients: RECIPIENTS.map((r) => ({ ...r, signingOrder: 1 })) },
        'recipients.1.signingOrder',
        /used twice/,
      ],
      [{ fileId: 'not-a-uuid' }, 'body.fileId', /fileId must be a uuid/],
      [{ fields: Array.from({ length: 501 }, () => FIELDS[0]) }, 'body.fields', /at most 500 fields/],
    ];
    for (const [changes, field, message] of cases) {
      const response = await createFromFile(body(changes), { 'x-request-id': 'bad-from-file' });
      const what = `${field}: ${response.body.slice(0, 400)}`;
      expect(response.statusCode, what).toBe(400);
      const error = response.json().error;
      expect(error).toMatchObject({ code: 'invalid_request', request_id: 'bad-from-file' });
      const detail = (error.details as { field?: string; message: string }[]).find((d) => d.field === field);
      expect(detail, what).toBeDefined();
      expect(detail?.message, what).toMatch(message);
    }
    expect(await rowCounts()).toEqual(before);
  });

  it('accepts roles without fields for Approvers, Viewers and Cc, and an envelope with no fields', async () => {
    const created = await createFromFile(
      body({
        fields: [],
        workflowType: 'Parallel',
        recipients: [
          { roleName: 'Board', fullName: 'Ruth Approver', email: 'ruth@example.com', type: 'Approver' },
          { roleName: 'Auditor', fullName: 'Vered Viewer', email: 'vered@example.com', type: 'Viewer' },
        ],
      }),
    );
    expect(created.statusCode, created.body).toBe(201);
    expect(
      created.json().recipients.map((r: { roleName: string; required: boolean }) => [r.roleName, r.required]),
    ).toEqual([
      ['Board', true],
      ['Auditor', true],
    ]);
  });

  it('refuses a token without envelopes.write, naming the scope', async () => {
    const response = await createFromFile(body(), {}, await acme.auth(['envelopes.read', 'files.write']));
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/envelopes\.write/),
    });
  });
});

describe('POST /api/v1/envelopes/from-file in sandbox mode', () => {
  const SANDBOX = { 'x-service-sandbox': 'true' };

  it('validates against the real file and answers a synthetic Draft, storing nothing in production', async () => {
    const before = await rowCounts();
    const sandboxRows = () =>
      harness.ctx.orm.em.fork().count(SandboxEnvelope, { organizationId: acme.organizationId });
    const sandboxBefore = await sandboxRows();
    const response = await createFromFile(body({ externalReference: 'SANDBOX-FILE' }), SANDBOX);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.headers['x-service-sandbox']).toBe('true');
    const envelope = response.json();
    expect(envelope).toMatchObject({
      status: 'Draft',
      templateId: null,
      sourceFileId: fileId,
      externalReference: 'SANDBOX-FILE',
    });
    expect(envelope.recipients.map((r: { status: string }) => r.status)).toEqual([
      'Pending',
      'Pending',
      'Pending',
    ]);
    expect(envelope.initialValues).toEqual([
      { fieldDefinitionId: expect.any(String), value: 'Order 4521: net 30' },
    ]);
    // No envelope, no template: only the synthetic envelope.
    expect(await rowCounts()).toEqual(before);
    expect(await sandboxRows()).toBe(sandboxBefore + 1);
    // It is a synthetic envelope: found with the header, unknown without it.
    const got = await harness.app.inject({
      method: 'GET',
      url: `/api/v1/envelopes/${envelope.id}`,
      headers: { ...headers, ...SANDBOX },
    });
    expect(got.json()).toEqual(envelope);
    expect((await api('GET', `/api/v1/envelopes/${envelope.id}`)).statusCode).toBe(404);
    const sent = await harness.app.inject({
      method: 'POST',
      url: `/api/v1/envelopes/${envelope.id}/send`,
      headers: { ...headers, ...SANDBOX },
    });
    expect(sent.json()).toMatchObject({ status: 'Sent', sourceFileId: fileId });

    // Refused exactly as production.
    const outside = await createFromFile(
      body({ fields: [{ ...FIELDS[0], x: 590 }, ...FIELDS.slice(1)] }),
      SANDBOX,
    );
    expect(outside.statusCode).toBe(400);
    expect(outside.json().error.details[0].field).toBe('fields.0.width');
    // The same key and body with and without the header are different requests.
    const key = { 'idempotency-key': `sandbox-file-${randomUUID()}` };
    expect((await createFromFile(body(), { ...SANDBOX, ...key })).statusCode).toBe(201);
    const production = await createFromFile(body(), key);
    expect(production.statusCode).toBe(409);
    expect(production.json().error.code).toBe('idempotency_key_reused');
    expect(await rowCounts()).toEqual(before);
  });
});

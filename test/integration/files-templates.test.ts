// POST /api/v1/files/upload and GET /api/v1/templates(/{id}) against the real PostgreSQL: uploads are
// judged by content (empty, non-PDF, encrypted, truncated, oversize and malformed multipart requests are
// 400s that say why and write nothing), templates show only the organization's published ones, and the
// routes' OpenAPI description is what an integrator needs.
import { createHash, randomUUID } from 'node:crypto';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { PDFDocument } from 'pdf-lib';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ApiPrincipal } from '../../api/auth/principal.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { registerOpenApi } from '../../api/http/openapi.ts';
import { registerRequestContext } from '../../api/http/request-context.ts';
import { createServer } from '../../api/http/server.ts';
import { REPLAYED_HEADER, registerIdempotency } from '../../api/plugins/idempotency.ts';
import { filesRoutes, uploadDigest } from '../../api/routes/v1/files.ts';
import { templatesRoutes } from '../../api/routes/v1/templates.ts';
import { StoredFile, TemplateField } from '../../db/entities/index.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { buildDemoPdf, DEMO_PAGE, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { AppError } from '../../services/errors.ts';
import { inspectPdf } from '../../services/files/inspect-pdf.ts';
import { sanitizeFilename } from '../../services/files/upload-file.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { createFileObjects } from '../../storage/create-object-store.ts';
import { servicesOn, testConfig } from '../support/context.ts';
import { storedBytes } from '../support/stored-files.ts';

/** Small, so an oversize upload is cheap to build; the demo PDFs are a few KB. */
const UPLOAD_MAX_BYTES = 48 * 1024;
/** The test stand-in for the bearer-token check: the organization to act as. */
const ORGANIZATION_HEADER = 'x-test-organization';

let orm: Orm;
let connection: Connection;
let app: FastifyInstance;
let organizationId: string;

beforeAll(async () => {
  orm = await createOrm({ databaseUrl: inject('databaseUrl'), poolMax: 2 });
  connection = await Connection.lazy({ address: inject('temporalAddress') });
  const config = testConfig();
  const deps: AppDependencies = {
    config: { ...config, api: { ...config.api, uploadMaxBytes: UPLOAD_MAX_BYTES } },
    orm,
    temporal: { connection, client: new Client({ connection }), namespace: inject('namespace') },
    logger: pino({ level: 'silent' }),
  };
  app = createServer({ logger: deps.logger });
  registerRequestContext(app, deps);
  app.addHook('onRequest', async (request) => {
    const organization = request.headers[ORGANIZATION_HEADER];
    if (typeof organization !== 'string') return;
    const principal: ApiPrincipal = {
      organizationId: organization,
      oauthClientId: randomUUID(),
      clientId: 'test-client',
      scopes: ['templates.read', 'files.write'],
    };
    request.principal = principal;
  });
  await registerOpenApi(app, config.publicBaseUrl);
  registerIdempotency(app, { orm });
  await app.register(templatesRoutes, { ...deps, prefix: '/api/v1' });
  await app.register(filesRoutes, { ...deps, prefix: '/api/v1' });
  await app.ready();
  organizationId = (await newOrganization()).id;
});
afterAll(async () => {
  await app?.close();
  await connection?.close();
  await orm?.close();
});

function newOrganization() {
  return createOrganization(servicesOn(orm), {
    name: `Files org ${randomUUID().slice(0, 8)}`,
    plan: 'Business',
  });
}

interface Part {
  name: string;
  filename?: string;
  contentType?: string;
  content: Uint8Array | string;
}

/** A multipart/form-data body built by hand, so the tests control every byte. */
function multipart(parts: Part[]) {
  const boundary = `----sigil-test-${randomUUID()}`;
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const filename = part.filename === undefined ? '' : `; filename="${part.filename}"`;
    const type = part.contentType ? `Content-Type: ${part.contentType}\r\n` : '';
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"${filename}\r\n${type}\r\n`,
      ),
      Buffer.from(part.content),
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

function upload(parts: Part[], organization = organizationId, headers: Record<string, string> = {}) {
  const body = multipart(parts);
  return app.inject({
    method: 'POST',
    url: '/api/v1/files/upload',
    headers: { ...headers, [ORGANIZATION_HEADER]: organization, 'content-type': body.contentType },
    payload: body.payload,
  });
}

function uploadOne(content: Uint8Array | string, filename = 'contract.pdf', contentType = 'application/pdf') {
  return upload([{ name: 'file', filename, contentType, content }]);
}

function storedFileCount(organization = organizationId) {
  return orm.em.fork().count(StoredFile, { organizationId: organization });
}

/** Sends a request that must be refused with 400 and checks that no file was stored. */
async function refusedUpload(send: () => Promise<LightMyRequestResponse>, code = 'invalid_request') {
  const before = await storedFileCount();
  const response = await send();
  expect(response.statusCode).toBe(400);
  const body = response.json();
  expect(body.error).toMatchObject({ code, request_id: response.headers['x-request-id'] });
  expect(await storedFileCount()).toBe(before);
  return body.error as { code: string; message: string; details: { field?: string; message: string }[] };
}

// Hand-made PDFs: pdf-lib cannot encrypt, so the encrypted samples are written object by object.
const ONE_PAGE_OBJECTS = [
  '<< /Type /Catalog /Pages 2 0 R >>',
  '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
  '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>',
];
const ENCRYPT_DICTIONARY = `<< /Filter /Standard /V 1 /R 2 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> /P -44 >>`;
const FILE_ID = `/ID [<${'0f'.repeat(16)}> <${'0f'.repeat(16)}>]`;
/** Bytes a Flate decoder cannot read, as the encrypted content of an object stream looks to one. */
const SCRAMBLED =
  '\u0078\u0001\u00ff\u0013\u0099\u0042\u00aa\u0010\u0003\u0005\u00de\u00ad\u00be\u00ef\u0000\u0001';

/** A PDF 1.4 file with a classic cross-reference table and trailer. */
function classicPdf(objects: string[], trailer: string): Uint8Array {
  let body = '%PDF-1.4\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} ${trailer} >>\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** A PDF 1.5 file whose trailer entries live in a cross-reference stream (as Acrobat and qpdf write). */
function xrefStreamPdf(objects: string[], trailer: string): Uint8Array {
  let body = '%PDF-1.5\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(body.length);
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xrefAt = body.length;
  offsets.push(xrefAt);
  const entry = (type: number, offset: number, generation: number) =>
    String.fromCharCode(
      type,
      (offset >>> 24) & 255,
      (offset >>> 16) & 255,
      (offset >>> 8) & 255,
      offset & 255,
      (generation >>> 8) & 255,
      generation & 255,
    );
  const entries = entry(0, 0, 65535) + offsets.map((offset) => entry(1, offset, 0)).join('');
  const size = objects.length + 2;
  body +=
    `${size - 1} 0 obj\n<< /Type /XRef /Size ${size} /W [1 4 2] ${trailer} /Length ${entries.length} >>\n` +
    `stream\n${entries}\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

const ENCRYPTED_MESSAGE = 'encrypted PDFs are not accepted; remove the password and upload again';

describe('POST /api/v1/files/upload', () => {
  it('stores a valid PDF and answers the file record', async () => {
    const pdf = await buildDemoPdf('Upload test', 2);
    const response = await uploadOne(pdf, 'Services agreement.pdf');
    expect(response.statusCode).toBe(201);
    const file = response.json();
    const sha256 = createHash('sha256').update(pdf).digest('hex');
    expect(file).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Services agreement.pdf',
      size: pdf.byteLength,
      pageCount: 2,
      sha256,
      contentType: 'application/pdf',
      createdAt: expect.any(String),
    });
    expect(Math.abs(Date.parse(file.createdAt) - Date.now())).toBeLessThan(60_000);

    const stored = await orm.em.fork().findOneOrFail(StoredFile, { id: file.id });
    expect(stored).toMatchObject({
      organizationId,
      filename: 'Services agreement.pdf',
      contentType: 'application/pdf',
      sizeBytes: pdf.byteLength,
      sha256,
      pageCount: 2,
    });
    expect(
      (await storedBytes({ orm, files: createFileObjects({ kind: 'postgres' }, orm.em) }, file.id)).equals(
        Buffer.from(pdf),
      ),
    ).toBe(true);
  });

  it('decides by content: a PDF named .txt and sent as text/plain is accepted', async () => {
    const pdf = await buildDemoPdf('Named as text', 1);
    const response = await uploadOne(pdf, 'notes.txt', 'text/plain');
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      name: 'notes.txt',
      pageCount: 1,
      contentType: 'application/pdf',
    });
  });

  it('keeps only a safe base name of the uploaded file name', async () => {
    const pdf = await buildDemoPdf('Names', 1);
    const hebrew = await uploadOne(pdf, 'חוזה שירותים.pdf');
    expect(hebrew.statusCode).toBe(201);
    expect(hebrew.json().name).toBe('חוזה שירותים.pdf');
    const nameless = await uploadOne(pdf, '');
    expect(nameless.statusCode).toBe(201);
    expect(nameless.json().name).toBe('document.pdf');

    expect(sanitizeFilename('C:\\Users\\dana\\contract.pdf')).toBe('contract.pdf');
    expect(sanitizeFilename('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFilename('in\u0000voice\u0007\u001b.pdf')).toBe('invoice.pdf');
    expect(sanitizeFilename('invoice\u202efdp.exe')).toBe('invoicefdp.exe');
    expect(sanitizeFilename('  ..  ')).toBe('document.pdf');
    expect(sanitizeFilename(undefined)).toBe('document.pdf');
    const long = sanitizeFilename(`${'a'.repeat(400)}.pdf`);
    expect(long).toHaveLength(255);
    expect(long.endsWith('.pdf')).toBe(true);
    expect(Array.from(sanitizeFilename('א'.repeat(300)))).toHaveLength(255);
  });

  it('refuses a file that is not a PDF even when it is named .pdf', async () => {
    const error = await refusedUpload(() =>
      uploadOne('PK\u0003\u0004 a zip archive, not a PDF', 'contract.pdf'),
    );
    expect(error.message).toMatch(/not a PDF/);
    expect(error.details).toEqual([{ field: 'file', message: expect.any(String) }]);
  });

  it('refuses an empty file', async () => {
    const error = await refusedUpload(() => uploadOne(new Uint8Array(0)));
    expect(error.message).toMatch(/empty/);
    expect(error.details).toEqual([{ field: 'file', message: 'empty file' }]);
  });

  it('accepts the hand-made sample PDFs when they carry no /Encrypt entry', async () => {
    for (const pdf of [
      classicPdf(ONE_PAGE_OBJECTS, '/Root 1 0 R'),
      xrefStreamPdf(ONE_PAGE_OBJECTS, '/Root 1 0 R'),
    ]) {
      const response = await uploadOne(pdf);
      expect(response.statusCode, response.body).toBe(201);
      expect(response.json().pageCount).toBe(1);
    }
  });

  it.each([
    [
      'a classic trailer',
      () => classicPdf([...ONE_PAGE_OBJECTS, ENCRYPT_DICTIONARY], `/Root 1 0 R /Encrypt 4 0 R ${FILE_ID}`),
    ],
    // pdf-lib's own check only sees an /Encrypt reference that resolves.
    [
      'a trailer whose /Encrypt reference does not resolve',
      () => classicPdf(ONE_PAGE_OBJECTS, `/Root 1 0 R /Encrypt 9 0 R ${FILE_ID}`),
    ],
    // The object stream cannot be decoded without the key, so a parser alone would only call the file damaged.
    [
      'a cross-reference stream and an encrypted object stream',
      () =>
        xrefStreamPdf(
          [
            ...ONE_PAGE_OBJECTS,
            ENCRYPT_DICTIONARY,
            `<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode /Length ${SCRAMBLED.length} >>\nstream\n${SCRAMBLED}\nendstream`,
          ],
          `/Root 1 0 R /Encrypt 4 0 R ${FILE_ID}`,
        ),
    ],
  ])('refuses an encrypted PDF with %s', async (_case, build) => {
    const error = await refusedUpload(() => uploadOne(build(), 'protected.pdf'));
    expect(error.message).toContain(ENCRYPTED_MESSAGE);
    expect(error.details).toEqual([{ field: 'file', message: 'encrypted PDF' }]);
  });

  it('refuses a truncated PDF', async () => {
    const pdf = await buildDemoPdf('Truncated', 2);
    const error = await refusedUpload(() => uploadOne(pdf.subarray(0, Math.floor(pdf.byteLength / 2))));
    expect(error.message).toMatch(/incomplete.*%%EOF/);
    expect(error.details[0]?.field).toBe('file');
  });

  it('refuses a PDF cut between objects even with an end marker appended (pdf-lib alone would load it)', async () => {
    const document = await PDFDocument.load(await buildDemoPdf('Three pages', 3));
    const pdf = await document.save({ useObjectStreams: false });
    const text = Buffer.from(pdf).toString('latin1');
    // Just after the first page's content: the page tree declares 3 pages, only the first exists.
    const cut = text.indexOf('endobj\n', text.indexOf('/Type /Page\n')) + 'endobj\n'.length;
    const damaged = Buffer.concat([Buffer.from(pdf.subarray(0, cut)), Buffer.from('%%EOF\n')]);
    const lenient = await PDFDocument.load(damaged, { updateMetadata: false });
    expect(lenient.getPageCount()).toBeLessThan(3);
    const error = await refusedUpload(() => uploadOne(damaged));
    expect(error.message).toMatch(/damaged/);
  });

  it('refuses a PDF without pages and one that cannot be parsed', async () => {
    const empty = await (await PDFDocument.create()).save({ addDefaultPage: false });
    expect((await refusedUpload(() => uploadOne(empty))).message).toMatch(/no pages/);
    const garbage = await refusedUpload(() =>
      uploadOne('%PDF-1.7\n1 0 obj\n<< /Type /Catalog \nendobj\n%%EOF\n'),
    );
    expect(garbage.message).toMatch(/damaged|could not be read/);
  });

  it('refuses a file over the upload limit with file_too_large and the limit in MB', async () => {
    const oversize = Buffer.alloc(UPLOAD_MAX_BYTES + 1, 0x20);
    oversize.write('%PDF-1.7\n', 'latin1');
    const error = await refusedUpload(() => uploadOne(oversize), 'file_too_large');
    expect(error.message).toContain('0.0469 MB');
    expect(error.message).toContain(`${UPLOAD_MAX_BYTES} bytes`);
    expect(error.details).toEqual([{ field: 'file', message: expect.stringContaining('MB') }]);
  });

  it('refuses two files, naming the problem', async () => {
    const pdf = await buildDemoPdf('Two', 1);
    const error = await refusedUpload(() =>
      upload([
        { name: 'file', filename: 'one.pdf', contentType: 'application/pdf', content: pdf },
        { name: 'file', filename: 'two.pdf', contentType: 'application/pdf', content: pdf },
      ]),
    );
    expect(error.message).toMatch(/exactly one file/);
  });

  it('refuses a request without a file part, or with the file under another name', async () => {
    const none = await refusedUpload(() => upload([{ name: 'title', content: 'no file here' }]));
    expect(none.message).toMatch(/no file/);
    expect(none.details).toEqual([{ field: 'file', message: 'required' }]);

    const emptyForm = await refusedUpload(() => upload([]));
    expect(emptyForm.message).toMatch(/no file/);

    const pdf = await buildDemoPdf('Misnamed', 1);
    const misnamed = await refusedUpload(() =>
      upload([{ name: 'document', filename: 'a.pdf', contentType: 'application/pdf', content: pdf }]),
    );
    expect(misnamed.message).toMatch(/named "file"/);
  });

  it('refuses a body that is not multipart/form-data', async () => {
    const error = await refusedUpload(() =>
      app.inject({
        method: 'POST',
        url: '/api/v1/files/upload',
        headers: { [ORGANIZATION_HEADER]: organizationId },
        payload: { file: 'JVBERi0xLjcK' },
      }),
    );
    expect(error.message).toMatch(/multipart\/form-data/);
  });

  it('refuses a malformed multipart body', async () => {
    const error = await refusedUpload(() =>
      app.inject({
        method: 'POST',
        url: '/api/v1/files/upload',
        headers: {
          [ORGANIZATION_HEADER]: organizationId,
          'content-type': 'multipart/form-data; boundary=abc',
        },
        payload:
          '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.7 and no end',
      }),
    );
    expect(error.message).toMatch(/multipart|no file/);
  });

  it('stores an upload for the calling organization only', async () => {
    const other = await newOrganization();
    const response = await upload(
      [{ name: 'file', filename: 'other.pdf', content: await buildDemoPdf('Other', 1) }],
      other.id,
    );
    expect(response.statusCode).toBe(201);
    expect(await storedFileCount(other.id)).toBe(1);
  });

  it('honours Idempotency-Key: the same upload is replayed, another upload with the key is a 409', async () => {
    const organization = (await newOrganization()).id;
    const pdf = await buildDemoPdf('Idempotent', 1);
    const key = { 'idempotency-key': `upload-${randomUUID()}` };
    const part = (content: Uint8Array, filename = 'same.pdf') => [
      { name: 'file', filename, contentType: 'application/pdf', content },
    ];
    const first = await upload(part(pdf), organization, key);
    expect(first.statusCode).toBe(201);
    const again = await upload(part(pdf), organization, key);
    expect(again.statusCode).toBe(201);
    expect(again.headers[REPLAYED_HEADER.toLowerCase()]).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect(await storedFileCount(organization)).toBe(1);

    const otherBytes = await upload(part(await buildDemoPdf('Another', 1)), organization, key);
    expect(otherBytes.statusCode).toBe(409);
    expect(otherBytes.json().error.code).toBe('idempotency_key_reused');
    const otherName = await upload(part(pdf, 'renamed.pdf'), organization, key);
    expect(otherName.statusCode).toBe(409);
    expect(await storedFileCount(organization)).toBe(1);
  });

  it('gives the idempotency check a digest of the stored name and the bytes', () => {
    const bytes = new TextEncoder().encode('%PDF-1.7 example');
    expect(uploadDigest('a.pdf', bytes)).toMatch(/^[0-9a-f]{64}$/);
    expect(uploadDigest('dir/a.pdf', bytes)).toBe(uploadDigest('a.pdf', bytes));
    expect(uploadDigest('b.pdf', bytes)).not.toBe(uploadDigest('a.pdf', bytes));
    expect(uploadDigest('a.pdf', bytes.subarray(1))).not.toBe(uploadDigest('a.pdf', bytes));
  });
});

describe('inspectPdf', () => {
  it('answers page sizes and the digest, and applies the size limit it is given', async () => {
    const pdf = await buildDemoPdf('Inspect', 2);
    expect(await inspectPdf(pdf, { maxBytes: pdf.byteLength, client: 'test' })).toEqual({
      pageCount: 2,
      pages: [DEMO_PAGE, DEMO_PAGE].map(({ width, height }) => ({ width, height })),
      sha256: createHash('sha256').update(pdf).digest('hex'),
    });
    const error = await inspectPdf(pdf, { maxBytes: pdf.byteLength - 1, field: 'pdf', client: 'test' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 400, code: 'file_too_large', details: [{ field: 'pdf' }] });
  });
});

describe('GET /api/v1/templates', () => {
  let templateOrganizationId: string;
  let servicesId: string;
  let choicesId: string;
  let draftId: string;
  let foreignId: string;

  beforeAll(async () => {
    const pdf = await buildDemoPdf();
    const organization = await newOrganization();
    templateOrganizationId = organization.id;
    const make = (organization: string, definition: unknown, publish: boolean) =>
      createTemplate(servicesOn(orm), {
        organizationId: organization,
        pdf,
        filename: 'base.pdf',
        definition,
        publish,
      });
    servicesId = (await make(organization.id, DEMO_TEMPLATE_DEFINITION, true)).id;
    choicesId = (
      await make(
        organization.id,
        {
          name: 'Account opening',
          roles: [
            { name: 'Customer', required: true },
            { name: 'Witness', required: false },
          ],
          fields: [
            {
              type: 'Dropdown',
              role: 'Customer',
              label: 'Plan',
              page: 1,
              x: 56,
              y: 300,
              width: 150,
              height: 20,
              options: ['Basic', 'Pro'],
            },
            {
              type: 'Signature',
              role: 'Witness',
              label: 'Witness',
              page: 1,
              x: 56.5,
              y: 400.25,
              width: 200,
              height: 40,
            },
          ],
        },
        true,
      )
    ).id;
    draftId = (await make(organization.id, { ...DEMO_TEMPLATE_DEFINITION, name: 'A draft' }, false)).id;
    foreignId = (await make((await newOrganization()).id, DEMO_TEMPLATE_DEFINITION, true)).id;
  });

  const get = (url: string, organization = templateOrganizationId) =>
    app.inject({ method: 'GET', url, headers: { [ORGANIZATION_HEADER]: organization } });

  it('lists the organization’s published templates by name, as an array', async () => {
    const response = await get('/api/v1/templates');
    expect(response.statusCode).toBe(200);
    const templates = response.json();
    expect(Array.isArray(templates)).toBe(true);
    expect(templates.map((template: { id: string }) => template.id)).toEqual([choicesId, servicesId]);
    expect(templates[0]).toMatchObject({
      name: 'Account opening',
      pageCount: 1,
      roles: [
        { name: 'Customer', required: true },
        { name: 'Witness', required: false },
      ],
      fields: [
        { type: 'Dropdown', role: 'Customer', label: 'Plan', options: ['Basic', 'Pro'], required: false },
        { type: 'Signature', role: 'Witness', x: 56.5, y: 400.25, options: null, required: true },
      ],
    });
    expect(Date.parse(templates[0].publishedAt)).not.toBeNaN();
  });

  it('lists nothing for an organization without published templates', async () => {
    const response = await get('/api/v1/templates', (await newOrganization()).id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
  });

  it('shows one template with its roles and field definitions', async () => {
    const response = await get(`/api/v1/templates/${servicesId}`);
    expect(response.statusCode).toBe(200);
    const template = response.json();
    const fieldIds = (
      await orm.em.fork().find(TemplateField, { templateId: servicesId }, { orderBy: { position: 'asc' } })
    ).map((field) => field.id);
    expect(template).toEqual({
      id: servicesId,
      name: DEMO_TEMPLATE_DEFINITION.name,
      pageCount: 1,
      createdAt: expect.any(String),
      publishedAt: expect.any(String),
      roles: [
        // The builder's role properties (docs/templates.md): a template made without them has Signers in order.
        { name: 'Client', required: true, defaultRecipientType: 'Signer', signingOrder: 1 },
        { name: 'Provider', required: true, defaultRecipientType: 'Signer', signingOrder: 2 },
      ],
      fields: DEMO_TEMPLATE_DEFINITION.fields.map((field, index) => ({
        fieldDefinitionId: fieldIds[index],
        type: field.type,
        role: field.role,
        label: field.label,
        page: field.page,
        x: field.x,
        y: field.y,
        width: field.width,
        height: field.height,
        required: field.type === 'Signature',
        options: null,
        properties: {},
      })),
    });
  });

  it('answers 400 for a malformed id', async () => {
    const response = await get('/api/v1/templates/not-a-uuid');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'params.id', message: 'id must be a uuid' }],
    });
  });

  it('answers 404 for another organization’s template, a draft and an unknown id', async () => {
    for (const id of [foreignId, draftId, randomUUID()]) {
      const response = await get(`/api/v1/templates/${id}`);
      expect(response.statusCode).toBe(404);
      expect(response.json().error).toMatchObject({
        code: 'not_found',
        message: `Template ${id} was not found.`,
      });
    }
  });
});

describe('OpenAPI description', () => {
  it('describes the multipart upload, its size limit and the template schemas', async () => {
    const document = app.swagger() as unknown as OpenApiDocument;
    const uploadOperation = document.paths['/api/v1/files/upload']?.post;
    expect(uploadOperation?.requestBody?.content).toEqual({
      'multipart/form-data': {
        schema: {
          type: 'object',
          properties: {
            file: expect.objectContaining({ type: 'string', format: 'binary' }),
          },
          required: ['file'],
        },
      },
    });
    expect(uploadOperation?.description).toContain(
      `Maximum file size: 0.0469 MB (${UPLOAD_MAX_BYTES} bytes)`,
    );
    expect(uploadOperation?.responses['201']?.content?.['application/json']?.schema).toEqual({
      $ref: '#/components/schemas/File',
    });
    expect(Object.keys(uploadOperation?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '404', '409', '429', '500']),
    );

    const list = document.paths['/api/v1/templates']?.get;
    expect(list?.responses['200']?.content?.['application/json']?.schema).toMatchObject({
      type: 'array',
      items: { $ref: '#/components/schemas/Template' },
    });
    const detail = document.paths['/api/v1/templates/{id}']?.get;
    expect(detail?.parameters).toEqual([
      expect.objectContaining({
        name: 'id',
        in: 'path',
        required: true,
        // A request's id keeps the exact UUID pattern (format or pattern, not both: openapi-for-generators.ts).
        schema: expect.objectContaining({
          type: 'string',
          pattern: expect.stringContaining('[0-9a-fA-F]{8}-'),
        }),
      }),
    ]);
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['File', 'Template', 'TemplateRole', 'FieldDefinition', 'Error']),
    );
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });
});

interface OpenApiOperation {
  description?: string;
  parameters?: unknown[];
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown> };
}

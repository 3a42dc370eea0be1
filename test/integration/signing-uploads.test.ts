// File upload and Image upload fields through the whole app: an envelope sent through /api/v1, the signer's
// uploads saved through /api/signing (a wrong one refused with nothing saved), the envelope finalized by the
// real worker, the final PDF downloaded through /api/v1 with the uploaded file attached and the image drawn,
// and the audit trail listing both uploads, in the organization's language.
import { createHash } from 'node:crypto';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PDFDocumentProxy, TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvelopeFieldValue, Organization, StoredFile } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { type ApiHarness, newIntegrator, openApiHarness, sentEnvelope } from '../support/api.ts';
import { encodeGreyJpeg } from '../support/jpeg.ts';
import { encodePng } from '../support/png.ts';
import { storedBytes } from '../support/stored-files.ts';

let harness: ApiHarness;

const box = { page: 1, width: 160, height: 24 };
const UPLOAD_TEMPLATE = {
  name: 'Uploads template',
  roles: [{ name: 'Client', required: true }],
  fields: [
    { type: 'Full name', role: 'Client', label: 'Client name', x: 40, y: 40, required: true, ...box },
    {
      type: 'File upload',
      role: 'Client',
      label: 'Signed contract copy',
      x: 40,
      y: 80,
      required: true,
      ...box,
    },
    { type: 'Image upload', role: 'Client', label: 'Photo ID', x: 40, y: 120, ...box, height: 80 },
  ],
};

beforeAll(async () => {
  harness = await openApiHarness();
});
afterAll(() => harness.close());

/** An organization (in `language`) with the uploads template and an OAuth client. */
async function integrator(language: 'en' | 'he') {
  const acme = await newIntegrator(harness);
  await harness.ctx.orm.em
    .fork()
    .nativeUpdate(Organization, { id: acme.organizationId }, { defaultLanguage: language });
  const template = await createTemplate(harness.ctx, {
    organizationId: acme.organizationId,
    pdf: await buildDemoPdf('Uploads agreement'),
    filename: 'uploads.pdf',
    definition: UPLOAD_TEMPLATE,
    publish: true,
  });
  return { acme, templateId: template.id, headers: await acme.auth() };
}

function signer(method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) {
  return harness.app.inject({
    method,
    url,
    remoteAddress: '203.0.113.9',
    headers: { 'user-agent': 'Sigil uploads test' },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

async function fieldIds(token: string): Promise<Record<string, string>> {
  const response = await signer('GET', `/api/signing/${token}`);
  expect(response.statusCode, response.body).toBe(200);
  return Object.fromEntries(
    (response.json().fields as { label: string; fieldDefinitionId: string }[]).map((f) => [
      f.label,
      f.fieldDefinitionId,
    ]),
  );
}

async function waitForStatus(headers: { authorization: string }, id: string, status: string) {
  let current = '';
  for (let attempt = 0; attempt < 150; attempt += 1) {
    const response = await harness.app.inject({ method: 'GET', url: `/api/v1/envelopes/${id}`, headers });
    current = response.json().status;
    if (current === status) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`envelope ${id} never reached ${status} (is ${current})`);
}

async function download(headers: { authorization: string }, id: string, document: string) {
  const response = await harness.app.inject({
    method: 'GET',
    url: `/api/v1/envelopes/${id}/documents/${document}`,
    headers,
  });
  expect(response.statusCode).toBe(200);
  return getDocument({ data: new Uint8Array(response.rawPayload), verbosity: 0 }).promise;
}

async function text(pdf: PDFDocumentProxy): Promise<string> {
  const pages: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const items = (await (await pdf.getPage(number)).getTextContent()).items;
    pages.push(
      items
        .filter((item): item is TextItem => 'str' in item)
        .map((item) => item.str)
        .join(' '),
    );
  }
  return pages.join('\n');
}

async function attachments(pdf: PDFDocumentProxy): Promise<Map<string, Uint8Array>> {
  const found = new Map<string, Uint8Array>();
  for (const [id, attachment] of (await pdf.getAttachments()) ?? []) {
    found.set(
      attachment.filename,
      new Uint8Array(attachment.content ?? (await pdf.getAttachmentContent(id)) ?? []),
    );
  }
  return found;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The request of a Sequential envelope with the Client as its one signer. */
function uploadsAgreement(templateId: string) {
  return {
    title: 'Uploads agreement',
    workflowType: 'Sequential',
    templateId,
    recipients: [{ roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1 }],
  };
}

describe('File upload and Image upload fields', () => {
  it('saves both uploads, refuses a wrong one, attaches the file to the final PDF and lists both in the audit trail', async () => {
    const { acme, templateId, headers } = await integrator('en');
    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      uploadsAgreement(templateId),
    );
    const ids = await fieldIds(envelope.tokenOf());

    // A contract of almost 4 MB and a 1.5 MB photo: more than the old 6 MB body limit once in base64.
    const base = await buildDemoPdf('Contract copy');
    const contract = Buffer.concat([
      Buffer.from(base),
      Buffer.alloc(4 * 1024 * 1024 - base.length - 10, 0x20),
    ]);
    const photo = Buffer.concat([encodeGreyJpeg(4, 2), Buffer.alloc(1536 * 1024)]);
    const upload = (content: Buffer, filename: string, contentType: string) => ({
      fileBase64: content.toString('base64'),
      filename,
      contentType,
    });
    const filesBefore = await harness.ctx.orm.em
      .fork()
      .count(StoredFile, { organizationId: acme.organizationId });

    // Wrong: a PNG sent as a JPEG, next to good values: 400, nothing saved, no file stored.
    const wrong = await signer('PUT', `/api/signing/${envelope.tokenOf()}/fields`, {
      values: [
        { fieldDefinitionId: ids['Client name'], value: 'Dana Levi' },
        {
          fieldDefinitionId: ids['Signed contract copy'],
          value: upload(contract, 'contract.pdf', 'application/pdf'),
        },
        {
          fieldDefinitionId: ids['Photo ID'],
          value: upload(
            encodePng(8, 8, () => [0, 0, 0, 255]),
            'photo.jpg',
            'image/jpeg',
          ),
        },
      ],
    });
    expect(wrong.statusCode, wrong.body).toBe(400);
    expect(wrong.json().error.details).toEqual([
      {
        field: 'values.2.value',
        message: 'Photo ID: the content is not a valid JPEG (not a JPEG file)',
        fieldDefinitionId: ids['Photo ID'],
      },
    ]);
    const em = harness.ctx.orm.em.fork();
    expect(await em.count(EnvelopeFieldValue, { envelopeId: envelope.id })).toBe(0);
    expect(await em.count(StoredFile, { organizationId: acme.organizationId })).toBe(filesBefore);
    // A bad file name and a PDF in an Image upload are refused the same way.
    for (const value of [
      upload(photo, 'id/photo.jpg', 'image/jpeg'),
      upload(contract, 'c.pdf', 'application/pdf'),
    ]) {
      const refused = await signer('PUT', `/api/signing/${envelope.tokenOf()}/fields`, {
        values: [{ fieldDefinitionId: ids['Photo ID'], value }],
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.details[0].message).toMatch(/^Photo ID: /);
    }

    const saved = await signer('PUT', `/api/signing/${envelope.tokenOf()}/fields`, {
      values: [
        { fieldDefinitionId: ids['Client name'], value: 'Dana Levi' },
        {
          fieldDefinitionId: ids['Signed contract copy'],
          value: upload(contract, 'contract copy.pdf', 'application/pdf'),
        },
        { fieldDefinitionId: ids['Photo ID'], value: upload(photo, 'photo-id.jpg', 'image/jpeg') },
      ],
    });
    expect(saved.statusCode, saved.body.slice(0, 500)).toBe(200);
    expect(saved.json().awaitingCount).toBe(0);
    const savedValue = (label: string) =>
      saved.json().fields.find((f: { label: string }) => f.label === label)?.value as Record<string, unknown>;
    expect(savedValue('Signed contract copy')).toEqual({
      fileId: expect.any(String),
      filename: 'contract copy.pdf',
      contentType: 'application/pdf',
      sizeBytes: contract.length,
      sha256: sha256(contract),
    });
    expect(savedValue('Photo ID')).toMatchObject({ filename: 'photo-id.jpg', contentType: 'image/jpeg' });
    const stored = await em
      .fork()
      .findOneOrFail(StoredFile, { id: savedValue('Signed contract copy').fileId as string });
    expect(stored).toMatchObject({ organizationId: acme.organizationId, contentType: 'application/pdf' });
    expect(Buffer.compare(await storedBytes(harness.ctx, stored.id), contract)).toBe(0);

    const done = await signer('POST', `/api/signing/${envelope.tokenOf()}/complete`, { consent: true });
    expect(done.statusCode, done.body).toBe(200);
    await waitForStatus(headers, envelope.id, 'Completed');

    const finalPdf = await download(headers, envelope.id, 'final-pdf');
    const attached = await attachments(finalPdf);
    expect([...attached.keys()]).toEqual(['contract copy.pdf']);
    expect(sha256(attached.get('contract copy.pdf') ?? new Uint8Array())).toBe(sha256(contract));
    const finalText = await text(finalPdf);
    expect(finalText).toContain('Attached: contract copy.pdf');
    expect(finalText).toContain('Dana Levi');
    // The photo is drawn: one image painted on the page (the template has no other).
    const operators = await (await finalPdf.getPage(1)).getOperatorList();
    expect(operators.fnArray.filter((op) => op === OPS.paintImageXObject)).toHaveLength(1);

    const auditText = await text(await download(headers, envelope.id, 'audit-trail'));
    for (const expected of [
      'Uploaded files (2)',
      'Signed contract copy',
      'contract copy.pdf',
      'application/pdf',
      `${contract.length} bytes`,
      sha256(contract),
      'Photo ID',
      'photo-id.jpg',
      'image/jpeg',
      `${photo.length} bytes`,
      sha256(photo),
    ]) {
      expect(auditText, expected).toContain(expected);
    }
  });

  it('renders the audit trail and the footers in Hebrew for a Hebrew organization', async () => {
    const { acme, templateId, headers } = await integrator('he');
    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      uploadsAgreement(templateId),
    );
    const ids = await fieldIds(envelope.tokenOf());
    const contract = Buffer.from(await buildDemoPdf('Contract copy'));
    const saved = await signer('PUT', `/api/signing/${envelope.tokenOf()}/fields`, {
      values: [
        { fieldDefinitionId: ids['Client name'], value: 'דנה לוי' },
        {
          fieldDefinitionId: ids['Signed contract copy'],
          value: {
            fileBase64: contract.toString('base64'),
            filename: 'חוזה.pdf',
            contentType: 'application/pdf',
          },
        },
      ],
    });
    expect(saved.statusCode, saved.body.slice(0, 500)).toBe(200);
    expect(
      (await signer('POST', `/api/signing/${envelope.tokenOf()}/complete`, { consent: true })).statusCode,
    ).toBe(200);
    await waitForStatus(headers, envelope.id, 'Completed');

    const finalPdf = await download(headers, envelope.id, 'final-pdf');
    const finalText = await text(finalPdf);
    expect(finalText).toContain('מצורף');
    expect(finalText).toContain('נחתם ב');
    expect(finalText).not.toContain('Signed with Sigil');
    expect([...(await attachments(finalPdf)).keys()]).toEqual(['חוזה.pdf']);

    const auditText = await text(await download(headers, envelope.id, 'audit-trail'));
    for (const hebrew of [
      'יומן ביקורת',
      'מזהה מעטפה',
      'נמענים',
      'קבצים שהועלו',
      'יומן אירועים',
      'הנמען השלים',
    ]) {
      expect(auditText, hebrew).toContain(hebrew);
    }
    expect(auditText).toContain(envelope.id);
    expect(auditText).toContain(sha256(contract));
    expect(auditText).not.toContain('Event log');
  });
});

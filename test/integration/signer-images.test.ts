// A signer's images through the whole app (issue 30, item 7): a PNG or JPEG whose header announces more pixels
// than its field allows is refused with a 400 naming the value before anything is inflated (the inspection
// pool gets no work) and nothing is stored; a large drawn signature that is allowed is stored scaled down to
// its field's box at four pixels per point, and a small one is stored as it came.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoredFile } from '../../db/entities/index.ts';
import { drawnSignaturePng, fortyMegapixelPng, rgbaPng } from '../../scripts/abuse/payloads.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { inspectionPool } from '../../services/files/inspection-pool.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { type ApiHarness, newIntegrator, openApiHarness } from '../support/api.ts';
import { storedBytes } from '../support/stored-files.ts';

let harness: ApiHarness;
let headers: { authorization: string };
let organizationId: string;
let templateId: string;

const TEMPLATE = {
  name: 'Signer images',
  roles: [{ name: 'Client', required: true }],
  fields: [
    // 200 × 60 points: a stored signature keeps at most 800 × 240 pixels.
    { type: 'Signature', role: 'Client', label: 'Signature', page: 1, x: 40, y: 40, width: 200, height: 60 },
    { type: 'Image upload', role: 'Client', label: 'Photo', page: 1, x: 40, y: 120, width: 200, height: 150 },
    { type: 'File upload', role: 'Client', label: 'Scan', page: 1, x: 40, y: 300, width: 160, height: 24 },
  ],
};

beforeAll(async () => {
  harness = await openApiHarness();
  const acme = await newIntegrator(harness);
  organizationId = acme.organizationId;
  headers = await acme.auth();
  const template = await createTemplate(harness.ctx, {
    organizationId,
    pdf: await buildDemoPdf(),
    filename: 'images.pdf',
    definition: TEMPLATE,
    publish: true,
  });
  templateId = template.id;
});
afterAll(() => harness?.close());

/** A sent envelope to one signer: their token and field ids by label. */
async function signerOfSentEnvelope() {
  const created = await harness.app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-template',
    headers,
    payload: {
      title: 'Signer images',
      templateId,
      recipients: [{ roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' }],
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  const id = created.json().id as string;
  const sent = await harness.app.inject({ method: 'POST', url: `/api/v1/envelopes/${id}/send`, headers });
  expect(sent.statusCode, sent.body).toBe(200);
  const [link] = await issueSigningLinks(harness.ctx, organizationId, id);
  const token = link?.url.split('/sign/')[1] as string;
  const view = await harness.app.inject({ method: 'GET', url: `/api/signing/${token}` });
  const ids = Object.fromEntries(
    (view.json().fields as { label: string; fieldDefinitionId: string }[]).map((f) => [
      f.label,
      f.fieldDefinitionId,
    ]),
  );
  return { token, ids };
}

function save(token: string, fieldDefinitionId: string, value: unknown) {
  return harness.app.inject({
    method: 'PUT',
    url: `/api/signing/${token}/fields`,
    payload: { values: [{ fieldDefinitionId, value }] },
  });
}

const storedFiles = () => harness.ctx.orm.em.fork().count(StoredFile, { organizationId });

/** A JPEG of SOI, a baseline frame header of `width` × `height` grey pixels, a scan and EOI: tiny on disk. */
function jpegAnnouncing(width: number, height: number): Buffer {
  const frame = Buffer.from([0xff, 0xc0, 0, 11, 8, 0, 0, 0, 0, 1, 1, 0x11, 0]);
  frame.writeUInt16BE(height, 5);
  frame.writeUInt16BE(width, 7);
  const scan = Buffer.from([0xff, 0xda, 0, 8, 1, 1, 0, 0, 0x3f, 0]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), frame, scan, Buffer.from([0x00, 0xff, 0xd9])]);
}

/** The pixel size in a stored PNG's header. */
async function storedPngSize(fileId: string) {
  const content = await storedBytes(harness.ctx, fileId);
  return { width: content.readUInt32BE(16), height: content.readUInt32BE(20), content };
}

async function savedFileId(token: string, label: string): Promise<string> {
  const view = await harness.app.inject({ method: 'GET', url: `/api/signing/${token}` });
  const value = (view.json().fields as { label: string; value: { fileId?: string } }[]).find(
    (f) => f.label === label,
  )?.value;
  expect(value?.fileId).toEqual(expect.any(String));
  return value?.fileId as string;
}

describe('images a signer sends', () => {
  it('refuses a 40-megapixel signature PNG from its header, before inflating it, storing nothing', async () => {
    const { token, ids } = await signerOfSentEnvelope();
    const huge = fortyMegapixelPng();
    expect(huge.byteLength).toBeLessThan(1024 * 1024); // within the 1 MB a signature image may have
    const before = await storedFiles();
    const startedBefore = inspectionPool().started;
    const answer = await save(token, ids.Signature as string, { imagePngBase64: huge.toString('base64') });
    expect(answer.statusCode, answer.body).toBe(400);
    const message =
      'Signature: the image may be at most 4,096 pixels on each side and 8,000,000 pixels in all (it is 6,324 × 6,324)';
    expect(answer.json().error).toMatchObject({
      code: 'invalid_request',
      message: `Invalid field values: values.0.value: ${message}`,
      details: [{ field: 'values.0.value', message, fieldDefinitionId: ids.Signature }],
    });
    // Refused from the header: no thread of the inspection pool was asked to inflate it.
    expect(inspectionPool().started).toBe(startedBefore);
    expect(await storedFiles()).toBe(before);
  });

  it('refuses an uploaded JPEG and PNG that announce more than 16 megapixels, naming the value', async () => {
    const { token, ids } = await signerOfSentEnvelope();
    const before = await storedFiles();
    const startedBefore = inspectionPool().started;
    const photo = await save(token, ids.Photo as string, {
      fileBase64: jpegAnnouncing(9000, 2500).toString('base64'),
      filename: 'photo.jpg',
      contentType: 'image/jpeg',
    });
    expect(photo.statusCode, photo.body).toBe(400);
    expect(photo.json().error.details).toEqual([
      {
        field: 'values.0.value',
        message:
          'Photo: the image may be at most 8,192 pixels on each side and 16,000,000 pixels in all (it is 9,000 × 2,500)',
        fieldDefinitionId: ids.Photo,
      },
    ]);
    const scan = await save(token, ids.Scan as string, {
      fileBase64: rgbaPng(5000, 4000, 16).toString('base64'),
      filename: 'scan.png',
      contentType: 'image/png',
    });
    expect(scan.statusCode, scan.body).toBe(400);
    expect(scan.json().error.details[0].message).toBe(
      'Scan: the image may be at most 8,192 pixels on each side and 16,000,000 pixels in all (it is 5,000 × 4,000)',
    );
    expect(inspectionPool().started).toBe(startedBefore);
    expect(await storedFiles()).toBe(before);
  });

  it('stores a large allowed signature scaled down to its box at four pixels per point, a small one as sent', async () => {
    const { token, ids } = await signerOfSentEnvelope();
    const large = drawnSignaturePng(3000, 900);
    const saved = await save(token, ids.Signature as string, { imagePngBase64: large.toString('base64') });
    expect(saved.statusCode, saved.body.slice(0, 400)).toBe(200);
    const stored = await storedPngSize(await savedFileId(token, 'Signature'));
    expect({ width: stored.width, height: stored.height }).toEqual({ width: 800, height: 240 });
    // Still a drawn stroke: some pixels opaque, most transparent (the PNG is checked by the final PDF too).
    expect(stored.content.byteLength).toBeLessThan(large.byteLength);

    const small = drawnSignaturePng(600, 180);
    const again = await save(token, ids.Signature as string, { imagePngBase64: small.toString('base64') });
    expect(again.statusCode, again.body.slice(0, 400)).toBe(200);
    const kept = await storedPngSize(await savedFileId(token, 'Signature'));
    expect(createHash('sha256').update(kept.content).digest('hex')).toBe(
      createHash('sha256').update(small).digest('hex'),
    );
  });
});

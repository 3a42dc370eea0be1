// Uploaded files in the final PDF: an Image upload drawn fitted into its box (PNG or JPEG, aspect kept), a File
// upload attached to the PDF (read back with pdf.js, bytes compared) with its name in the box, the same
// bytes for the same input; and the mapping of stored values to what is drawn and listed in the audit trail.
import { createHash } from 'node:crypto';
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString } from 'pdf-lib';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PDFDocumentProxy, TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { describe, expect, it } from 'vitest';
import { finalPdfValues, type LoadedFile, placedFields, uploadedFiles } from '../../pdf/field-values.ts';
import { type FinalPdfField, PdfRenderError, renderFinalPdf } from '../../pdf/render-final-pdf.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { encodeGreyJpeg } from '../support/jpeg.ts';
import { encodePng } from '../support/png.ts';

const ENVELOPE_ID = '0f8e2c1a-5b7d-4e8f-9a1b-2c3d4e5f6a7b';
const COMPLETED_AT = new Date('2026-03-01T10:15:30Z');
const JPEG = new Uint8Array(encodeGreyJpeg(4, 1)); // 32 × 8 pixels
const PNG = new Uint8Array(encodePng(10, 20, () => [200, 30, 30, 255])); // 10 × 20 pixels
const ATTACHED_PDF = await buildDemoPdf('The attached document');

async function open(bytes: Uint8Array): Promise<PDFDocumentProxy> {
  return getDocument({ data: bytes.slice(), verbosity: 0 }).promise;
}

async function pageText(pdf: PDFDocumentProxy, number = 1): Promise<string> {
  const items = (await (await pdf.getPage(number)).getTextContent()).items;
  return items
    .filter((item): item is TextItem => 'str' in item)
    .map((item) => item.str)
    .join(' ');
}

/** Each image painted on the page: its decoded size and the size it is drawn at (points). */
async function paintedImages(pdf: PDFDocumentProxy, number = 1) {
  const page = await pdf.getPage(number);
  const operators = await page.getOperatorList();
  const images: { width: number; height: number; drawnWidth: number; drawnHeight: number; first: number }[] =
    [];
  let matrix = [1, 0, 0, 1, 0, 0];
  const stack: number[][] = [];
  for (const [index, op] of operators.fnArray.entries()) {
    const args = operators.argsArray[index];
    if (op === OPS.save) stack.push(matrix);
    else if (op === OPS.restore) matrix = stack.pop() ?? [1, 0, 0, 1, 0, 0];
    else if (op === OPS.transform) {
      const [a, b, c, d, e, f] = args as number[];
      const [m0, m1, m2, m3, m4, m5] = matrix as [number, number, number, number, number, number];
      matrix = [
        (a as number) * m0 + (b as number) * m2,
        (a as number) * m1 + (b as number) * m3,
        (c as number) * m0 + (d as number) * m2,
        (c as number) * m1 + (d as number) * m3,
        (e as number) * m0 + (f as number) * m2 + m4,
        (e as number) * m1 + (f as number) * m3 + m5,
      ];
    } else if (op === OPS.paintImageXObject) {
      const data = await new Promise<{ width: number; height: number; data: Uint8ClampedArray }>((resolve) =>
        page.objs.get(args[0], resolve),
      );
      images.push({
        width: data.width,
        height: data.height,
        drawnWidth: Math.hypot(matrix[0] as number, matrix[1] as number),
        drawnHeight: Math.hypot(matrix[2] as number, matrix[3] as number),
        first: data.data[0] as number,
      });
    }
  }
  return images;
}

async function attachmentsOf(
  pdf: PDFDocumentProxy,
): Promise<Map<string, { content: Uint8Array; description: string }>> {
  const found = new Map<string, { content: Uint8Array; description: string }>();
  for (const [id, attachment] of (await pdf.getAttachments()) ?? []) {
    const content = attachment.content ?? (await pdf.getAttachmentContent(id));
    found.set(attachment.filename, {
      content: new Uint8Array(content ?? []),
      description: attachment.description,
    });
  }
  return found;
}

const box = { page: 1, width: 120, height: 60 };

async function render(fields: FinalPdfField[], language?: 'en' | 'he') {
  return renderFinalPdf({
    basePdf: await buildDemoPdf('Upload test'),
    envelopeId: ENVELOPE_ID,
    completedAt: COMPLETED_AT,
    fields,
    ...(language ? { language } : {}),
  });
}

describe('uploads in the final PDF', () => {
  it('draws a JPEG image upload fitted into its box, keeping its aspect ratio', async () => {
    const output = await render([
      {
        type: 'Image upload',
        x: 40,
        y: 100,
        ...box,
        value: { upload: { content: JPEG, filename: 'photo.jpg', contentType: 'image/jpeg' } },
      },
    ]);
    const doc = await PDFDocument.load(output);
    const filters = [...doc.context.enumerateIndirectObjects()]
      .map(([, object]) => object)
      .filter((object) => object instanceof PDFRawStream)
      .map((stream) => (stream as PDFRawStream).dict.lookup(PDFName.of('Filter')));
    expect(filters).toContain(PDFName.of('DCTDecode'));
    const [image, ...others] = await paintedImages(await open(output));
    expect(others).toHaveLength(0);
    // pdf.js decoded the JPEG: 32 × 8 grey pixels.
    expect(image).toMatchObject({ width: 32, height: 8, first: 128 });
    // The box less its padding is 116 × 56; a 4:1 image fits its width.
    expect(image?.drawnWidth).toBeCloseTo(116, 1);
    expect(image?.drawnHeight).toBeCloseTo(29, 1);
  });

  it('draws a PNG image upload fitted by its height, and refuses a GIF or broken JPEG', async () => {
    const output = await render([
      {
        type: 'Image upload',
        x: 40,
        y: 100,
        ...box,
        value: { upload: { content: PNG, filename: 'logo.png', contentType: 'image/png' } },
      },
    ]);
    const [image] = await paintedImages(await open(output));
    expect(image).toMatchObject({ width: 10, height: 20 });
    expect(image?.drawnHeight).toBeCloseTo(56, 1);
    expect(image?.drawnWidth).toBeCloseTo(28, 1);

    const gif = { content: new Uint8Array([0x47, 0x49, 0x46]), filename: 'a.gif', contentType: 'image/gif' };
    await expect(
      render([{ type: 'Image upload', x: 40, y: 100, ...box, value: { upload: gif } }]),
    ).rejects.toThrow(
      new PdfRenderError(
        'field #1 (Image upload, page 1): an uploaded image must be image/png or image/jpeg, not image/gif',
      ),
    );
    const broken = { content: JPEG.slice(0, 50), filename: 'a.jpg', contentType: 'image/jpeg' };
    await expect(
      render([{ type: 'Image upload', x: 40, y: 100, ...box, value: { upload: broken } }]),
    ).rejects.toThrow('field #1 (Image upload, page 1): the JPEG image cannot be read: truncated JPEG');
  });

  it('attaches a File upload to the PDF, shows its name, and gives the same bytes twice', async () => {
    const fields: FinalPdfField[] = [
      {
        type: 'File upload',
        label: 'Passport scan',
        x: 40,
        y: 200,
        ...box,
        height: 20,
        value: {
          upload: { content: ATTACHED_PDF, filename: 'passport (front.pdf', contentType: 'application/pdf' },
        },
      },
      {
        type: 'File upload',
        label: 'Second copy',
        x: 40,
        y: 230,
        ...box,
        height: 20,
        value: { upload: { content: JPEG, filename: 'Щит.jpg', contentType: 'image/jpeg' } },
      },
      {
        type: 'File upload',
        label: 'Same name',
        x: 40,
        y: 260,
        ...box,
        height: 20,
        value: { upload: { content: PNG, filename: 'Щит.jpg', contentType: 'image/png' } },
      },
    ];
    const output = await render(fields);
    const pdf = await open(output);
    const text = await pageText(pdf);
    expect(text).toContain('Attached: passport (front.pdf');
    expect(text).toContain('Attached: Щит.jpg');
    const attachments = await attachmentsOf(pdf);
    expect([...attachments.keys()].sort()).toEqual(['passport (front.pdf', 'Щит (2).jpg', 'Щит.jpg']);
    expect(
      Buffer.compare(
        Buffer.from(attachments.get('passport (front.pdf')?.content ?? []),
        Buffer.from(ATTACHED_PDF),
      ),
    ).toBe(0);
    expect(attachments.get('passport (front.pdf')?.description).toBe('Passport scan');
    expect(Buffer.from(attachments.get('Щит.jpg')?.content ?? []).equals(Buffer.from(JPEG))).toBe(true);
    expect(Buffer.from(attachments.get('Щит (2).jpg')?.content ?? []).equals(Buffer.from(PNG))).toBe(true);

    // Dated with the completion time, so the same input gives the same bytes.
    const again = await render(fields);
    const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    expect(sha(again)).toBe(sha(output));
    const doc = await PDFDocument.load(output);
    const dates = [...doc.context.enumerateIndirectObjects()].flatMap(([, object]) => {
      if (!(object instanceof PDFRawStream)) return [];
      if (object.dict.lookup(PDFName.of('Type')) !== PDFName.of('EmbeddedFile')) return [];
      const params = object.dict.lookup(PDFName.of('Params'), PDFDict);
      return ['CreationDate', 'ModDate'].map((key) =>
        params.lookup(PDFName.of(key), PDFString).decodeDate().toISOString(),
      );
    });
    expect(dates).toEqual(Array(6).fill(COMPLETED_AT.toISOString()));
    // The F entry of each file specification is an ASCII hex string (pdf-lib's own is not escaped).
    const specs = [...doc.context.enumerateIndirectObjects()].flatMap(([, object]) =>
      object instanceof PDFDict && object.lookup(PDFName.of('Type')) === PDFName.of('Filespec')
        ? [object]
        : [],
    );
    expect(specs.map((spec) => spec.lookup(PDFName.of('F'), PDFHexString).decodeText()).sort()).toEqual([
      '___ (2).jpg',
      '___.jpg',
      'passport (front.pdf',
    ]);
  });

  it('writes the attachment note in Hebrew for a Hebrew document, and a plain string as before', async () => {
    const output = await render(
      [
        {
          type: 'File upload',
          x: 40,
          y: 200,
          ...box,
          height: 20,
          value: {
            upload: { content: ATTACHED_PDF, filename: 'contract.pdf', contentType: 'application/pdf' },
          },
        },
        { type: 'File upload', x: 40, y: 300, ...box, height: 20, value: 'named-only.pdf' },
      ],
      'he',
    );
    const pdf = await open(output);
    const text = await pageText(pdf);
    expect(text).toContain('מצורף');
    expect(text).toContain('contract.pdf');
    expect(text).toContain('named-only.pdf');
    expect(text).toContain('נחתם ב');
    expect(text).toContain(ENVELOPE_ID);
    expect(text).not.toContain('Attached');
    expect([...(await attachmentsOf(pdf)).keys()]).toEqual(['contract.pdf']);
  });
});

describe('stored values to drawn values', () => {
  const fields = [
    { type: 'Signature' as const, label: 'Signature', page: 1, x: 10, y: 10, width: 100, height: 40 },
    { type: 'Image upload' as const, label: 'Photo', page: 1, x: 10, y: 60, width: 100, height: 40 },
    { type: 'File upload' as const, label: 'Contract', page: 1, x: 10, y: 110, width: 100, height: 20 },
    { type: 'Image upload' as const, label: 'Old image', page: 1, x: 10, y: 140, width: 100, height: 40 },
    { type: 'Text' as const, label: 'Note', page: 1, x: 10, y: 190, width: 100, height: 20 },
    { type: 'File upload' as const, label: 'Missing', page: 1, x: 10, y: 220, width: 100, height: 20 },
  ];
  const files = new Map<string, LoadedFile>([
    ['sig', { content: PNG, contentType: 'image/png', filename: 'Signature.png' }],
    ['photo', { content: JPEG, contentType: 'image/jpeg', filename: 'photo.jpg' }],
    ['contract', { content: ATTACHED_PDF, contentType: 'application/pdf', filename: 'stored-name.pdf' }],
    ['old', { content: PNG, contentType: 'image/png', filename: 'Old image.png' }],
  ]);
  const stored = [
    { fileId: 'sig', typedName: 'Dana' },
    {
      fileId: 'photo',
      filename: 'photo.jpg',
      contentType: 'image/jpeg',
      sizeBytes: JPEG.length,
      sha256: 'x',
    },
    {
      fileId: 'contract',
      filename: 'contract.pdf',
      contentType: 'application/pdf',
      sizeBytes: 1,
      sha256: 'x',
    },
    { fileId: 'old', typedName: null },
    'a note',
    { fileId: 'gone', filename: 'gone.pdf', contentType: 'application/pdf', sizeBytes: 1, sha256: 'x' },
  ];

  it('loads each file once through the injected loader and maps every kind of value', async () => {
    const requested: string[][] = [];
    const drawn = await finalPdfValues(fields, stored, async (ids) => {
      requested.push(ids);
      return new Map(ids.flatMap((id) => (files.has(id) ? [[id, files.get(id) as LoadedFile]] : [])));
    });
    expect(requested).toEqual([['sig', 'photo', 'contract', 'old', 'gone']]);
    expect(drawn).toEqual([
      { imagePng: PNG, typedName: 'Dana' },
      { upload: { content: JPEG, filename: 'photo.jpg', contentType: 'image/jpeg' } },
      { upload: { content: ATTACHED_PDF, filename: 'contract.pdf', contentType: 'application/pdf' } },
      { imagePng: PNG },
      'a note',
      null,
    ]);
    expect(placedFields(fields, drawn)[2]).toMatchObject({
      type: 'File upload',
      label: 'Contract',
      x: 10,
      y: 110,
    });
    const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    expect(uploadedFiles(fields, drawn)).toEqual([
      {
        fieldLabel: 'Photo',
        filename: 'photo.jpg',
        contentType: 'image/jpeg',
        sizeBytes: JPEG.length,
        sha256: sha(JPEG),
      },
      {
        fieldLabel: 'Contract',
        filename: 'contract.pdf',
        contentType: 'application/pdf',
        sizeBytes: ATTACHED_PDF.length,
        sha256: sha(ATTACHED_PDF),
      },
    ]);
    // The whole envelope renders.
    const output = await renderFinalPdf({
      basePdf: await buildDemoPdf(),
      envelopeId: ENVELOPE_ID,
      completedAt: COMPLETED_AT,
      fields: placedFields(fields, drawn),
    });
    expect([...(await attachmentsOf(await open(output))).keys()]).toEqual(['contract.pdf']);
  });

  it('asks the loader nothing when no value refers to a file', async () => {
    let called = false;
    const drawn = await finalPdfValues(fields.slice(4, 5), ['text'], async () => {
      called = true;
      return new Map();
    });
    expect(drawn).toEqual(['text']);
    expect(called).toBe(false);
  });
});

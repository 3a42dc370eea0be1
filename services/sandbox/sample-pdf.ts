// The fixed sample PDFs that sandbox downloads return: built once per process with pdf-lib, with fixed
// metadata dates, so every process serves the same bytes.
import { PDFDocument, rgb, StandardFonts } from 'pdf-lib';

export type SandboxArtifact = 'final-pdf' | 'audit-trail';

const TITLES: Record<SandboxArtifact, string> = {
  'final-pdf': 'Sigil sandbox — final PDF sample',
  'audit-trail': 'Sigil sandbox — audit trail sample',
};
const FIXED_DATE = new Date('2026-01-01T00:00:00Z');
const A4 = { width: 595.28, height: 841.89 } as const;

const built = new Map<SandboxArtifact, Promise<Uint8Array>>();

/** The sample PDF of an artifact (the same bytes for every synthetic envelope). */
export function sandboxSamplePdf(artifact: SandboxArtifact): Promise<Uint8Array> {
  let pdf = built.get(artifact);
  if (!pdf) {
    pdf = buildSamplePdf(TITLES[artifact]);
    // A failed build is not cached: the next download tries again.
    pdf.catch(() => built.delete(artifact));
    built.set(artifact, pdf);
  }
  return pdf;
}

async function buildSamplePdf(title: string): Promise<Uint8Array> {
  const document = await PDFDocument.create();
  document.setTitle(title);
  document.setProducer('Sigil');
  document.setCreator('Sigil sandbox');
  document.setCreationDate(FIXED_DATE);
  document.setModificationDate(FIXED_DATE);
  const font = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  const page = document.addPage([A4.width, A4.height]);
  page.drawText(title, { x: 56, y: A4.height - 80, size: 20, font: bold });
  const lines = [
    'This document was produced by the sandbox mode of the Sigil public API.',
    'It is a fixed sample: nobody was contacted and nothing was signed.',
    'Production envelopes return the real document here once it exists.',
  ];
  lines.forEach((line, index) => {
    page.drawText(line, { x: 56, y: A4.height - 130 - index * 18, size: 11, font });
  });
  page.drawRectangle({
    x: 56,
    y: 120,
    width: A4.width - 112,
    height: 40,
    borderColor: rgb(0.8, 0.2, 0.2),
    borderWidth: 1,
  });
  page.drawText('SANDBOX — NOT A SIGNED DOCUMENT', {
    x: 72,
    y: 134,
    size: 12,
    font: bold,
    color: rgb(0.8, 0.2, 0.2),
  });
  return document.save();
}

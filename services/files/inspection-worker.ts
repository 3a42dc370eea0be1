// What a thread of the inspection pool (inspection-pool.ts) runs: the checks of uploaded files that cost real
// CPU or memory, off the API's event loop. A PDF is read under its limits (check-pdf.ts); a PNG is inflated
// completely to check it (pdf/png.ts) and, for drawn images, scaled down to the size its field needs
// (pdf/image-scale.ts). Answers are plain data (they cross threads): a refusal carries its sentence and
// detail, and the caller turns it into the same 400 as before. Loaded by file name by the pool's threads,
// which strip TypeScript types as the rest of the application's processes do (Node 24).
import { type ScaledPng, scalePngToFit } from '../../pdf/image-scale.ts';
import { inspectPng } from '../../pdf/png.ts';
import { checkPdf, type PdfInspection } from './check-pdf.ts';
import { type PdfLimits, PdfRefusal } from './pdf-limits.ts';

export type InspectionTask =
  | { kind: 'pdf'; bytes: Uint8Array; limits: PdfLimits }
  | {
      kind: 'png';
      bytes: Uint8Array;
      /** The largest image accepted, in pixels (checked again: the caller read it from the header). */
      maxPixels: number;
      /** Scale the image down to fit this many pixels (drawn images); omitted: only check it. */
      fit?: { width: number; height: number };
    };

export type InspectionOutcome =
  | { kind: 'pdf'; inspection: PdfInspection }
  | { kind: 'png'; image: ScaledPng }
  | { kind: 'refused'; message: string; detail: string; code: string }
  | { kind: 'png-problem'; problem: string };

export default function inspect(task: InspectionTask): InspectionOutcome {
  if (task.kind === 'pdf') {
    try {
      return { kind: 'pdf', inspection: checkPdf(task.bytes, task.limits) };
    } catch (error) {
      if (!(error instanceof PdfRefusal)) throw error;
      return { kind: 'refused', message: error.message, detail: error.detail, code: error.code };
    }
  }
  const checked = inspectPng(task.bytes, task.maxPixels);
  if ('problem' in checked) return { kind: 'png-problem', problem: checked.problem };
  if (!task.fit) {
    return {
      kind: 'png',
      image: { png: task.bytes, width: checked.width, height: checked.height, scaled: false },
    };
  }
  return { kind: 'png', image: scalePngToFit(task.bytes, task.fit.width, task.fit.height) };
}

// Flattening: whatever interactive form the base PDF carries is turned into plain page content and removed,
// so the signed document can no longer be edited through form fields. Each visible widget's normal appearance
// is painted where the widget was (PDF 32000-1 §12.5.5: the appearance's BBox, transformed by its Matrix, is
// mapped onto the annotation's Rect); then the widget annotations and the AcroForm (with any XFA) are dropped.
// pdf-lib's own PDFForm.flatten() is not used: it fails on widgets without appearances and leaves widget
// annotations behind.
import {
  concatTransformationMatrix,
  drawObject,
  PDFArray,
  PDFDict,
  type PDFDocument,
  PDFName,
  PDFNumber,
  type PDFObject,
  type PDFPage,
  PDFRef,
  PDFStream,
  popGraphicsState,
  pushGraphicsState,
} from 'pdf-lib';

const HIDDEN = 1 << 1;
const NO_VIEW = 1 << 5;

function numbers(value: PDFObject | undefined, count: number): number[] | undefined {
  if (!(value instanceof PDFArray) || value.size() !== count) return undefined;
  const result: number[] = [];
  for (let index = 0; index < count; index += 1) {
    const entry = value.get(index);
    if (!(entry instanceof PDFNumber)) return undefined;
    result.push(entry.asNumber());
  }
  return result;
}

/** The widget's normal appearance stream as an indirect reference, if it has one to show. */
function normalAppearance(doc: PDFDocument, widget: PDFDict): PDFRef | undefined {
  const appearances = widget.lookup(PDFName.of('AP'));
  if (!(appearances instanceof PDFDict)) return undefined;
  let entry = appearances.get(PDFName.of('N'));
  const resolved = doc.context.lookup(entry);
  if (resolved instanceof PDFDict) {
    // One appearance per state (check boxes, radio buttons): the current state is /AS.
    const state = widget.lookup(PDFName.of('AS'));
    if (!(state instanceof PDFName)) return undefined;
    entry = resolved.get(state);
  }
  const stream = doc.context.lookup(entry);
  if (!(stream instanceof PDFStream)) return undefined;
  return entry instanceof PDFRef ? entry : doc.context.register(stream);
}

function paintWidget(doc: PDFDocument, page: PDFPage, widget: PDFDict): void {
  const flags = widget.lookup(PDFName.of('F'));
  const flagBits = flags instanceof PDFNumber ? flags.asNumber() : 0;
  if (flagBits & (HIDDEN | NO_VIEW)) return;
  const rect = numbers(widget.lookup(PDFName.of('Rect')), 4);
  const ref = normalAppearance(doc, widget);
  if (!rect || !ref) return;
  const stream = doc.context.lookup(ref) as PDFStream;
  const bbox = numbers(stream.dict.lookup(PDFName.of('BBox')), 4);
  if (!bbox) return;
  const [a, b, c, d, e, f] = numbers(stream.dict.lookup(PDFName.of('Matrix')), 6) ?? [1, 0, 0, 1, 0, 0];
  const [bx0, by0, bx1, by1] = bbox as [number, number, number, number];
  const corners = [
    [bx0, by0],
    [bx1, by0],
    [bx0, by1],
    [bx1, by1],
  ].map(([x, y]) => [
    (a as number) * (x as number) + (c as number) * (y as number) + (e as number),
    (b as number) * (x as number) + (d as number) * (y as number) + (f as number),
  ]);
  const xs = corners.map((point) => point[0] as number);
  const ys = corners.map((point) => point[1] as number);
  const [tx0, tx1, ty0, ty1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const [rx0, ry0, rx1, ry1] = [
    Math.min(rect[0] as number, rect[2] as number),
    Math.min(rect[1] as number, rect[3] as number),
    Math.max(rect[0] as number, rect[2] as number),
    Math.max(rect[1] as number, rect[3] as number),
  ];
  if (tx1 - tx0 <= 0 || ty1 - ty0 <= 0 || rx1 - rx0 <= 0 || ry1 - ry0 <= 0) return;
  const sx = (rx1 - rx0) / (tx1 - tx0);
  const sy = (ry1 - ry0) / (ty1 - ty0);
  const name = page.node.newXObject('FlatWidget', ref);
  page.pushOperators(
    pushGraphicsState(),
    concatTransformationMatrix(sx, 0, 0, sy, rx0 - tx0 * sx, ry0 - ty0 * sy),
    drawObject(name),
    popGraphicsState(),
  );
}

/** Paints and removes every widget annotation, then removes the form. Returns how many widgets were removed. */
export function flattenForm(doc: PDFDocument): number {
  let removed = 0;
  for (const page of doc.getPages()) {
    const annots = page.node.lookup(PDFName.of('Annots'));
    if (!(annots instanceof PDFArray)) continue;
    const kept: PDFObject[] = [];
    for (let index = 0; index < annots.size(); index += 1) {
      const entry = annots.get(index);
      const annot = doc.context.lookup(entry);
      if (annot instanceof PDFDict && annot.lookup(PDFName.of('Subtype')) === PDFName.of('Widget')) {
        paintWidget(doc, page, annot);
        removed += 1;
      } else {
        kept.push(entry);
      }
    }
    if (kept.length !== annots.size()) page.node.set(PDFName.of('Annots'), doc.context.obj(kept));
  }
  doc.catalog.delete(PDFName.of('AcroForm'));
  doc.catalog.delete(PDFName.of('NeedsRendering'));
  return removed;
}

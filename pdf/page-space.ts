// Template fields are placed on the page as a person sees it: points from the top-left corner of the visible
// area (the crop box), after the page's /Rotate is applied. This maps that "display space" to the page's own
// coordinates, so the renderers can draw upright text and images on rotated or offset pages too.
import { concatTransformationMatrix, type PDFPage, popGraphicsState, pushGraphicsState } from 'pdf-lib';

/** The page as displayed: its size, and the matrix from display space (origin bottom-left) to user space. */
export interface DisplaySpace {
  width: number;
  height: number;
  matrix: [number, number, number, number, number, number];
}

/**
 * The page's /Rotate as Sigil applies it: the nearest quarter turn, clockwise, as 0, 90, 180 or 270. The
 * renderers (displaySpace) and the upload inspection (the page sizes fields are checked against) both use it.
 */
export function quarterTurns(angle: number): 0 | 90 | 180 | 270 {
  return ((((Math.round(angle / 90) * 90) % 360) + 360) % 360) as 0 | 90 | 180 | 270;
}

/** The size of a page as displayed: its crop box (width and height as pdf-lib reads them), turned by /Rotate. */
export function displayedSize(
  cropBox: { width: number; height: number },
  angle: number,
): { width: number; height: number } {
  const rotation = quarterTurns(angle);
  return rotation === 90 || rotation === 270
    ? { width: cropBox.height, height: cropBox.width }
    : { width: cropBox.width, height: cropBox.height };
}

export function displaySpace(page: PDFPage): DisplaySpace {
  const box = page.getCropBox();
  const rotation = quarterTurns(page.getRotation().angle);
  const { x, y, width, height } = box;
  switch (rotation) {
    case 90:
      // Shown turned clockwise: the page's left edge is at the top.
      return { width: height, height: width, matrix: [0, 1, -1, 0, x + width, y] };
    case 180:
      return { width, height, matrix: [-1, 0, 0, -1, x + width, y + height] };
    case 270:
      return { width: height, height: width, matrix: [0, -1, 1, 0, x, y + height] };
    default:
      return { width, height, matrix: [1, 0, 0, 1, x, y] };
  }
}

/** Starts drawing in display space; pair with `leaveDisplaySpace`. */
export function enterDisplaySpace(page: PDFPage, space: DisplaySpace): void {
  page.pushOperators(pushGraphicsState(), concatTransformationMatrix(...space.matrix));
}

export function leaveDisplaySpace(page: PDFPage): void {
  page.pushOperators(popGraphicsState());
}

/** A field box given from the top-left (template coordinates) as a display-space rectangle from the bottom-left. */
export function boxFromTop(
  space: DisplaySpace,
  field: { x: number; y: number; width: number; height: number },
): { x: number; y: number; width: number; height: number } {
  return { x: field.x, y: space.height - field.y - field.height, width: field.width, height: field.height };
}

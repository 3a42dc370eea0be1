// The template builder's geometry, in PDF points on the page as displayed (x to the right, y downwards from the
// top-left corner: the coordinates the server stores, docs/templates.md). Pure functions: keeping a box on its
// page, moving and resizing it, aligning and distributing several, and snapping a moved box to the page's and
// the other fields' edges and centres (the guides the builder draws). The pointer's movement itself comes from
// interactjs (in pixels); the builder divides it by the zoom before it reaches these.

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PageSize {
  width: number;
  height: number;
}

/** The smallest side of a field, in points. */
export const MIN_SIDE = 8;

/** Two decimals: what the builder stores (a hundredth of a point is far below what anyone sees). */
export function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The box kept on its page: at least MIN_SIDE on each side, no larger than the page, inside its edges. */
export function clampBox(box: Box, page: PageSize): Box {
  const width = Math.min(Math.max(box.width, MIN_SIDE), page.width);
  const height = Math.min(Math.max(box.height, MIN_SIDE), page.height);
  const x = Math.min(Math.max(box.x, 0), page.width - width);
  const y = Math.min(Math.max(box.y, 0), page.height - height);
  return { x: round(x), y: round(y), width: round(width), height: round(height) };
}

export function moveBox(box: Box, dx: number, dy: number, page: PageSize): Box {
  return clampBox({ ...box, x: box.x + dx, y: box.y + dy }, page);
}

/** Resizes from the bottom-right corner (the keyboard's resize): the top-left corner stays. */
export function resizeBox(box: Box, dWidth: number, dHeight: number, page: PageSize): Box {
  const width = Math.min(Math.max(box.width + dWidth, MIN_SIDE), page.width - box.x);
  const height = Math.min(Math.max(box.height + dHeight, MIN_SIDE), page.height - box.y);
  return clampBox({ ...box, width, height }, page);
}

export type AlignEdge = 'left' | 'center' | 'right' | 'top' | 'middle' | 'bottom';

/** The smallest box holding all of them. */
export function boundsOf(boxes: readonly Box[]): Box {
  const left = Math.min(...boxes.map((box) => box.x));
  const top = Math.min(...boxes.map((box) => box.y));
  const right = Math.max(...boxes.map((box) => box.x + box.width));
  const bottom = Math.max(...boxes.map((box) => box.y + box.height));
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** Each box lined up on an edge or centre of the selection's bounds (sizes unchanged). */
export function alignBoxes(boxes: readonly Box[], edge: AlignEdge): Box[] {
  if (boxes.length < 2) return boxes.map((box) => ({ ...box }));
  const bounds = boundsOf(boxes);
  return boxes.map((box) => {
    switch (edge) {
      case 'left':
        return { ...box, x: round(bounds.x) };
      case 'center':
        return { ...box, x: round(bounds.x + (bounds.width - box.width) / 2) };
      case 'right':
        return { ...box, x: round(bounds.x + bounds.width - box.width) };
      case 'top':
        return { ...box, y: round(bounds.y) };
      case 'middle':
        return { ...box, y: round(bounds.y + (bounds.height - box.height) / 2) };
      default:
        return { ...box, y: round(bounds.y + bounds.height - box.height) };
    }
  });
}

/**
 * Equal gaps between the boxes along an axis: the first and the last (by position) stay, the others move
 * between them in their order. Answers the boxes in the order given. Fewer than three: unchanged.
 */
export function distributeBoxes(boxes: readonly Box[], axis: 'horizontal' | 'vertical'): Box[] {
  const result = boxes.map((box) => ({ ...box }));
  if (boxes.length < 3) return result;
  const start = axis === 'horizontal' ? 'x' : 'y';
  const size = axis === 'horizontal' ? 'width' : 'height';
  const order = boxes
    .map((_, index) => index)
    .sort((a, b) => (boxes[a]?.[start] ?? 0) - (boxes[b]?.[start] ?? 0));
  const first = boxes[order[0] as number] as Box;
  const last = boxes[order[order.length - 1] as number] as Box;
  const span = last[start] + last[size] - first[start];
  const occupied = boxes.reduce((sum, box) => sum + box[size], 0);
  const gap = (span - occupied) / (boxes.length - 1);
  let position = first[start];
  for (const index of order) {
    const box = result[index] as Box;
    box[start] = round(position);
    position += box[size] + gap;
  }
  return result;
}

/** A guide the builder draws while a box snaps: a vertical line at `x`, or a horizontal one at `y`. */
export type Guide = { axis: 'x'; at: number } | { axis: 'y'; at: number };

/** Edges and centre of a box along an axis. */
function linesOf(box: Box, axis: 'x' | 'y'): number[] {
  return axis === 'x'
    ? [box.x, box.x + box.width / 2, box.x + box.width]
    : [box.y, box.y + box.height / 2, box.y + box.height];
}

/**
 * The moved box, pulled onto the nearest line within `threshold` points — an edge or the centre of the page
 * or of another box — on each axis, with the guides of the lines it snapped to.
 */
export function snapBox(
  box: Box,
  others: readonly Box[],
  page: PageSize,
  threshold: number,
): { box: Box; guides: Guide[] } {
  const pageBox: Box = { x: 0, y: 0, width: page.width, height: page.height };
  const targets = [pageBox, ...others];
  const guides: Guide[] = [];
  const snapped = { ...box };
  for (const axis of ['x', 'y'] as const) {
    let best: { delta: number; at: number } | undefined;
    for (const line of linesOf(box, axis)) {
      for (const target of targets) {
        for (const at of linesOf(target, axis)) {
          const delta = at - line;
          if (Math.abs(delta) <= threshold && (!best || Math.abs(delta) < Math.abs(best.delta))) {
            best = { delta, at };
          }
        }
      }
    }
    if (best) {
      snapped[axis] += best.delta;
      guides.push({ axis, at: round(best.at) });
    }
  }
  return { box: clampBox(snapped, page), guides };
}

/** Whether two boxes overlap (touching edges do not). */
export function intersects(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** The box between two corners, in either order. */
export function boxBetween(a: { x: number; y: number }, b: { x: number; y: number }): Box {
  return {
    x: Math.min(a.x, b.x),
    y: Math.min(a.y, b.y),
    width: Math.abs(a.x - b.x),
    height: Math.abs(a.y - b.y),
  };
}

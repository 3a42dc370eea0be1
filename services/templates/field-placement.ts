// Where a field sits and what it is (domain/template.ts, FieldPlacement): the part of a field every view of it
// and every copy of it shares, and the one check that it lies on its page. Coordinates are PDF points
// (1/72 inch) from the top-left corner of the page as displayed: its crop box, turned by its /Rotate
// (pdf/page-space.ts draws there; the upload inspection measures pages in the same space).
import type { FieldPlacement } from '../../domain/template.ts';
import type { PdfPageSize } from '../files/check-pdf.ts';

type Placement = Pick<FieldPlacement, 'type' | 'label' | 'page' | 'x' | 'y' | 'width' | 'height'>;

export function placementOf(field: Placement): Placement {
  return {
    type: field.type,
    label: field.label,
    page: field.page,
    x: field.x,
    y: field.y,
    width: field.width,
    height: field.height,
  };
}

/** An error detail (services/errors.ts, ErrorDetail) naming the field: `fields.<i>.<property>`. */
export type PlacementProblem = { field: string; message: string };

/**
 * Every field that is not on its page: a page the PDF does not have (`fields.<i>.page`), or a box that
 * leaves the page — `x` or `y` already beyond its edge, else `width` or `height` carrying the box past it.
 * `pages` are the sizes the upload inspection measured (inspectPdf). Used by template creation and by
 * envelopes created from an uploaded file, so both refuse the same fields with the same words.
 */
export function placementProblems(
  fields: readonly Pick<FieldPlacement, 'page' | 'x' | 'y' | 'width' | 'height'>[],
  pages: readonly PdfPageSize[],
): PlacementProblem[] {
  return fields.flatMap((field, index) => {
    const at = `fields.${index}`;
    const page = pages[field.page - 1];
    if (!page) {
      return [
        {
          field: `${at}.page`,
          message: `page ${field.page} does not exist: the PDF has ${pages.length} page(s)`,
        },
      ];
    }
    const size = `${points(page.width)} x ${points(page.height)} points`;
    const outside = `the field lies outside page ${field.page} (${size}, measured from its top-left corner)`;
    const problems: PlacementProblem[] = [];
    if (field.x >= page.width) {
      problems.push({ field: `${at}.x`, message: `${outside}: x must be less than ${points(page.width)}` });
    } else if (field.x + field.width > page.width) {
      problems.push({
        field: `${at}.width`,
        message: `${outside}: x + width is ${points(field.x + field.width)}, more than the page's width ${points(page.width)}`,
      });
    }
    if (field.y >= page.height) {
      problems.push({ field: `${at}.y`, message: `${outside}: y must be less than ${points(page.height)}` });
    } else if (field.y + field.height > page.height) {
      problems.push({
        field: `${at}.height`,
        message: `${outside}: y + height is ${points(field.y + field.height)}, more than the page's height ${points(page.height)}`,
      });
    }
    return problems;
  });
}

/** A length in points as a message shows it: at most two decimals. */
function points(value: number): string {
  return String(Number(value.toFixed(2)));
}

// Where a field sits and what it is (domain/template.ts, FieldPlacement): the part of a field every view of it
// and every copy of it shares.
import type { FieldPlacement } from '../../../domain/template.ts';

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

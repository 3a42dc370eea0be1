// What the pointer and the keyboard do on the builder's pages (BuilderPages.svelte; docs/templates.md), with what
// they draw over the pages while they act: the guides a moved box snaps to, the rubber band, and the outline of
// a new field under the pointer while a palette item is dragged over a page.
// - The pointer (interactjs): a field is selected with a tap (Shift, Ctrl or ⌘ adds it), moved — the selected
//   ones together, the one under the pointer snapping to the page's and the other fields' edges and centres —
//   and resized by its edges; a drag on a page's empty part draws a rubber band that selects the fields it
//   touches; a palette item dragged over a page shows the box the drop will make (builder.placedBox: its type's
//   size, its top-left corner at the pointer, kept on the page) and makes it where it is dropped.
// - The keyboard, on a focused field: Enter or Space selects it (Shift extends), the arrow keys move the
//   selection and Ctrl (or ⌘) with them resizes it (Shift: ten points), Delete removes it, Escape clears.
// Positions are PDF points from the page's top-left corner: the pointer's pixels divided by the zoom.
import type { Interactable, InteractEvent } from '@interactjs/types';
import interact from 'interactjs';
import type { FieldType } from '../../../../../domain/vocabulary.ts';
import type { BuilderField, TemplateBuilder } from './builder.svelte.ts';
import { type Box, boxBetween, clampBox, type Guide, intersects, snapBox } from './geometry.ts';

/** How close, in screen pixels, a moved box comes to a line before it snaps to it. */
const SNAP_PIXELS = 6;

export interface BuilderInputOptions {
  builder: TemplateBuilder;
  /** CSS pixels per point, now. */
  zoom: () => number;
  /** Whether fields may be placed, moved and resized (else only selected). */
  editable: boolean;
  /** A palette item dropped on a page at (x, y) points. */
  onadd: (type: FieldType, page: number, x: number, y: number) => void;
  /** A field was moved or resized (for the live region). */
  onchanged?: ((field: BuilderField) => void) | undefined;
}

/** The palette item a drop event carries: its field type. */
interface PaletteDrop {
  relatedTarget: HTMLElement;
  dragEvent: InteractEvent;
}

function boxOf(field: Box): Box {
  return { x: field.x, y: field.y, width: field.width, height: field.height };
}

export class BuilderInput {
  /** Guides of the box being moved, on its page. */
  guides = $state<{ page: number; lines: Guide[] }>({ page: 0, lines: [] });
  /** The rubber band being drawn, in points on its page. */
  band = $state<{ page: number; box: Box } | undefined>();
  /** Where a palette item dragged over a page would make its field. */
  preview = $state<{ page: number; type: FieldType; box: Box } | undefined>();

  readonly #options: BuilderInputOptions;
  /** Where a drag started: the boxes of the fields it moves, and how far the pointer went (pixels). */
  #dragging: { starts: Map<string, Box>; lead: string; dx: number; dy: number } | undefined;
  /** The box of the field being resized, unclamped (the edges may go past the page and come back). */
  #resizing: Box | undefined;

  constructor(options: BuilderInputOptions) {
    this.#options = options;
  }

  get #builder(): TemplateBuilder {
    return this.#options.builder;
  }

  #changed(key: string): void {
    const field = this.#builder.field(key);
    if (field) this.#options.onchanged?.(field);
  }

  /** The action of a field's box: selected with a tap; moved and resized when editable. */
  field = (element: HTMLElement, key: string) => {
    const builder = this.#builder;
    const interactable: Interactable = interact(element);
    interactable.on('tap', (event: PointerEvent) => {
      builder.select(key, event.shiftKey || event.ctrlKey || event.metaKey);
    });
    if (this.#options.editable) {
      interactable
        .draggable({
          listeners: {
            start: () => {
              if (!builder.selected.includes(key)) builder.select(key, false);
              const starts = new Map(builder.selection.map((field) => [field.key, boxOf(field)]));
              this.#dragging = { starts, lead: key, dx: 0, dy: 0 };
            },
            move: (event: InteractEvent) => this.#moveDragged(event),
            end: () => {
              this.#dragging = undefined;
              this.guides = { page: 0, lines: [] };
              builder.commit();
              this.#changed(key);
            },
          },
        })
        .resizable({
          edges: { left: true, right: true, top: true, bottom: true },
          margin: 6,
          listeners: {
            start: () => {
              builder.select(key, false);
              const field = builder.field(key);
              this.#resizing = field ? boxOf(field) : undefined;
            },
            // The edges' movement in pixels (deltaRect), added to the box as it was when the resize began: the
            // same whatever the page's or the area's scroll.
            move: (
              event: InteractEvent & {
                deltaRect?: { left: number; top: number; width: number; height: number };
              },
            ) => {
              const delta = event.deltaRect;
              const zoom = this.#options.zoom();
              if (!this.#resizing || !delta) return;
              this.#resizing = {
                x: this.#resizing.x + delta.left / zoom,
                y: this.#resizing.y + delta.top / zoom,
                width: this.#resizing.width + delta.width / zoom,
                height: this.#resizing.height + delta.height / zoom,
              };
              builder.setBox(key, this.#resizing, true);
            },
            end: () => {
              this.#resizing = undefined;
              builder.commit();
              this.#changed(key);
            },
          },
        });
    }
    return { destroy: () => interactable.unset() };
  };

  /** The selection follows the pointer; the field under it snaps, and the others move as far as it did. */
  #moveDragged(event: InteractEvent): void {
    const dragging = this.#dragging;
    if (!dragging) return;
    const builder = this.#builder;
    const zoom = this.#options.zoom();
    dragging.dx += event.dx;
    dragging.dy += event.dy;
    const lead = builder.field(dragging.lead);
    const start = dragging.starts.get(dragging.lead);
    if (!lead || !start) return;
    const page = builder.pageSize(lead.page);
    const proposed = clampBox(
      { ...start, x: start.x + dragging.dx / zoom, y: start.y + dragging.dy / zoom },
      page,
    );
    const others = builder.fields
      .filter((field) => field.page === lead.page && !dragging.starts.has(field.key))
      .map(boxOf);
    const snapped = snapBox(proposed, others, page, SNAP_PIXELS / zoom);
    this.guides = { page: lead.page, lines: snapped.guides };
    const dx = snapped.box.x - start.x;
    const dy = snapped.box.y - start.y;
    for (const [fieldKey, box] of dragging.starts) {
      builder.setBox(fieldKey, { ...box, x: box.x + dx, y: box.y + dy }, true);
    }
  }

  /** The action of a page's surface: palette items drop on it; a drag on its empty part draws a rubber band. */
  page = (element: HTMLElement, page: number) => {
    const builder = this.#builder;
    const interactable: Interactable = interact(element);
    let anchor: { x: number; y: number } | undefined;
    let extend = false;
    const pointOf = (client: { x: number; y: number }) => {
      const origin = element.getBoundingClientRect();
      const zoom = this.#options.zoom();
      return { x: (client.x - origin.left) / zoom, y: (client.y - origin.top) / zoom };
    };
    const typeOf = (event: PaletteDrop) => event.relatedTarget.dataset.type as FieldType | undefined;
    const show = (event: PaletteDrop) => {
      const type = typeOf(event);
      if (!type) return;
      const point = pointOf(event.dragEvent.client);
      this.preview = { page, type, box: builder.placedBox(type, page, point.x, point.y) };
    };
    const hide = () => {
      if (this.preview?.page === page) this.preview = undefined;
    };
    interactable.on('tap', (event: PointerEvent) => {
      if (event.target === element || (event.target as HTMLElement).tagName === 'CANVAS')
        builder.selected = [];
    });
    if (this.#options.editable) {
      interactable
        .dropzone({
          accept: '.palette-item',
          overlap: 'pointer',
          ondragenter: show,
          ondropmove: show,
          ondragleave: hide,
          ondropdeactivate: hide,
          ondrop: (event: PaletteDrop) => {
            hide();
            const type = typeOf(event);
            if (!type) return;
            const point = pointOf(event.dragEvent.client);
            this.#options.onadd(type, page, point.x, point.y);
          },
        })
        .draggable({
          listeners: {
            start: (event: InteractEvent) => {
              anchor = pointOf(event.client);
              extend = event.shiftKey || event.ctrlKey || event.metaKey;
              this.band = { page, box: { ...anchor, width: 0, height: 0 } };
            },
            move: (event: InteractEvent) => {
              if (anchor) this.band = { page, box: boxBetween(anchor, pointOf(event.client)) };
            },
            end: () => {
              const drawn = this.band?.box;
              this.band = undefined;
              anchor = undefined;
              if (!drawn) return;
              const touched = builder.fields
                .filter((field) => field.page === page && intersects(field, drawn))
                .map((field) => field.key);
              builder.selected = extend ? [...new Set([...builder.selected, ...touched])] : touched;
            },
          },
        });
    }
    return { destroy: () => interactable.unset() };
  };

  /** The keyboard on a focused field. */
  keydown(event: KeyboardEvent, field: BuilderField): void {
    const builder = this.#builder;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      builder.select(field.key, event.shiftKey);
      return;
    }
    if (event.key === 'Escape') {
      builder.selected = [];
      return;
    }
    if (!this.#options.editable) return;
    const arrows: Record<string, [number, number]> = {
      ArrowLeft: [-1, 0],
      ArrowRight: [1, 0],
      ArrowUp: [0, -1],
      ArrowDown: [0, 1],
    };
    const arrow = arrows[event.key];
    if (arrow) {
      event.preventDefault();
      if (!builder.selected.includes(field.key)) builder.select(field.key, false);
      const step = event.shiftKey ? 10 : 1;
      if (event.ctrlKey || event.metaKey) builder.resizeSelected(arrow[0] * step, arrow[1] * step);
      else builder.moveSelected(arrow[0] * step, arrow[1] * step);
      this.#changed(field.key);
      return;
    }
    if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      if (!builder.selected.includes(field.key)) builder.select(field.key, false);
      builder.deleteSelected();
    }
  }
}

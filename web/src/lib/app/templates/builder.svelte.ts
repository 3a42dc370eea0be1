// The template builder's document (docs/templates.md): a version's roles and fields as the page edits them,
// the selection, and undo/redo. Every change the person finishes (a drop, a move by keyboard, a value typed
// and left) is one step of the history; while a drag runs the boxes change without steps, and its end makes
// one. Fields and roles carry a key of the page's own (the server gives new field ids at every save of a
// draft), and the saved state is kept to tell whether anything is unsaved.
import type { z } from 'zod';
import type { FieldProperties } from '../../../../../domain/template.ts';
import type * as builder from '../../../../../domain/template-builder.ts';
import type { FieldType, RecipientType } from '../../../../../domain/vocabulary.ts';
import {
  type AlignEdge,
  alignBoxes,
  type Box,
  clampBox,
  distributeBoxes,
  moveBox,
  type PageSize,
  resizeBox,
} from './geometry.ts';

export type TemplateDetail = z.output<typeof builder.TemplateDetail>;
export type TemplateList = z.output<typeof builder.TemplateList>;
export type TemplateSummary = z.output<typeof builder.TemplateSummary>;
export type SaveTemplateDefinitionRequest = z.input<typeof builder.SaveTemplateDefinitionRequest>;
export type { FieldProperties };

export interface BuilderRole {
  key: string;
  name: string;
  required: boolean;
  defaultRecipientType: RecipientType;
  signingOrder: number;
}

export interface BuilderField extends Box {
  key: string;
  type: FieldType;
  /** The key of its role. */
  role: string;
  label: string;
  page: number;
  required: boolean;
  options: string[];
  properties: FieldProperties;
}

/** A new field's size in points, by type: room for what a signer puts there. */
export const DEFAULT_SIZES: Record<FieldType, { width: number; height: number }> = {
  Signature: { width: 160, height: 48 },
  Initials: { width: 64, height: 36 },
  'Full name': { width: 160, height: 22 },
  Text: { width: 160, height: 22 },
  'Long text': { width: 220, height: 80 },
  Date: { width: 100, height: 22 },
  Email: { width: 180, height: 22 },
  Phone: { width: 130, height: 22 },
  'ID number': { width: 110, height: 22 },
  Checkbox: { width: 18, height: 18 },
  Radio: { width: 120, height: 60 },
  Dropdown: { width: 140, height: 22 },
  'Read-only text': { width: 220, height: 60 },
  'File upload': { width: 160, height: 40 },
  'Image upload': { width: 120, height: 90 },
  'Company stamp': { width: 100, height: 100 },
};

/** Types a signer's act of signing fills: required when placed. */
const REQUIRED_WHEN_PLACED: readonly FieldType[] = ['Signature', 'Initials', 'Company stamp'];

/** The history keeps this many steps. */
const HISTORY_LIMIT = 200;

interface Snapshot {
  roles: BuilderRole[];
  fields: BuilderField[];
}

let counter = 0;
function nextKey(prefix: string): string {
  counter += 1;
  return `${prefix}${counter}`;
}

function copyOf<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export class TemplateBuilder {
  roles = $state<BuilderRole[]>([]);
  fields = $state<BuilderField[]>([]);
  /** Keys of the selected fields. */
  selected = $state<string[]>([]);
  /** The key of the role new fields go to. */
  activeRole = $state('');
  pages = $state<PageSize[]>([]);
  canUndo = $state(false);
  canRedo = $state(false);

  private past: string[] = [];
  private present = '';
  private future: string[] = [];
  private saved = $state('');
  /** A change is being made (a value typed, a drag) that is not a step yet. */
  private pending = false;

  /** Whether the document differs from what the server holds. */
  readonly dirty = $derived(this.serialized() !== this.saved);

  /** Loads a version from the server; the history starts again. */
  load(detail: TemplateDetail): void {
    const roles = detail.roles.map((role) => ({ key: nextKey('r'), ...role }));
    const keyOf = new Map(roles.map((role) => [role.name, role.key]));
    this.roles = roles;
    this.fields = detail.fields.map((field) => ({
      key: nextKey('f'),
      type: field.type,
      role: keyOf.get(field.role) ?? '',
      label: field.label,
      page: field.page,
      x: field.x,
      y: field.y,
      width: field.width,
      height: field.height,
      required: field.required,
      options: [...field.options],
      properties: copyOf(field.properties),
    }));
    this.pages = detail.pages.map((page) => ({ ...page }));
    this.selected = [];
    this.activeRole = roles[0]?.key ?? '';
    this.past = [];
    this.future = [];
    this.present = this.serialized();
    this.saved = this.present;
    this.pending = false;
    this.updateFlags();
  }

  /** After a save: what the server holds now is this document (field ids changed, keys did not). */
  markSaved(): void {
    this.commit();
    this.saved = this.serialized();
  }

  serialized(): string {
    return JSON.stringify({ roles: this.roles, fields: this.fields } satisfies Snapshot);
  }

  /** The request that saves the document: roles and fields by role name, in order. */
  definition(): SaveTemplateDefinitionRequest {
    const names = new Map(this.roles.map((role) => [role.key, role.name.trim()]));
    return {
      roles: this.roles.map((role) => ({
        name: role.name.trim(),
        required: role.required,
        defaultRecipientType: role.defaultRecipientType,
        signingOrder: role.signingOrder,
      })),
      fields: this.fields.map((field) => ({
        type: field.type,
        role: names.get(field.role) ?? '',
        label: field.label.trim(),
        page: field.page,
        x: field.x,
        y: field.y,
        width: field.width,
        height: field.height,
        required: field.required,
        ...(field.options.length > 0 ? { options: field.options } : {}),
        ...(Object.keys(field.properties).length > 0 ? { properties: propertiesOf(field.properties) } : {}),
      })),
    };
  }

  // ---- History ----------------------------------------------------------------------------------------------

  /** A change has started that will become a step when it ends (`commit`). */
  touch(): void {
    this.pending = true;
    this.canUndo = true;
  }

  /** Makes the changes since the last step one step of the history. */
  commit(): void {
    this.pending = false;
    const now = this.serialized();
    if (now !== this.present) {
      this.past.push(this.present);
      if (this.past.length > HISTORY_LIMIT) this.past.shift();
      this.present = now;
      this.future = [];
    }
    this.updateFlags();
  }

  undo(): void {
    this.commit();
    const previous = this.past.pop();
    if (previous === undefined) return;
    this.future.push(this.present);
    this.restore(previous);
  }

  redo(): void {
    this.commit();
    const next = this.future.pop();
    if (next === undefined) return;
    this.past.push(this.present);
    this.restore(next);
  }

  private restore(state: string): void {
    const snapshot = JSON.parse(state) as Snapshot;
    this.roles = snapshot.roles;
    this.fields = snapshot.fields;
    this.present = state;
    const keys = new Set(this.fields.map((field) => field.key));
    this.selected = this.selected.filter((key) => keys.has(key));
    if (!this.roles.some((role) => role.key === this.activeRole)) this.activeRole = this.roles[0]?.key ?? '';
    this.updateFlags();
  }

  private updateFlags(): void {
    this.canUndo = this.past.length > 0 || this.pending;
    this.canRedo = this.future.length > 0;
  }

  // ---- Roles ------------------------------------------------------------------------------------------------

  addRole(name: string): BuilderRole {
    const role: BuilderRole = {
      key: nextKey('r'),
      name,
      required: true,
      defaultRecipientType: 'Signer',
      signingOrder: Math.max(0, ...this.roles.map((existing) => existing.signingOrder)) + 1,
    };
    this.roles = [...this.roles, role];
    if (!this.activeRole) this.activeRole = role.key;
    this.commit();
    return role;
  }

  /** Removes a role and its fields. */
  removeRole(key: string): void {
    this.roles = this.roles.filter((role) => role.key !== key);
    this.fields = this.fields.filter((field) => field.role !== key);
    this.selected = this.selected.filter((selected) => this.fields.some((field) => field.key === selected));
    if (this.activeRole === key) this.activeRole = this.roles[0]?.key ?? '';
    this.commit();
  }

  moveRole(key: string, by: -1 | 1): void {
    const index = this.roles.findIndex((role) => role.key === key);
    const target = index + by;
    if (index < 0 || target < 0 || target >= this.roles.length) return;
    const roles = [...this.roles];
    [roles[index], roles[target]] = [roles[target] as BuilderRole, roles[index] as BuilderRole];
    this.roles = roles;
    this.commit();
  }

  roleOf(field: BuilderField): BuilderRole | undefined {
    return this.roles.find((role) => role.key === field.role);
  }

  // ---- Fields -----------------------------------------------------------------------------------------------

  field(key: string): BuilderField | undefined {
    return this.fields.find((field) => field.key === key);
  }

  get selection(): BuilderField[] {
    return this.fields.filter((field) => this.selected.includes(field.key));
  }

  /** Places a new field of the type for the active role, its top-left corner at (x, y) on the page. */
  addField(type: FieldType, page: number, x: number, y: number, label: string): BuilderField {
    const size = DEFAULT_SIZES[type];
    const box = clampBox({ x, y, ...size }, this.pageSize(page));
    const field: BuilderField = {
      key: nextKey('f'),
      type,
      role: this.activeRole,
      label,
      page,
      ...box,
      required: REQUIRED_WHEN_PLACED.includes(type),
      options: [],
      properties: {},
    };
    this.fields = [...this.fields, field];
    this.selected = [field.key];
    this.commit();
    return field;
  }

  pageSize(page: number): PageSize {
    return this.pages[page - 1] ?? { width: 612, height: 792 };
  }

  select(key: string, extend: boolean): void {
    if (!extend) {
      this.selected = [key];
      return;
    }
    this.selected = this.selected.includes(key)
      ? this.selected.filter((selected) => selected !== key)
      : [...this.selected, key];
  }

  /** Moves the selected fields (each kept on its page); a step unless `live` (a drag that goes on). */
  moveSelected(dx: number, dy: number, live = false): void {
    this.fields = this.fields.map((field) =>
      this.selected.includes(field.key)
        ? { ...field, ...moveBox(field, dx, dy, this.pageSize(field.page)) }
        : field,
    );
    if (live) this.touch();
    else this.commit();
  }

  resizeSelected(dWidth: number, dHeight: number): void {
    this.fields = this.fields.map((field) =>
      this.selected.includes(field.key)
        ? { ...field, ...resizeBox(field, dWidth, dHeight, this.pageSize(field.page)) }
        : field,
    );
    this.commit();
  }

  /** Sets a field's box (numbers typed, a drag or resize of the pointer), kept on its page. */
  setBox(key: string, box: Box, live = false): void {
    this.fields = this.fields.map((field) =>
      field.key === key ? { ...field, ...clampBox(box, this.pageSize(field.page)) } : field,
    );
    if (live) this.touch();
    else this.commit();
  }

  /** Changes a field's other settings; `live` while typing (the step comes with `commit` on leaving). */
  update(key: string, changes: Partial<Omit<BuilderField, 'key'>>, live = false): void {
    this.fields = this.fields.map((field) => (field.key === key ? { ...field, ...changes } : field));
    if (live) this.touch();
    else this.commit();
  }

  updateRole(key: string, changes: Partial<Omit<BuilderRole, 'key'>>, live = false): void {
    this.roles = this.roles.map((role) => (role.key === key ? { ...role, ...changes } : role));
    if (live) this.touch();
    else this.commit();
  }

  deleteSelected(): void {
    if (this.selected.length === 0) return;
    this.fields = this.fields.filter((field) => !this.selected.includes(field.key));
    this.selected = [];
    this.commit();
  }

  align(edge: AlignEdge): void {
    this.arrange((boxes) => alignBoxes(boxes, edge));
  }

  distribute(axis: 'horizontal' | 'vertical'): void {
    this.arrange((boxes) => distributeBoxes(boxes, axis));
  }

  /** Aligns or distributes the selected fields of each page among themselves. */
  private arrange(change: (boxes: Box[]) => Box[]): void {
    const byPage = new Map<number, BuilderField[]>();
    for (const field of this.selection) byPage.set(field.page, [...(byPage.get(field.page) ?? []), field]);
    const changed = new Map<string, Box>();
    for (const [page, fields] of byPage) {
      const boxes = change(fields.map(({ x, y, width, height }) => ({ x, y, width, height })));
      fields.forEach((field, index) => {
        const box = boxes[index];
        if (box) changed.set(field.key, clampBox(box, this.pageSize(page)));
      });
    }
    this.fields = this.fields.map((field) => {
      const box = changed.get(field.key);
      return box ? { ...field, ...box } : field;
    });
    this.commit();
  }

  /** Copies the selected fields to other pages, at the same place (kept on the page); selects the copies. */
  copySelectedTo(pages: readonly number[]): BuilderField[] {
    const copies: BuilderField[] = [];
    for (const field of this.selection) {
      for (const page of pages) {
        if (page === field.page) continue;
        const box = clampBox(field, this.pageSize(page));
        copies.push({ ...copyOf(field), ...box, key: nextKey('f'), page });
      }
    }
    if (copies.length === 0) return copies;
    this.fields = [...this.fields, ...copies];
    this.selected = copies.map((copy) => copy.key);
    this.commit();
    return copies;
  }
}

/** The properties with their empty values left out (an empty list, a blank text). */
function propertiesOf(properties: FieldProperties): FieldProperties {
  return Object.fromEntries(
    Object.entries(properties).filter(
      ([, value]) => value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0),
    ),
  ) as FieldProperties;
}

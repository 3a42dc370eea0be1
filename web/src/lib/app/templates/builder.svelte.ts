// The template builder's document (docs/templates.md): a version's roles and fields as the page edits them,
// the selection, and undo/redo. Every change the person finishes (a drop, a move by keyboard, a value typed
// and left) is one step of the history; while a drag runs the boxes change without steps, and its end makes
// one. Fields and roles carry a key of the page's own (the server gives new field ids at every save of a
// draft), and the saved state is kept to tell whether anything is unsaved.
import type { FieldType } from '../../../../../domain/vocabulary.ts';
import {
  type BuilderField,
  type BuilderRole,
  copyOf,
  DEFAULT_SIZES,
  definitionOf,
  documentOf,
  nextKey,
  REQUIRED_WHEN_PLACED,
  type SaveTemplateDefinitionRequest,
  type TemplateDetail,
} from './document.ts';
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
import { History } from './history.ts';

export type {
  BuilderField,
  BuilderRole,
  FieldProperties,
  SaveTemplateDefinitionRequest,
  TemplateDetail,
  TemplateList,
  TemplateSummary,
} from './document.ts';
export { DEFAULT_SIZES } from './document.ts';

/** The history keeps this many steps. */
const HISTORY_LIMIT = 200;

interface Snapshot {
  roles: BuilderRole[];
  fields: BuilderField[];
  allowDelegation: boolean;
}

export class TemplateBuilder {
  roles = $state<BuilderRole[]>([]);
  fields = $state<BuilderField[]>([]);
  /** Whether recipients of envelopes sent from the template may hand their part to another person. */
  allowDelegation = $state(false);
  /** Keys of the selected fields. */
  selected = $state<string[]>([]);
  /** The key of the role new fields go to. */
  activeRole = $state('');
  pages = $state<PageSize[]>([]);
  canUndo = $state(false);
  canRedo = $state(false);

  private history = new History(HISTORY_LIMIT);
  private saved = $state('');
  /** A change is being made (a value typed, a drag) that is not a step yet. */
  private pending = false;

  /** Whether the document differs from what the server holds. */
  readonly dirty = $derived(this.serialized() !== this.saved);

  /** Loads a version from the server; the history starts again. */
  load(detail: TemplateDetail): void {
    const { roles, fields } = documentOf(detail);
    this.roles = roles;
    this.fields = fields;
    // A one-off send's document (send/one-off.svelte.ts) is not a template's: it carries no choice.
    this.allowDelegation = detail.allowDelegation === true;
    this.pages = detail.pages.map((page) => ({ ...page }));
    this.selected = [];
    this.activeRole = roles[0]?.key ?? '';
    this.saved = this.serialized();
    this.history.reset(this.saved);
    this.pending = false;
    this.updateFlags();
  }

  /** After a save: what the server holds now is this document (field ids changed, keys did not). */
  markSaved(): void {
    this.commit();
    this.saved = this.serialized();
  }

  serialized(): string {
    return JSON.stringify({
      roles: this.roles,
      fields: this.fields,
      allowDelegation: this.allowDelegation,
    } satisfies Snapshot);
  }

  /** The request that saves the document: roles and fields by role name, in order, and the delegation choice. */
  definition(): SaveTemplateDefinitionRequest {
    return { ...definitionOf(this.roles, this.fields), allowDelegation: this.allowDelegation };
  }

  /** Allows or forbids delegation: one step of the history. */
  setAllowDelegation(allow: boolean): void {
    this.allowDelegation = allow;
    this.commit();
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
    this.history.record(this.serialized());
    this.updateFlags();
  }

  undo(): void {
    this.commit();
    const previous = this.history.undo();
    if (previous !== undefined) this.restore(previous);
  }

  redo(): void {
    this.commit();
    const next = this.history.redo();
    if (next !== undefined) this.restore(next);
  }

  private restore(state: string): void {
    const snapshot = JSON.parse(state) as Snapshot;
    this.roles = snapshot.roles;
    this.fields = snapshot.fields;
    this.allowDelegation = snapshot.allowDelegation;
    const keys = new Set(this.fields.map((field) => field.key));
    this.selected = this.selected.filter((key) => keys.has(key));
    if (!this.roles.some((role) => role.key === this.activeRole)) this.activeRole = this.roles[0]?.key ?? '';
    this.updateFlags();
  }

  private updateFlags(): void {
    this.canUndo = this.history.canUndo || this.pending;
    this.canRedo = this.history.canRedo;
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

  /**
   * Where a new field of the type goes when placed at (x, y) on the page: its top-left corner there, its type's
   * size, kept on the page — what a drop makes, and the outline the page shows under the pointer before it.
   */
  placedBox(type: FieldType, page: number, x: number, y: number): Box {
    return clampBox({ x, y, ...DEFAULT_SIZES[type] }, this.pageSize(page));
  }

  /** Places a new field of the type for the active role, its top-left corner at (x, y) on the page. */
  addField(type: FieldType, page: number, x: number, y: number, label: string): BuilderField {
    const box = this.placedBox(type, page, x, y);
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

// A form's submission in one place (web/README.md, "Field errors"): the page's own checks first, then the call;
// a refusal's fields beside their inputs in the page's language (shared/field-errors.ts) and its words above the
// form (FormAlert), or the page's own words for a refusal it knows (a conflict naming a field); the focus on the
// first refused input, else on the refusal. Inputs are `<id>-<field>` and the refusal `<id>-error`, as
// FormField and FormAlert draw them.
import { tick } from 'svelte';
import { get } from 'svelte/store';
import { format } from 'svelte-i18n';
import { type FieldMessages, fieldErrors, formRefusal } from '../shared/field-errors.ts';

export interface FormOptions {
  /** The form's id: its inputs are `<id>-<field>`, its refusal `<id>-error`. */
  id: string;
  /** The fields the form shows, in order, as the server names them (`tags` also shows `tags.3`'s refusal). */
  fields: readonly string[];
  /** Sends the visitor away on a session answer (the area's `follow`); true: nothing more to show. */
  follow: (error: unknown) => boolean;
  /** The page's words for its own rules (`{ host: { invalid_format: 'webhooks.hostForm' } }`). */
  messages?: FieldMessages;
}

/** A refusal the page says in words of its own: beside a field, or above the form. */
export type OwnRefusal = { field?: string; message: string } | undefined;

export class FormState {
  errors = $state<Record<string, string>>({});
  refusal = $state('');
  busy = $state(false);
  readonly #options: FormOptions;

  constructor(options: FormOptions) {
    this.#options = options;
  }

  /** The form's id: its inputs are `<id>-<field>`, its refusal `<id>-error`. */
  get id(): string {
    return this.#options.id;
  }

  /**
   * What a card says above the form (AuthCard's refusal): the refusal, or, when only the page's own checks
   * refused, that the fields beside it need attention.
   */
  get summary(): string {
    if (this.refusal) return this.refusal;
    return Object.keys(this.errors).length > 0 ? get(format)('account.fixErrors') : '';
  }

  /**
   * A field's input id (`<id>-<field>`, where the focus goes when it is refused) and its error, to spread on the
   * field's component: `<EmailField {...form.field('email')} bind:value={email} />`.
   */
  field(name: string): { id: string; error: string | undefined } {
    return { id: `${this.#options.id}-${name}`, error: this.errors[name] };
  }

  /** A new start (the dialog opens again). */
  reset(): void {
    this.errors = {};
    this.refusal = '';
  }

  /** A field's refusal goes as soon as it is edited (the form checks it again when sent). */
  edited(...fields: string[]): void {
    this.errors = Object.fromEntries(Object.entries(this.errors).filter(([name]) => !fields.includes(name)));
  }

  /** The form's field a refused one shows beside: itself (`retention.deletedDays`), or the one it is part of. */
  #shown(field: string): string | undefined {
    return this.#options.fields.find((name) => field === name || field.startsWith(`${name}.`));
  }

  /**
   * Submits: `check` gives the page's own refusals by field (none: the form is sent); `send` calls the server
   * and finishes (closes the dialog, announces). A failure becomes the fields' and the form's refusal (`own`
   * first: the page's words for a refusal it knows). True when sent.
   */
  async submit(
    check: () => Record<string, string>,
    send: () => Promise<void>,
    own?: (error: unknown) => OwnRefusal,
  ): Promise<boolean> {
    this.refusal = '';
    this.errors = check();
    if (Object.keys(this.errors).length === 0) {
      this.busy = true;
      try {
        await send();
        return true;
      } catch (error) {
        if (this.#options.follow(error)) return false;
        this.#refused(error, own?.(error));
      } finally {
        this.busy = false;
      }
    }
    await this.focus();
    return false;
  }

  #refused(error: unknown, own: OwnRefusal): void {
    if (own?.field) {
      this.errors = { [own.field]: own.message };
      this.refusal = get(format)('account.fixErrors');
      return;
    }
    this.errors = fieldErrors(error, {
      id: (field) => this.#shown(field),
      ...(this.#options.messages ? { messages: this.#options.messages } : {}),
    });
    this.refusal = own?.message ?? formRefusal(error, (field) => this.#shown(field) !== undefined);
  }

  /** The focus on the first refused input, else on the form's refusal. */
  async focus(): Promise<void> {
    await tick();
    const { id, fields } = this.#options;
    const first = fields.find((field) => this.errors[field]);
    document.getElementById(first ? `${id}-${first}` : `${id}-error`)?.focus();
  }
}

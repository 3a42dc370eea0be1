// The signer's values and their saving: every change is saved on its own after a short pause (at once for a
// choice, a signature or a file), one request at a time, with a state the page shows — Saving…, Saved, or
// Could not save with Retry. There is no Save button anywhere. A value the server refuses keeps its message
// beside its field; the others are saved again without it (a save is all or nothing). A link that changed state
// meanwhile (cancelled, expired, a session that ended: 409, 403) asks the page to read the link again.
import {
  choosePersonalStamp,
  fetchPersonalStamps,
  type PersonalStampOffer,
  SigningError,
  type SigningView,
  saveSigningValues,
} from './signing.ts';

const SAVE_PAUSE_MS = 600;
/** After a failure that was not a refusal (the network), the next attempt waits longer. */
const RETRY_PAUSE_MS = 3000;

export type SaveStatus = 'idle' | 'saving' | 'saved' | 'failed';

export class SignerForm {
  values = $state<Record<string, unknown>>({});
  errors = $state<Record<string, string>>({});
  status = $state<SaveStatus>('idle');
  /** The counts and list of required fields, as the last answer said. */
  awaitingCount = $state(0);
  requiredFields = $state<SigningView['requiredFields']>([]);
  recipientStatus = $state<SigningView['recipient']['status']>('Pending');
  personalStamps = $state<PersonalStampOffer[]>([]);

  readonly #token: string;
  readonly #reload: () => Promise<void>;
  readonly #words: { gone: () => string; network: () => string };
  readonly #pending = new Map<string, unknown>();
  /** What the server holds for each field, so an unchanged value (a blur) is not saved again. */
  readonly #stored = new Map<string, unknown>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inFlight: Promise<void> | undefined;

  constructor(
    token: string,
    view: SigningView,
    personalStamps: PersonalStampOffer[],
    reload: () => Promise<void>,
    /** The messages of a stamp that is gone and of a failed connection, in the page's language when said. */
    words: { gone: () => string; network: () => string },
  ) {
    this.#token = token;
    this.#reload = reload;
    this.#words = words;
    this.personalStamps = personalStamps;
    for (const field of view.fields) {
      this.values[field.fieldDefinitionId] = field.value;
      this.#stored.set(field.fieldDefinitionId, field.value ?? null);
    }
    this.#take(view);
  }

  #take(view: SigningView): void {
    this.awaitingCount = view.awaitingCount;
    this.requiredFields = view.requiredFields;
    this.recipientStatus = view.recipient.status;
  }

  /** A new value; `immediately`: a choice or a file, saved without waiting for more typing. */
  change(fieldId: string, value: unknown, immediately: boolean): void {
    const next = value === '' ? null : value;
    this.values[fieldId] = value;
    if (!this.#pending.has(fieldId) && this.#stored.get(fieldId) === next && !this.errors[fieldId]) {
      if (immediately) void this.flush();
      return;
    }
    this.#pending.set(fieldId, next);
    clearTimeout(this.#timer);
    if (immediately) void this.flush();
    else this.#timer = setTimeout(() => void this.flush(), SAVE_PAUSE_MS);
  }

  /** A value the page itself refuses before sending (a date that is not one): said beside the field. */
  refuse(fieldId: string, message: string | undefined): void {
    if (message) this.errors[fieldId] = message;
    else delete this.errors[fieldId];
  }

  /** Saves what changed; one request at a time. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    while (this.#inFlight) await this.#inFlight;
    if (this.#pending.size === 0) return;
    const items = [...this.#pending].map(([fieldDefinitionId, value]) => ({ fieldDefinitionId, value }));
    this.#pending.clear();
    this.status = 'saving';
    const run = this.#save(items);
    this.#inFlight = run.then(() => undefined);
    const saved = await run;
    this.#inFlight = undefined;
    if (this.#pending.size > 0 && saved) await this.flush();
    else if (this.#pending.size > 0) this.#timer = setTimeout(() => void this.flush(), RETRY_PAUSE_MS);
  }

  /** Retry after a failure: everything not saved is sent again now. */
  retry(): Promise<void> {
    return this.flush();
  }

  async #save(items: { fieldDefinitionId: string; value: unknown }[]): Promise<boolean> {
    try {
      const next = await saveSigningValues(this.#token, items);
      for (const item of items) {
        delete this.errors[item.fieldDefinitionId];
        this.#stored.set(item.fieldDefinitionId, item.value);
      }
      this.#take(next);
      this.status = this.#pending.size > 0 ? 'saving' : this.hasErrors ? 'failed' : 'saved';
      return true;
    } catch (error) {
      this.status = 'failed';
      if (error instanceof SigningError && error.status === 400) {
        const refused = new Set<number>();
        for (const detail of error.details) {
          const match = /^values\.(\d+)\./.exec(detail.field ?? '');
          const item = match ? items[Number(match[1])] : undefined;
          if (!item) continue;
          refused.add(Number(match?.[1]));
          this.errors[item.fieldDefinitionId] = detail.message ?? error.message;
        }
        // The values that were fine are saved again without the refused ones.
        items.forEach((item, index) => {
          if (!refused.has(index) && !this.#pending.has(item.fieldDefinitionId))
            this.#pending.set(item.fieldDefinitionId, item.value);
        });
      } else if (error instanceof SigningError && (error.status === 409 || error.status === 403)) {
        await this.#reload();
      } else {
        for (const item of items) {
          if (!this.#pending.has(item.fieldDefinitionId))
            this.#pending.set(item.fieldDefinitionId, item.value);
        }
      }
      return false;
    }
  }

  get hasErrors(): boolean {
    return Object.keys(this.errors).length > 0;
  }

  /** Puts one of the signer's personal stamps into a Company stamp field (after the saves waiting). */
  async useStamp(fieldId: string, stampId: string): Promise<void> {
    await this.flush();
    this.status = 'saving';
    try {
      const next = await choosePersonalStamp(this.#token, fieldId, stampId);
      const value = next.fields.find((field) => field.fieldDefinitionId === fieldId)?.value ?? null;
      this.values[fieldId] = value;
      this.#stored.set(fieldId, value);
      delete this.errors[fieldId];
      this.#take(next);
      this.status = this.hasErrors ? 'failed' : 'saved';
    } catch (error) {
      this.status = 'failed';
      if (error instanceof SigningError && (error.status === 409 || error.status === 403)) {
        await this.#reload();
      } else if (error instanceof SigningError && error.status === 404) {
        // Deleted meanwhile, or the session is no longer the recipient's: the offer is asked again.
        this.errors[fieldId] = this.#words.gone();
        this.personalStamps = await fetchPersonalStamps(this.#token);
      } else {
        this.errors[fieldId] = this.#words.network();
      }
    }
  }

  /** Whether a field holds a value (what the guided path and the list say). */
  filled(fieldId: string): boolean {
    const value = this.values[fieldId];
    return value !== undefined && value !== null && value !== '' && value !== false;
  }

  stop(): void {
    clearTimeout(this.#timer);
  }
}

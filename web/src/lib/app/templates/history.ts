// The builder's undo and redo (builder.svelte.ts): the document's states, each a JSON string, as three stacks —
// the steps before, the present, the steps undone — the oldest dropped past `limit`. A new step clears what
// was undone.
export class History {
  #past: string[] = [];
  #present = '';
  #future: string[] = [];
  readonly #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Starts again from `state` (a document loaded). */
  reset(state: string): void {
    this.#past = [];
    this.#future = [];
    this.#present = state;
  }

  /** Makes `state` the present, one step after the last, if it differs from it. */
  record(state: string): void {
    if (state === this.#present) return;
    this.#past.push(this.#present);
    if (this.#past.length > this.#limit) this.#past.shift();
    this.#present = state;
    this.#future = [];
  }

  /** The state one step back (now the present), or undefined at the first. */
  undo(): string | undefined {
    return this.#step(this.#past, this.#future);
  }

  /** The state one step forward again, or undefined when nothing was undone. */
  redo(): string | undefined {
    return this.#step(this.#future, this.#past);
  }

  /** Takes the last state of `from` as the present, the present going onto `to`. */
  #step(from: string[], to: string[]): string | undefined {
    const state = from.pop();
    if (state === undefined) return undefined;
    to.push(this.#present);
    this.#present = state;
    return state;
  }

  get canUndo(): boolean {
    return this.#past.length > 0;
  }

  get canRedo(): boolean {
    return this.#future.length > 0;
  }
}

// Who is signed in to an area (the business app's `auth.me`, the backoffice's `backofficeAdmins.me`), loaded by
// the area's signed-in layout and read by its pages. Reactive (Svelte runes), one per tab and area.
export class SignedIn<Me> {
  /** What the area's `me` call said; null until loaded or after signing out. */
  me = $state<Me | null>(null);
  readonly #read: (signal?: AbortSignal) => Promise<Me>;

  /** `read`: the area's `me` call. */
  constructor(read: (signal?: AbortSignal) => Promise<Me>) {
    this.#read = read;
  }

  /** Loads `me` again (a failed call rejects: the caller decides what it means). */
  async refresh(signal?: AbortSignal): Promise<Me> {
    const me = await this.#read(signal);
    this.me = me;
    return me;
  }

  forget(): void {
    this.me = null;
  }

  /** `me` inside the signed-in layout, which renders its pages only once it is loaded. */
  loaded(): Me {
    if (!this.me)
      throw new Error('Who is signed in is not loaded: signed-in pages render inside their layout');
    return this.me;
  }
}

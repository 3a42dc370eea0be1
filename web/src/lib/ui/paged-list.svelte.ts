// A list the server reads a page at a time (contacts, templates, an audit log…): the rows so far, the total and
// where the next page starts (an offset, or a log's cursor) — the load's first page to begin with — and
// `next()`, which reads the next page and adds it ("Show more", ShowMore.svelte), saying a failure in `error`.
// A page makes one per load: `const list = $derived(new PagedList(first, (from) => read(from), failed))`.

/** A page of a list as the server answers it: its items, the total when it says one, where the next starts. */
export interface ListPage<T, C = number> {
  items: readonly T[];
  total?: number | undefined;
  next: C | null;
}

export class PagedList<T, C = number> {
  rows = $state<T[]>([]);
  total = $state(0);
  cursor = $state<C | null>(null);
  loading = $state(false);
  error = $state('');
  readonly #read: (from: C) => Promise<ListPage<T, C>>;
  readonly #failed: (error: unknown) => string;

  constructor(
    first: ListPage<T, C>,
    read: (from: C) => Promise<ListPage<T, C>>,
    failed: (error: unknown) => string,
  ) {
    this.rows = [...first.items];
    this.total = first.total ?? first.items.length;
    this.cursor = first.next;
    this.#read = read;
    this.#failed = failed;
  }

  get more(): boolean {
    return this.cursor !== null;
  }

  /** The next page, added under the rows. */
  async next(): Promise<void> {
    if (this.cursor === null) return;
    this.loading = true;
    this.error = '';
    try {
      const page = await this.#read(this.cursor);
      this.rows = [...this.rows, ...page.items];
      this.total = page.total ?? this.rows.length;
      this.cursor = page.next;
    } catch (error) {
      this.error = this.#failed(error);
    } finally {
      this.loading = false;
    }
  }
}

// A bulk send's page's run as it goes (docs/bulk-send.md): the load's run and first rows to begin with, then —
// while it is Running and the page visible — the run and the rows shown read again about every second
// (documents.ts, pollWhileVisible) until it has ended or the page is left. What a screen reader hears: the
// progress now and then, and the end at once (`announcement`). The rows shown: a page of them, all or of one
// status.
import { get } from 'svelte/store';
import { format } from 'svelte-i18n';
import { appClient } from '$lib/shared/app-client';
import type { BulkSendRowStatus } from '../../../../../domain/vocabulary.ts';
import { type PollOptions, pollWhileVisible } from '../documents.ts';
import type { BulkRow, BulkRun } from './bulk-send.ts';

/** Rows of one page of the table. */
export const ROWS_PAGE = 50;
/** About every second while the run is Running (each poll counts as a change: the wait stays one second). */
const RUN_POLL: PollOptions = { firstMs: 1_000, maxMs: 5_000, factor: 1 };
/** The progress is announced at most this often; the end at once. */
const ANNOUNCE_EVERY_MS = 5_000;

export interface RowsPage {
  items: BulkRow[];
  total: number;
  nextOffset: number | null;
}

export class FollowedRun {
  run = $state() as BulkRun;
  rows = $state<BulkRow[]>([]);
  rowsTotal = $state(0);
  rowsNext = $state<number | null>(null);
  offset = $state(0);
  status = $state<BulkSendRowStatus | ''>('');
  announcement = $state('');
  #lastAnnounced = 0;
  /** Counts the reads of the rows: an answer older than the newest read (another page, filter) is dropped. */
  #rowsRead = 0;
  #poller: ReturnType<typeof pollWhileVisible> | undefined;
  #stopped = false;
  /** Runs when the run's status changes (the page's "Stopping…" gives way to how it ended). */
  readonly #onended: () => void;

  constructor(run: BulkRun, rows: RowsPage, onended: () => void) {
    this.run = run;
    this.#rowsShown(rows);
    this.#onended = onended;
  }

  /** Follows the run while it is Running (again after a stop was asked), until `stop()`. */
  follow(): void {
    if (this.#stopped || this.#poller || this.run.status !== 'Running') return;
    this.#poller = pollWhileVisible(async (signal) => {
      await this.refresh(signal);
      if (this.run.status !== 'Running') this.#unfollow();
      return true;
    }, RUN_POLL);
  }

  stop(): void {
    this.#stopped = true;
    this.#unfollow();
  }

  #unfollow(): void {
    this.#poller?.stop();
    this.#poller = undefined;
  }

  /**
   * The run first, then its rows: rows read after a run that has ended are its final ones. Both are shown
   * together, so the page never says the run has ended beside rows read while it ran.
   */
  async refresh(signal?: AbortSignal): Promise<void> {
    const run = await appClient.bulkSends.get.query({ id: this.run.id }, signal ? { signal } : undefined);
    const rows = await this.#readRows(signal);
    this.show(run);
    if (rows) this.#rowsShown(rows);
  }

  /** Another page of rows, or the rows of another status (the first page). */
  async showRows(changes: { offset?: number; status?: BulkSendRowStatus | '' }): Promise<void> {
    if (changes.status !== undefined) this.status = changes.status;
    this.offset = changes.offset ?? 0;
    const rows = await this.#readRows();
    if (rows) this.#rowsShown(rows);
  }

  /** The rows shown now, or nothing when another read began meanwhile (another page, filter). */
  async #readRows(signal?: AbortSignal): Promise<RowsPage | undefined> {
    this.#rowsRead += 1;
    const read = this.#rowsRead;
    const answer = await appClient.bulkSends.rows.query(
      {
        id: this.run.id,
        limit: ROWS_PAGE,
        offset: this.offset,
        ...(this.status ? { status: this.status } : {}),
      },
      signal ? { signal } : undefined,
    );
    return read === this.#rowsRead ? answer : undefined;
  }

  #rowsShown(page: RowsPage): void {
    this.rows = page.items;
    this.rowsTotal = page.total;
    this.rowsNext = page.nextOffset;
  }

  show(next: BulkRun): void {
    const before = this.run;
    this.run = next;
    const now = Date.now();
    const ended = before.status !== next.status;
    if (ended) this.#onended();
    const moved =
      before.sent !== next.sent || before.failed !== next.failed || before.skipped !== next.skipped;
    if (ended || (moved && now - this.#lastAnnounced >= ANNOUNCE_EVERY_MS)) {
      this.announcement = spoken(next);
      this.#lastAnnounced = now;
    }
  }
}

/** What a screen reader hears: the status and the progress, with the failures and the skipped rows. */
function spoken(run: BulkRun): string {
  const t = get(format);
  const parts = [t('bulk.progress', { values: { sent: run.sent, total: run.total } })];
  if (run.failed > 0) parts.push(t('bulk.failedCount', { values: { count: run.failed } }));
  if (run.skipped > 0) parts.push(t('bulk.skippedCount', { values: { count: run.skipped } }));
  return `${t(`bulk.runStatus.${run.status}`)}: ${parts.join(', ')}`;
}

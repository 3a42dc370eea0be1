// The envelope page's envelope as it changes (docs/documents.md, "The envelope's page"): the load's envelope to
// begin with, then what the page's actions answer and what polling finds — GET /api/documents/{id} with
// If-None-Match while the page is visible (documents.ts, pollWhileVisible) — with a status change the page did
// not cause announced; and, while a workflow runs, what it says right now (GET /api/documents/{id}/live).
import { get } from 'svelte/store';
import { format } from 'svelte-i18n';
import { appClient } from '$lib/shared/app-client';
import {
  type DocumentDetail,
  type DocumentLive,
  isRunning,
  pollWhileVisible,
  readDocument,
  STATUS_KEYS,
} from '../documents.ts';
import { followSessionAnswer, statusOf } from '../errors.ts';

/** What the live view shows: loading before the first answer, none without a running workflow. */
export type LiveStatus = 'loading' | 'ready' | 'unavailable' | 'none';

export class FollowedDocument {
  envelope = $state() as DocumentDetail;
  live = $state<DocumentLive | null>(null);
  liveStatus = $state<LiveStatus>('none');
  /** The status change the last poll brought, announced politely. */
  changeNotice = $state('');
  #etag: string | null;
  #poller: ReturnType<typeof pollWhileVisible> | undefined;
  #stopped = false;

  constructor(first: DocumentDetail, etag: string | null) {
    this.envelope = first;
    this.#etag = etag;
    void this.#refreshLive();
  }

  /** Follows the envelope by polling until `stop()` (the page is left, or the envelope deleted). */
  follow(): void {
    if (this.#stopped || this.#poller) return;
    this.#poller = pollWhileVisible(async (signal) => this.#read(true, signal));
  }

  stop(): void {
    this.#stopped = true;
    this.#poller?.stop();
  }

  /** Shows a newer envelope (an action's answer), and polls soon again. */
  show(next: DocumentDetail): void {
    this.#show(next, false);
    this.#poller?.reset();
  }

  /** Reads the envelope now (after the page changed it, or was refused because it had changed meanwhile). */
  async reread(): Promise<void> {
    try {
      await this.#read(false);
    } catch (error) {
      followSessionAnswer(error); // otherwise the polling catches up
    }
    this.#poller?.reset();
  }

  async #read(announce: boolean, signal?: AbortSignal): Promise<boolean> {
    const read = await readDocument(this.envelope.id, this.#etag, signal);
    if (!read.changed) return false;
    this.#etag = read.etag;
    this.#show(read.document, announce);
    return true;
  }

  #show(next: DocumentDetail, announce: boolean): void {
    const before = this.envelope.status;
    this.envelope = next;
    if (announce && before !== next.status) {
      this.changeNotice = get(format)('documents.statusChanged', {
        values: { status: get(format)(STATUS_KEYS[next.status]) },
      });
    }
    void this.#refreshLive();
  }

  async #refreshLive(): Promise<void> {
    const current = this.envelope;
    if (!isRunning(current.status)) {
      this.live = null;
      this.liveStatus = 'none';
      return;
    }
    if (!this.live) this.liveStatus = 'loading';
    try {
      const answer = await appClient.documents.live.query({ id: current.id });
      this.live = answer.live;
      this.liveStatus = answer.live ? 'ready' : 'none';
    } catch (error) {
      if (followSessionAnswer(error)) return;
      this.liveStatus = statusOf(error) === 404 ? 'none' : 'unavailable';
    }
  }
}

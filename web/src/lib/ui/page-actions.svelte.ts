// The outcome of a page's actions (a deletion, a new secret, a test, a replay) in one place, for PageMessages:
// each action clears what the last one said, runs, reads the page's data again (`refresh`: the load's
// `invalidate`) and says its message; a refusal is the server's message (or that it could not be reached) —
// returned to a confirmation dialog, which shows it inside, or shown above the page's list. A session answer
// (signed out, two-step set-up) sends the visitor away instead (`follow`: the area's).
import { get } from 'svelte/store';
import { format } from 'svelte-i18n';
import { requestErrorOf } from '../shared/request-error.ts';

export interface PageActionsOptions {
  /** Sends the visitor away on a session answer (the area's `follow`); true: nothing more to show. */
  follow: (error: unknown) => boolean;
  /** Reads the page's data again after an action (`() => invalidate('app:…')`). */
  refresh?: (() => Promise<unknown>) | undefined;
}

export class PageActions {
  notice = $state('');
  error = $state('');
  readonly #options: PageActionsOptions;

  constructor(options: PageActionsOptions) {
    this.#options = options;
  }

  clear(): void {
    this.notice = '';
    this.error = '';
  }

  /** A failure in words: the server's message, or that it could not be reached ('' once followed away). */
  refusal(error: unknown): string {
    if (this.#options.follow(error)) return '';
    return requestErrorOf(error).serverMessage ?? get(format)('workspace.unreachable');
  }

  /** After a change made elsewhere (a dialog saved): the data again, then the message. */
  async announce(message: string): Promise<void> {
    this.error = '';
    await this.#options.refresh?.();
    this.notice = message;
  }

  /**
   * Runs an action for a confirmation dialog: the data again and its message when done (undefined), else the
   * refusal for the dialog to show ('' when the visitor was sent away).
   */
  async attempt<T>(run: () => Promise<T>, message: (result: T) => string): Promise<string | undefined> {
    this.clear();
    try {
      const result = await run();
      await this.announce(message(result));
      return undefined;
    } catch (error) {
      return this.refusal(error);
    }
  }

  /** Runs an action of the page itself (a row's button): its refusal shows above the list. True when done. */
  async perform<T>(run: () => Promise<T>, message: (result: T) => string): Promise<boolean> {
    const refused = await this.attempt(run, message);
    this.error = refused ?? '';
    return refused === undefined;
  }
}

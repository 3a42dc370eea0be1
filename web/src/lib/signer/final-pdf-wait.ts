// Waiting for the signed document after the last signer finishes: the envelope is ProcessingFinalPdf (the link's
// state `finalizing`) for a few seconds, then Completed, and the link's view names the signed document and the
// audit trail. The page reads the view again at a bounded pace until it does — every 2 s at first, a little
// slower each time, never slower than every 15 s, and for at most 10 minutes (a final PDF that failed stays
// `finalizing` until the organization retries it) — so "Download the signed document" appears without
// reopening the link. Pure but for what it is handed, so a unit test drives it with its own clock.
import type { SigningView } from '../../../../domain/signing.ts';

export const FIRST_WAIT_MS = 2_000;
export const LONGEST_WAIT_MS = 15_000;
export const GIVE_UP_AFTER_MS = 10 * 60_000;

/** The wait before read `attempt` (0-based): 2 s, then half as long again each time, at most 15 s. */
export function waitBefore(attempt: number): number {
  return Math.min(LONGEST_WAIT_MS, Math.round(FIRST_WAIT_MS * 1.5 ** attempt));
}

export interface FinalPdfWait {
  /** Reads the link's view (a failure is tried again at the next turn). */
  read: () => Promise<Pick<SigningView, 'downloads'>>;
  /** Called once, with the downloads, when the view names the signed document. */
  ready: (downloads: SigningView['downloads']) => void;
  /** The timers (the window's, or a test's). */
  setTimer?: (run: () => void, ms: number) => unknown;
  clearTimer?: (timer: unknown) => void;
}

/** Starts waiting; answers the function that stops it (the page left, the state changed). */
export function waitForFinalPdf({
  read,
  ready,
  setTimer = (run, ms) => setTimeout(run, ms),
  clearTimer = (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
}: FinalPdfWait): () => void {
  let stopped = false;
  let timer: unknown;
  let waited = 0;
  const turn = (attempt: number) => {
    const wait = waitBefore(attempt);
    if (waited + wait > GIVE_UP_AFTER_MS) return;
    waited += wait;
    timer = setTimer(async () => {
      try {
        const { downloads } = await read();
        if (stopped) return;
        if (downloads.finalPdf) {
          ready(downloads);
          return;
        }
      } catch {
        // The network or the server failed this once: the next turn asks again.
      }
      if (!stopped) turn(attempt + 1);
    }, wait);
  };
  turn(0);
  return () => {
    stopped = true;
    clearTimer(timer);
  };
}

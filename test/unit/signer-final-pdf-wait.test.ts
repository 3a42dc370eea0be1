// Waiting for the signed document after the last signer (web/src/lib/signer/final-pdf-wait.ts): the view is read
// again at a bounded, slowing pace until it names the signed document, then never again; failures are retried;
// the wait gives up after its bound and stops when the page says so.
import { describe, expect, it } from 'vitest';
import {
  GIVE_UP_AFTER_MS,
  LONGEST_WAIT_MS,
  waitBefore,
  waitForFinalPdf,
} from '../../web/src/lib/signer/final-pdf-wait.ts';

const NONE = { finalPdf: null, auditTrail: null, original: null };
const READY = {
  finalPdf: '/api/signing/t/documents/final-pdf',
  auditTrail: '/api/signing/t/documents/audit-trail',
  original: null,
};

/** A clock of its own: timers run when the test advances it. */
function clock() {
  const timers: { at: number; run: () => void }[] = [];
  let now = 0;
  return {
    setTimer: (run: () => void, ms: number) => {
      const timer = { at: now + ms, run };
      timers.push(timer);
      return timer;
    },
    clearTimer: (timer: unknown) => {
      const index = timers.indexOf(timer as (typeof timers)[number]);
      if (index >= 0) timers.splice(index, 1);
    },
    /** Runs the next timer and lets its read settle; answers how long it waited, or undefined when none is left. */
    async next(): Promise<number | undefined> {
      const timer = timers.shift();
      if (!timer) return undefined;
      const waited = timer.at - now;
      now = timer.at;
      timer.run();
      for (let i = 0; i < 5; i += 1) await Promise.resolve();
      return waited;
    },
  };
}

describe('waiting for the signed document', () => {
  it('slows from 2 s to at most 15 s between reads', () => {
    expect([0, 1, 2, 3].map(waitBefore)).toEqual([2000, 3000, 4500, 6750]);
    expect(waitBefore(20)).toBe(LONGEST_WAIT_MS);
  });

  it('reads until the view names the signed document, hands its downloads over once, then stops', async () => {
    const time = clock();
    const answers = [NONE, NONE, READY];
    let reads = 0;
    const handed: unknown[] = [];
    waitForFinalPdf({
      read: async () => ({ downloads: answers[reads++] ?? READY }),
      ready: (downloads) => handed.push(downloads),
      ...time,
    });
    expect(await time.next()).toBe(2000);
    expect(await time.next()).toBe(3000);
    expect(handed).toEqual([]);
    expect(await time.next()).toBe(4500);
    expect(handed).toEqual([READY]);
    expect(await time.next()).toBeUndefined();
    expect(reads).toBe(3);
  });

  it('tries again after a failed read, and stops when told', async () => {
    const time = clock();
    let reads = 0;
    const stop = waitForFinalPdf({
      read: async () => {
        reads += 1;
        throw new Error('offline');
      },
      ready: () => {
        throw new Error('not ready');
      },
      ...time,
    });
    await time.next();
    await time.next();
    expect(reads).toBe(2);
    stop();
    expect(await time.next()).toBeUndefined();
  });

  it('gives up after ten minutes of waiting', async () => {
    const time = clock();
    let reads = 0;
    const read = async () => {
      reads += 1;
      return { downloads: NONE };
    };
    waitForFinalPdf({ read, ready: () => {}, ...time });
    let total = 0;
    for (let waited = await time.next(); waited !== undefined; waited = await time.next()) total += waited;
    expect(total).toBeLessThanOrEqual(GIVE_UP_AFTER_MS);
    expect(total).toBeGreaterThan(GIVE_UP_AFTER_MS - LONGEST_WAIT_MS);
    expect(reads).toBeGreaterThan(40);
  });
});

// The inspection pool (issue 30, item 6): a PDF compression bomb is read on a worker thread, so the event loop
// keeps turning while it is (it turned not once before, when the inspection ran on it), and is refused with the
// same 400 as ever; a client that floods the pool waits behind its own files while another client's file takes
// the next free thread; a full line is a 429 for the client and a full queue a 503, both with Retry-After; a
// check that overruns its time is stopped with its thread. The latency this saves is measured by
// `npm run bench:abuse`, not here.
import { afterAll, describe, expect, it } from 'vitest';
import { bombPdf } from '../../scripts/abuse/payloads.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { AppError } from '../../services/errors.ts';
import { inspectPdf } from '../../services/files/inspect-pdf.ts';
import { InspectionPool } from '../../services/files/inspection-pool.ts';
import type { InspectionTask } from '../../services/files/inspection-worker.ts';
import { PDF_LIMITS } from '../../services/files/pdf-limits.ts';

const bomb = bombPdf(300);
/** A bomb read to its end: no decoding limit (a second or so of work), two minutes of time. */
const unlimited: InspectionTask = {
  kind: 'pdf',
  bytes: bomb,
  limits: { ...PDF_LIMITS, maxDecodedBytes: 1024 * 1024 * 1024, maxParseMilliseconds: 120_000 },
};
/** The bomb as uploads are read: refused after 100 MB (a few hundred milliseconds of work). */
const refusedBomb: InspectionTask = { kind: 'pdf', bytes: bomb, limits: PDF_LIMITS };
const pools: InspectionPool[] = [];
function pool(limits: Partial<InspectionPool['limits']>): InspectionPool {
  const made = new InspectionPool({
    threads: 1,
    waitingPerClient: 8,
    waitingInTotal: 64,
    retryAfterSeconds: 3,
    overrunGraceMs: 0,
    ...limits,
  });
  pools.push(made);
  return made;
}
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
});

describe('inspectPdf', () => {
  it('reads a compression bomb off the event loop and refuses it with the 400 it always gave', async () => {
    let turns = 0;
    let turning = true;
    const turn = () => {
      turns += 1;
      if (turning) setImmediate(turn);
    };
    setImmediate(turn);
    // A slow machine must not turn the bomb's refusal into the time limit's: two minutes here.
    const error = await inspectPdf(bomb, {
      maxBytes: 25 * 1024 * 1024,
      field: 'file',
      client: 'test',
      limits: { maxParseMilliseconds: 120_000 },
    }).catch((caught: unknown) => caught);
    turning = false;
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({
      status: 400,
      code: 'invalid_request',
      message:
        'The PDF\'s compressed content expands to more than 100 MB, the limit for one document (a file built to expand enormously, a "compression bomb", looks like this).',
      details: [{ field: 'file', message: 'decompresses to more than 100 MB' }],
    });
    // Reading the bomb takes a few hundred milliseconds; on the event loop, not one turn happened meanwhile.
    expect(turns).toBeGreaterThan(20);
  });
});

describe('InspectionPool', () => {
  it("takes a waiting client's file before the flooding client's next ones", async () => {
    const shared = pool({ threads: 1 });
    const finished: string[] = [];
    const small = await buildDemoPdf('Small', 1);
    const floods = Array.from({ length: 4 }, (_, index) =>
      shared
        .run('organization:flooder', refusedBomb, 120_000)
        .then(() => finished.push(`flood ${index + 1}`)),
    );
    const bystander = shared
      .run('organization:bystander', { kind: 'pdf', bytes: small, limits: PDF_LIMITS }, 3000)
      .then((outcome) => {
        expect(outcome.kind).toBe('pdf');
        finished.push('bystander');
      });
    await Promise.all([...floods, bystander]);
    // The first flood file had the thread already; the bystander's was next, not fifth.
    expect(finished).toEqual(['flood 1', 'bystander', 'flood 2', 'flood 3', 'flood 4']);
  });

  it('answers 429 to a client whose line is full and 503 when all lines together are, with Retry-After', async () => {
    const small = pool({ threads: 1, waitingPerClient: 2, waitingInTotal: 3 });
    // One file on the thread and two waiting: the flooder's line is full.
    const running = [0, 1, 2].map(() => small.run('signer:flooder', refusedBomb, 120_000));
    const refusal = (client: string) =>
      Promise.resolve()
        .then(() => small.run(client, refusedBomb, 120_000))
        .then(
          () => undefined,
          (error: unknown) => error as AppError,
        );
    const limited = await refusal('signer:flooder');
    expect(limited).toMatchObject({ status: 429, code: 'rate_limited', headers: { 'Retry-After': '3' } });
    expect(limited?.message).toContain('Too many of your files are waiting to be checked (2)');
    // Another client still gets a place in the queue; with three waiting in all, the next client gets 503.
    const other = small.run('signer:other', refusedBomb, 120_000);
    const busy = await refusal('signer:third');
    expect(busy).toMatchObject({ status: 503, code: 'service_unavailable', headers: { 'Retry-After': '3' } });
    await Promise.all([...running, other]);
    expect(small.queued).toBe(0);
  });

  it('stops a check that overruns its time limit with its thread, and the next file gets a new thread', async () => {
    const strict = pool({ threads: 1, overrunGraceMs: 0 });
    expect(await strict.run('organization:slow', unlimited, 50)).toEqual({ kind: 'overrun' });
    const small = await buildDemoPdf('After', 1);
    const next = await strict.run(
      'organization:slow',
      { kind: 'pdf', bytes: small, limits: PDF_LIMITS },
      3000,
    );
    expect(next).toMatchObject({ kind: 'pdf', inspection: { pageCount: 1 } });
  });
});

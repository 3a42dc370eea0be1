// The inspection pool: uploaded files are checked (PDFs read under their limits, PNGs inflated and drawn
// images scaled) on a few worker threads, never on the API's event loop, so a flood of files built to exhaust
// the server (compression bombs, huge images) costs whoever sends them and not every other request.
//
// Threads come from tinypool (the worker-thread pool vitest uses; no dependencies); in front of it sits a fair
// queue of our own: each client (an organization, or a signer) has its own line, and a free thread takes the
// next file of the client with the fewest files on threads (among equals, the one served longest ago), so a
// client that sends many files waits behind its own files while another client's file gets the next free
// thread. A client with INSPECTION_POOL.waitingPerClient files waiting is
// answered 429; when all clients together have INSPECTION_POOL.waitingInTotal waiting, 503 — both with
// Retry-After. A check that runs past its own time limit by INSPECTION_POOL.overrunGraceMs (it checks its
// clock itself; this is the backstop for one step that never returns) is stopped with its thread.
//
// One pool per process, made on first use (inspectionPool()): the threads are a resource of the process like
// its memory; idle threads do not keep a process alive and hold no state a test would need to reset.
import { availableParallelism } from 'node:os';
import Tinypool from 'tinypool';
import { RateLimited, ServiceUnavailable } from '../errors.ts';
import type { InspectionOutcome, InspectionTask } from './inspection-worker.ts';

export interface InspectionPoolLimits {
  /** Worker threads. */
  threads: number;
  /** Files one client may have waiting for a thread (besides those being checked) before 429. */
  waitingPerClient: number;
  /** Files all clients together may have waiting before 503. */
  waitingInTotal: number;
  /** Retry-After of the 429 and the 503, in seconds. */
  retryAfterSeconds: number;
  /** How long past its own time limit a check may run before its thread is stopped. */
  overrunGraceMs: number;
}

export const INSPECTION_POOL: InspectionPoolLimits = {
  // One core stays with the event loop (and the database); more than 4 would only queue on the cores.
  threads: Math.max(1, Math.min(4, availableParallelism() - 1)),
  // Room for an ordinary burst (a template and a few uploads at once) from one organization.
  waitingPerClient: 8,
  waitingInTotal: 128,
  retryAfterSeconds: 2,
  overrunGraceMs: 2000,
};

/** The answer to a check stopped because it overran its time limit. */
export type InspectionOverrun = { kind: 'overrun' };

interface Job {
  task: InspectionTask;
  timeLimitMs: number;
  resolve: (outcome: InspectionOutcome | InspectionOverrun) => void;
  reject: (error: unknown) => void;
}

const WORKER = new URL('./inspection-worker.ts', import.meta.url).href;

export class InspectionPool {
  readonly limits: InspectionPoolLimits;
  private readonly threads: Tinypool;
  /** Waiting files per client, in the order they came. */
  private readonly waiting = new Map<string, Job[]>();
  private waitingCount = 0;
  private running = 0;
  private handedOut = 0;
  /** Files on threads now, per client (clients without any are not listed). */
  private readonly onThreads = new Map<string, number>();
  /** When each client with files waiting or running last had one handed to a thread (a turn number). */
  private readonly lastServed = new Map<string, number>();
  private turns = 0;

  constructor(limits: InspectionPoolLimits = INSPECTION_POOL) {
    this.limits = limits;
    this.threads = new Tinypool({
      filename: WORKER,
      // Started with the pool and kept (a thread's start loads pdf-lib: about 0.2 s); idle threads are unref'd.
      minThreads: limits.threads,
      maxThreads: limits.threads,
    });
  }

  /** Files waiting for a thread, all clients together. */
  get queued(): number {
    return this.waitingCount;
  }

  /** Files handed to a thread so far (what was refused before it cost a thread is not counted). */
  get started(): number {
    return this.handedOut;
  }

  /**
   * Checks `task` on a thread, in `client`'s turn; answers its outcome, or `overrun` when it ran past
   * `timeLimitMs` plus the grace. Throws RateLimited or ServiceUnavailable when the queue is full.
   */
  run(
    client: string,
    task: InspectionTask,
    timeLimitMs: number,
  ): Promise<InspectionOutcome | InspectionOverrun> {
    const line = this.waiting.get(client) ?? [];
    if (line.length >= this.limits.waitingPerClient) {
      throw new RateLimited(
        `Too many of your files are waiting to be checked (${line.length}); send more when these have been answered.`,
        this.limits.retryAfterSeconds,
      );
    }
    if (this.waitingCount >= this.limits.waitingInTotal) {
      throw new ServiceUnavailable(
        'The server is checking too many files at the moment; try again shortly.',
        [],
        this.limits.retryAfterSeconds,
      );
    }
    return new Promise((resolve, reject) => {
      line.push({ task, timeLimitMs, resolve, reject });
      this.waiting.set(client, line);
      this.waitingCount += 1;
      this.dispatch();
    });
  }

  /** Stops the threads (files still waiting are refused with 503). */
  async close(): Promise<void> {
    for (const line of this.waiting.values()) {
      for (const job of line) {
        job.reject(new ServiceUnavailable('The server is stopping.', [], this.limits.retryAfterSeconds));
      }
    }
    this.waiting.clear();
    this.waitingCount = 0;
    await this.threads.destroy();
  }

  private dispatch(): void {
    while (this.running < this.limits.threads) {
      const next = this.next();
      if (!next) return;
      const { client, job } = next;
      this.running += 1;
      this.handedOut += 1;
      this.onThreads.set(client, (this.onThreads.get(client) ?? 0) + 1);
      const deadline = AbortSignal.timeout(job.timeLimitMs + this.limits.overrunGraceMs);
      this.threads
        .run(job.task, { signal: deadline })
        .then(
          (outcome: InspectionOutcome) => job.resolve(outcome),
          (error: unknown) => (deadline.aborted ? job.resolve({ kind: 'overrun' }) : job.reject(error)),
        )
        .finally(() => {
          this.running -= 1;
          const left = (this.onThreads.get(client) ?? 1) - 1;
          if (left > 0) this.onThreads.set(client, left);
          else this.onThreads.delete(client);
          // A client with nothing waiting or running is forgotten: it comes back as a new one.
          if (left === 0 && !this.waiting.has(client)) this.lastServed.delete(client);
          this.dispatch();
        });
    }
  }

  /**
   * The first waiting file of the client whose turn it is: of the clients with files waiting, the one with the
   * fewest files on threads now, and among equals the one served longest ago (or never).
   */
  private next(): { client: string; job: Job } | undefined {
    let chosen: string | undefined;
    const rank = (client: string): [number, number] => [
      this.onThreads.get(client) ?? 0,
      this.lastServed.get(client) ?? 0,
    ];
    for (const client of this.waiting.keys()) {
      if (chosen === undefined) {
        chosen = client;
        continue;
      }
      const [threads, served] = rank(client);
      const [bestThreads, bestServed] = rank(chosen);
      if (threads < bestThreads || (threads === bestThreads && served < bestServed)) chosen = client;
    }
    if (chosen === undefined) return undefined;
    const line = this.waiting.get(chosen) as Job[];
    const job = line.shift() as Job;
    if (line.length === 0) this.waiting.delete(chosen);
    this.waitingCount -= 1;
    this.turns += 1;
    this.lastServed.set(chosen, this.turns);
    return { client: chosen, job };
  }
}

/** The pool's client of a member's or an integration's file: its organization. */
export function organizationClient(organizationId: string): string {
  return `organization:${organizationId}`;
}

/** The pool's client of a signer's file: the recipient (not the organization, whose members it would hold up). */
export function signerClient(recipientId: string): string {
  return `signer:${recipientId}`;
}

let shared: InspectionPool | undefined;

/** The process's pool, made on first use. */
export function inspectionPool(): InspectionPool {
  shared ??= new InspectionPool();
  return shared;
}

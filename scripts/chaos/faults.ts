// The faults of a chaos run: when each strikes (a point of the client's progress, drawn from the seed) and
// what it does to the stack. Faults strike one at a time: the next waits until the previous part is back and
// a short gap has passed, so each recovery can be timed on its own.
import { setTimeout as sleep } from 'node:timers/promises';
import { between, type Random, shuffled } from './random.ts';
import type { ChaosStack } from './stack.ts';

export const FAULT_KINDS = ['worker-kill', 'api-kill', 'temporal-restart', 'postgres-restart'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const FAULT_LABELS: Record<FaultKind, string> = {
  'worker-kill': 'worker SIGKILL',
  'api-kill': 'API SIGKILL',
  'temporal-restart': 'Temporal restart',
  'postgres-restart': 'PostgreSQL restart',
};

export interface PlannedFault {
  kind: FaultKind;
  /** Strikes once this share of the client's steps is done (0–1). */
  atProgress: number;
}

/** One fault carried out; `Kind` is the run's set of fault kinds (the cluster fault run has its own). */
export interface FaultRecord<Kind extends string = FaultKind> {
  kind: Kind;
  /** When the kill was sent or the stop began. */
  struckAt: number;
  /** When the part was gone (its process exited): recovery is timed from here. */
  at: number;
  /** When it was started again (after the outage, for the servers). */
  restartedAt: number;
  /** When it was ready again: the worker polls, the API answers HTTP, the server accepts connections. */
  readyAt: number;
  /** The client's progress when it struck (0–1). */
  progress: number;
}

export interface FaultPlanOptions {
  workerKills: number;
  apiKills: number;
  temporalRestarts: number;
  postgresRestarts: number;
}

/**
 * The plan: the single faults spread over the middle of the run in a seeded order, worker kills at seeded
 * random points between 5 % and 90 % of the progress.
 */
export function planFaults(random: Random, options: FaultPlanOptions): PlannedFault[] {
  const singles: FaultKind[] = shuffled(random, [
    ...Array<FaultKind>(options.apiKills).fill('api-kill'),
    ...Array<FaultKind>(options.temporalRestarts).fill('temporal-restart'),
    ...Array<FaultKind>(options.postgresRestarts).fill('postgres-restart'),
  ]);
  const planned: PlannedFault[] = singles.map((kind, index) => ({
    kind,
    // Evenly between 20 % and 75 %, each moved by up to ±4 %.
    atProgress:
      (singles.length === 1 ? 0.45 : 0.2 + (0.55 * index) / (singles.length - 1)) +
      between(random, -0.04, 0.04),
  }));
  for (let kill = 0; kill < options.workerKills; kill += 1) {
    planned.push({ kind: 'worker-kill', atProgress: between(random, 0.05, 0.9) });
  }
  return planned.sort((a, b) => a.atProgress - b.atProgress);
}

export interface InjectorOptions {
  stack: ChaosStack;
  /** How long PostgreSQL and Temporal stay stopped before they are started again. */
  outageMs: number;
  /** The least time between one part being back and the next fault. */
  gapMs: number;
  say: (line: string) => void;
}

/** Carries out one fault; resolves once the part is back. */
export async function inject(
  kind: FaultKind,
  options: InjectorOptions,
  progress: number,
): Promise<FaultRecord> {
  const { stack, outageMs } = options;
  switch (kind) {
    case 'worker-kill':
    case 'api-kill': {
      const part = kind === 'worker-kill' ? 'worker' : 'api';
      const pid = stack.pid(part);
      const { killedAt, readyAt } = await stack.kill(part);
      options.say(
        `fault: ${part} (pid ${pid}) killed with SIGKILL, restarted at once, ready again after ${seconds(readyAt - killedAt)}`,
      );
      return { kind, struckAt: killedAt, at: killedAt, restartedAt: killedAt, readyAt, progress };
    }
    case 'temporal-restart': {
      const struckAt = Date.now();
      await stack.stopTemporal();
      const at = Date.now();
      options.say(
        `fault: Temporal dev server stopped (took ${seconds(at - struckAt)}); starting it again in ${seconds(outageMs)}`,
      );
      await sleep(outageMs);
      const restartedAt = Date.now();
      await stack.startTemporal();
      const readyAt = Date.now();
      options.say(
        `fault: Temporal dev server back on the same port and db file, ${seconds(readyAt - at)} after it stopped`,
      );
      return { kind, struckAt, at, restartedAt, readyAt, progress };
    }
    case 'postgres-restart': {
      const struckAt = Date.now();
      await stack.stopPostgres();
      const at = Date.now();
      options.say(
        `fault: PostgreSQL stopped (took ${seconds(at - struckAt)}); starting it again in ${seconds(outageMs)}`,
      );
      await sleep(outageMs);
      const restartedAt = Date.now();
      await stack.startPostgres();
      const readyAt = Date.now();
      options.say(
        `fault: PostgreSQL back on the same data directory and port, ${seconds(readyAt - at)} after it stopped`,
      );
      return { kind, struckAt, at, restartedAt, readyAt, progress };
    }
  }
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

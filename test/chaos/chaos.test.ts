// The chaos run, small: `npm run chaos` with 20 envelopes, two worker SIGKILLs, one API SIGKILL, one Temporal
// restart and one PostgreSQL restart, on a stack of its own (not the suite's servers). It passes when the run
// exits 0 with every invariant holding; the run's output is shown as it goes, and its report is printed.
// scripts/chaos/ holds the harness, docs/development.md ("The chaos run") what it checks;
// invariants.test.ts shows each check fails on an observation broken on purpose.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChaosReport } from '../../scripts/chaos/run.ts';

const CHAOS = fileURLToPath(new URL('../../scripts/chaos/chaos.ts', import.meta.url));
/** A fixed plan, so a failure can be repeated with `npm run chaos -- --envelopes 20 … --seed`; overridable. */
const SEED = process.env.SIGIL_CHAOS_SEED ?? '20261124';
const RUN_TIMEOUT_MS = 8 * 60_000;

let dir: string | undefined;
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

function runChaos(args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [CHAOS, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const show = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    process.stdout.write(chunk);
  };
  child.stdout.on('data', show);
  child.stderr.on('data', show);
  return new Promise((resolve) => {
    // A run that hangs is stopped the way Ctrl-C would stop it (the stack is taken down), then killed.
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 60_000).unref();
    }, RUN_TIMEOUT_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('chaos run', () => {
  it(
    'keeps every envelope, file, audit sequence and webhook event whole through worker, API, Temporal and PostgreSQL faults',
    async () => {
      dir = await mkdtemp(join(tmpdir(), 'sigil-chaos-test-'));
      const reportFile = join(dir, 'report.json');
      const { code, output } = await runChaos([
        '--envelopes',
        '20',
        '--concurrency',
        '4',
        '--worker-kills',
        '2',
        '--outage-seconds',
        '3',
        '--gap-seconds',
        '2',
        '--settle-seconds',
        '150',
        '--seed',
        SEED,
        '--json',
        reportFile,
      ]);
      const written = await readFile(reportFile, 'utf8').catch(() => undefined);
      if (written === undefined) {
        throw new Error(`the chaos run ended (exit ${code}) without a report:\n${output.slice(-4000)}`);
      }
      const report = JSON.parse(written) as ChaosReport;
      // Every invariant, by name, so a failure says which.
      expect(report.invariants.filter((invariant) => !invariant.ok)).toEqual([]);
      expect(report.invariants.length).toBeGreaterThanOrEqual(10);
      expect(code).toBe(0);
      const faults = (kind: string) => report.faults.filter((fault) => fault.kind === kind).length;
      expect({
        worker: faults('worker-kill'),
        api: faults('api-kill'),
        temporal: faults('temporal-restart'),
        postgres: faults('postgres-restart'),
      }).toEqual({ worker: 2, api: 1, temporal: 1, postgres: 1 });
      // The faults were felt: requests were retried, and the receiver's refusals made deliveries repeat.
      expect(report.attempts.retried).toBeGreaterThan(0);
      expect(report.webhooks.refused + report.webhooks.dropped).toBeGreaterThan(0);
      expect(report.webhooks.repeats).toBeGreaterThan(0);
    },
    RUN_TIMEOUT_MS + 90_000,
  );
});

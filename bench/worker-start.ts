// `npm run bench:worker-start`: how long a worker process (`npm run worker`) takes from its spawn until both of
// its workers poll (its log's `worker started`) — what a crashed worker's replacement costs — with the workflow
// bundle made at start (an empty WORKFLOW_BUNDLE_DIR, as every start did before the bundle was cached) and
// loaded from the cache (the directory a previous start filled). Both kinds alternate in one run against the
// same PostgreSQL and Temporal, so the ratio compares like with like on this machine (whose speed varies).
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestInfrastructure } from '../test/support/infrastructure.ts';
import { percentile } from './figures.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const say = (line: string) => console.log(`[bench:worker-start] ${line}`);

interface Start {
  readyMs: number;
  source: string;
}

/** Spawns a worker with the given bundle directory, waits for `worker started`, stops it (SIGTERM). */
async function startWorker(env: NodeJS.ProcessEnv, bundleDir: string): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, 'temporal/worker/main.ts')], {
    env: { ...env, WORKFLOW_BUNDLE_DIR: bundleDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let source = '?';
  const readyMs = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no 'worker started' in 180 s:\n${output}`)), 180_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('"msg":"workflow bundle loaded from the cache"')) source = 'cached';
      else if (output.includes('"msg":"workflow code bundled"')) source = 'bundled';
      if (output.includes('"msg":"worker started"')) {
        clearTimeout(timer);
        resolve(performance.now() - started);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the worker exited (${signal ?? code}) before it was ready:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  return { readyMs, source };
}

const infrastructure = await startTestInfrastructure(say);
const dataDir = await mkdtemp(join(tmpdir(), 'sigil-bench-worker-start-'));
try {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SIGIL_ENV: 'development',
    DATA_DIR: dataDir,
    DATABASE_URL: infrastructure.databaseUrl,
    TEMPORAL_ADDRESS: infrastructure.temporalAddress,
    TEMPORAL_NAMESPACE: infrastructure.namespace,
    LOG_LEVEL: 'info',
  };
  const cold: number[] = [];
  const warm: number[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    const bundleDir = join(dataDir, `bundles-${round}`);
    const first = await startWorker(env, bundleDir);
    const second = await startWorker(env, bundleDir);
    if (first.source !== 'bundled' || second.source !== 'cached') {
      throw new Error(
        `round ${round}: expected a bundled then a cached start, got ${first.source}, ${second.source}`,
      );
    }
    cold.push(first.readyMs);
    warm.push(second.readyMs);
    say(
      `round ${round}/${ROUNDS}: bundled at start ${(first.readyMs / 1000).toFixed(2)} s, ` +
        `from the cache ${(second.readyMs / 1000).toFixed(2)} s`,
    );
  }
  const median = (values: number[]) => percentile(values, 50) / 1000;
  say(`spawn → both workers polling, median of ${ROUNDS} (min–max):`);
  say(
    `  bundled at start (before): ${median(cold).toFixed(2)} s (${(Math.min(...cold) / 1000).toFixed(2)}–${(Math.max(...cold) / 1000).toFixed(2)})`,
  );
  say(
    `  from the cache (now):      ${median(warm).toFixed(2)} s (${(Math.min(...warm) / 1000).toFixed(2)}–${(Math.max(...warm) / 1000).toFixed(2)})`,
  );
  say(`  ratio: ${(median(cold) / median(warm)).toFixed(1)}× faster from the cache`);
} finally {
  await rm(dataDir, { recursive: true, force: true });
  await infrastructure.stop();
}

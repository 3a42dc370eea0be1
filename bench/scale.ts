// `npm run bench:scale`: does Sigil scale out on Temporal? One PostgreSQL and one Temporal dev server, and in
// turn one worker process with one API process, then two of each (issue 19, "Scale out on Temporal, not on our
// own code"). Workers poll the same task queues; the load goes round robin to the APIs. Every process is a
// separate `node` process, as in production (`temporal/worker/main.ts`, `api/main.ts`, SIGIL_ENV=development),
// and the load generator is this process.
//
// For each layout, after a warm-up: two-signer Sequential envelopes driven through the public API and the signer
// API (the chaos run's careful integrator, scripts/chaos/integrator.ts), BENCH_IN_FLIGHT (default 16) at a time
// in a closed loop, BENCH_ENVELOPES (default 64) of them; an envelope counts when PostgreSQL shows it Completed.
// Prints envelopes per second, create → Completed p50/p99, and the CPU seconds each kind of process spent per
// envelope (from /proc). Asserts nothing. BENCH_LAYOUTS (default "1x1,2x2") lists the layouts as
// <workers>x<APIs>.
import { type ChildProcess, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { CarefulIntegrator, driveEnvelope, type EnvelopeProgress } from '../scripts/chaos/integrator.ts';
import { prepareOrganization } from '../scripts/chaos/run.ts';
import { localChaosStack } from '../scripts/chaos/stack.ts';
import { freePort } from '../scripts/ports.ts';
import { percentile } from './figures.ts';
import { processTree, serverKind } from './process-cpu.ts';

const ENVELOPES = Number(process.env.BENCH_ENVELOPES ?? 64);
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 16);
const WARM_UP = 8;
const LAYOUTS = (process.env.BENCH_LAYOUTS ?? '1x1,2x2').split(',').map((layout) => {
  const [workers, apis] = layout.split('x').map(Number);
  if (!workers || !apis) throw new Error(`BENCH_LAYOUTS: "${layout}" is not <workers>x<APIs>`);
  return { workers, apis };
});
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SIGNERS = [
  { roleName: 'Client', fullName: 'Dana Levi' },
  { roleName: 'Provider', fullName: 'Sam Cohen' },
];
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

/** A worker or API process of the layout, ready when it polls (worker) or answers HTTP (API). */
async function startPart(
  part: 'worker' | 'api',
  env: NodeJS.ProcessEnv,
  port: number,
): Promise<{ child: ChildProcess; url: string }> {
  const script = join(ROOT, part === 'worker' ? 'temporal/worker/main.ts' : 'api/main.ts');
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [script], {
    // `info`: the worker says `worker started` once it polls.
    env: { ...env, PORT: String(port), PUBLIC_BASE_URL: url, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code, signal) =>
      reject(new Error(`${part} exited before it was ready (${signal ?? code}):\n${output.slice(-2000)}`)),
    );
    // The last few kilobytes, to show if the process dies.
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8000);
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      keep(chunk);
      if (part === 'worker' && output.includes('worker started')) resolve();
    });
    child.stderr?.on('data', keep);
    if (part === 'api') {
      void (async () => {
        for (;;) {
          try {
            await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) });
            resolve();
            return;
          } catch {
            await sleep(100);
          }
        }
      })();
    }
  });
  await ready;
  return { child, url };
}

async function stopPart(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const done = await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)]);
  if (!done) child.kill('SIGKILL');
}

interface LayoutResult {
  workers: number;
  apis: number;
  envelopesPerSecond: number;
  p50: number;
  p99: number;
  cpuPerEnvelope: Record<string, number>;
}

const { stack, dataDir } = await localChaosStack({
  run: 'bench:scale',
  dataDirPrefix: 'sigil-bench-scale-',
  env: {
    // The load generator is one address: the signer API's and the token endpoint's throttles never answer 429.
    SIGNING_RATE_LIMIT_PER_MINUTE: '100000000',
    TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
  },
  say,
});
const results: LayoutResult[] = [];
const started: ChildProcess[] = [];
const monitor = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });
try {
  await stack.prepare();
  await stack.startStores();
  const setup = await prepareOrganization(stack.databaseUrl, null);
  say(`PostgreSQL and Temporal ready; organization ${setup.organizationId}`);
  const env = stack.childEnv();
  let runs = 0;

  for (const layout of LAYOUTS) {
    say(`layout: ${layout.workers} worker(s), ${layout.apis} API(s)…`);
    const workers = [];
    for (let i = 0; i < layout.workers; i += 1)
      workers.push(await startPart('worker', env, await freePort()));
    const apis = [];
    for (let i = 0; i < layout.apis; i += 1) apis.push(await startPart('api', env, await freePort()));
    started.push(...workers.map((w) => w.child), ...apis.map((a) => a.child));
    const clients = apis.map(
      (api) =>
        new CarefulIntegrator({
          baseUrl: api.url,
          clientId: setup.clientId,
          clientSecret: setup.clientSecret,
          requestTimeoutMs: 60_000,
          giveUpAfterMs: 5 * 60_000,
          onAttempt: () => {},
        }),
    );

    /** Drives `count` envelopes, `inFlight` at a time; returns create → Completed of each, in ms. */
    const drive = async (count: number, inFlight: number): Promise<number[]> => {
      runs += 1;
      const durations: number[] = [];
      let next = 0;
      const lane = async () => {
        while (next < count) {
          const index = next;
          next += 1;
          const progress: EnvelopeProgress = { externalReference: `scale-${runs}-${index}`, signedAt: [] };
          const startedAt = Date.now();
          await driveEnvelope(
            clients[index % clients.length] as CarefulIntegrator,
            {
              index,
              externalReference: progress.externalReference,
              templateId: setup.templateId,
              signers: SIGNERS,
            },
            progress,
            () => {},
          );
          for (;;) {
            const { rows } = await monitor.query<{ status: string }>(
              'select status from envelope where id = $1',
              [progress.envelopeId],
            );
            if (rows[0]?.status === 'Completed') break;
            await sleep(20);
          }
          durations.push(Date.now() - startedAt);
        }
      };
      await Promise.all(Array.from({ length: inFlight }, lane));
      return durations;
    };

    await drive(WARM_UP, Math.min(IN_FLIGHT, WARM_UP));
    const workerPids = new Set(workers.map((w) => w.child.pid));
    const apiPids = new Set(apis.map((a) => a.child.pid));
    const cpu = async () => {
      const byKind: Record<string, number> = {};
      for (const entry of await processTree()) {
        const server = serverKind(entry.name);
        const kind = workerPids.has(entry.pid)
          ? 'worker'
          : apiPids.has(entry.pid)
            ? 'api'
            : server === 'PostgreSQL'
              ? 'postgres'
              : server === 'Temporal dev server'
                ? 'temporal'
                : null;
        if (kind) byKind[kind] = (byKind[kind] ?? 0) + entry.cpu + entry.reaped;
      }
      return byKind;
    };
    const cpuBefore = await cpu();
    const t0 = Date.now();
    const durations = await drive(ENVELOPES, IN_FLIGHT);
    const elapsed = (Date.now() - t0) / 1000;
    const cpuAfter = await cpu();
    results.push({
      ...layout,
      envelopesPerSecond: ENVELOPES / elapsed,
      p50: percentile(durations, 50),
      p99: percentile(durations, 99),
      cpuPerEnvelope: Object.fromEntries(
        Object.keys(cpuAfter).map((kind) => [
          kind,
          ((cpuAfter[kind] ?? 0) - (cpuBefore[kind] ?? 0)) / ENVELOPES,
        ]),
      ),
    });
    say(`  ${(ENVELOPES / elapsed).toFixed(2)} envelopes/s`);
    for (const part of [...apis, ...workers]) await stopPart(part.child);
  }

  const base = results[0] as LayoutResult;
  out();
  out(
    `Two-signer Sequential envelopes, create → Completed, ${IN_FLIGHT} in flight, ${ENVELOPES} per layout ` +
      `(after ${WARM_UP} to warm up); one PostgreSQL, one Temporal dev server, one machine`,
  );
  const header = [
    'workers × APIs',
    'envelopes/s',
    'vs first',
    'p50',
    'p99',
    'CPU ms per envelope: workers',
    'APIs',
    'Temporal',
    'PostgreSQL',
  ];
  out(header.join('  '));
  for (const r of results) {
    out(
      [
        `${r.workers} × ${r.apis}`.padEnd(header[0]?.length ?? 0),
        r.envelopesPerSecond.toFixed(2).padStart(header[1]?.length ?? 0),
        (r.envelopesPerSecond / base.envelopesPerSecond).toFixed(2).padStart(header[2]?.length ?? 0),
        `${(r.p50 / 1000).toFixed(2)} s`.padStart(7),
        `${(r.p99 / 1000).toFixed(2)} s`.padStart(7),
        String(Math.round((r.cpuPerEnvelope.worker ?? 0) * 1000)).padStart(header[5]?.length ?? 0),
        String(Math.round((r.cpuPerEnvelope.api ?? 0) * 1000)).padStart(4),
        String(Math.round((r.cpuPerEnvelope.temporal ?? 0) * 1000)).padStart(8),
        String(Math.round((r.cpuPerEnvelope.postgres ?? 0) * 1000)).padStart(10),
      ].join('  '),
    );
  }
} finally {
  for (const child of started) await stopPart(child);
  await monitor.end();
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}

// `npm run bench:history-shards`: what a history shard costs when nothing happens. The production Temporal
// Server's four services (scripts/cluster/temporal-server.ts) on an embedded PostgreSQL, once per shard count in
// BENCH_SHARDS (default "4,512,1024"), each on databases of its own (the count is fixed for a database's life):
// after the start, BENCH_SETTLE_SECONDS (default 20) to let history acquire its shards, then BENCH_IDLE_SECONDS
// (default 30) with no workflow at all, measuring the CPU of each service and of PostgreSQL (from /proc, with
// descendants) and history's resident memory (hist. MiB). Input to the shard count of docs/deployment.md "Sizing": a shard
// is lightweight but not free (its queues and timers poll). Asserts nothing.
import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../config/config.ts';
import { spawnEmbeddedPostgres } from '../db/embedded-postgres-process.ts';
import { provisionTemporalServer } from '../provisioning/temporal-server.ts';
import { startTemporalCluster, TEMPORAL_SERVICES } from '../scripts/cluster/temporal-server.ts';
import { freePort } from '../scripts/ports.ts';
import { allProcesses, descendants } from './process-cpu.ts';

const SHARDS = (process.env.BENCH_SHARDS ?? '4,512,1024').split(',').map(Number);
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 20);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 30);
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);

async function rssMiB(pid: number | undefined): Promise<number> {
  if (pid === undefined) return Number.NaN;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}

const { cacheDir } = loadConfig({ ...process.env, SIGIL_ENV: 'development' });
const files = await provisionTemporalServer({
  serverDir: process.env.TEMPORAL_SERVER_DIR,
  cacheDir,
  log: say,
});
const dir = await mkdtemp(join(tmpdir(), 'sigil-bench-shards-'));
// Run as root, the embedded PostgreSQL runs as another user, which must reach its directory inside.
await chmod(dir, 0o755);
const postgres = await spawnEmbeddedPostgres({ dataDir: join(dir, 'postgres'), port: await freePort() });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const results: { shards: number; cpu: Record<string, number>; rss: number; startMs: number }[] = [];
try {
  for (const shards of SHARDS) {
    say(`${shards} history shards: starting the four services on new databases…`);
    const started = Date.now();
    const cluster = await startTemporalCluster({
      files,
      postgresUrl: postgres.url,
      databases: { temporal: `temporal_${shards}`, visibility: `temporal_visibility_${shards}` },
      dir: join(dir, `temporal-${shards}`),
      namespace: 'default',
      historyShards: shards,
      log: () => {},
    });
    const startMs = Date.now() - started;
    try {
      say(`  serving after ${startMs} ms; ${SETTLE_SECONDS} s to settle, then ${IDLE_SECONDS} s idle…`);
      await sleep(SETTLE_SECONDS * 1000);
      const roots = (): [string, number[]][] => [
        ...TEMPORAL_SERVICES.map((s): [string, number[]] => [s, [cluster.pid(s) as number]]),
        ['postgres', [postgres.child.pid as number]],
      ];
      const sample = async () => {
        const processes = await allProcesses();
        return Object.fromEntries(
          roots().map(([name, pids]) => [
            name,
            descendants(processes, pids).reduce((sum, p) => sum + p.cpu + p.reaped, 0),
          ]),
        );
      };
      const before = await sample();
      const t0 = Date.now();
      await sleep(IDLE_SECONDS * 1000);
      const after = await sample();
      const seconds = (Date.now() - t0) / 1000;
      const cpu = Object.fromEntries(
        Object.keys(after).map((k) => [k, ((after[k] ?? 0) - (before[k] ?? 0)) / seconds]),
      );
      const rss = await rssMiB(cluster.pid('history'));
      results.push({ shards, cpu, rss, startMs });
      say(
        `  idle CPU ms/s: ${Object.entries(cpu)
          .map(([k, v]) => `${k} ${Math.round(v * 1000)}`)
          .join(', ')}; history RSS ${rss.toFixed(0)} MiB`,
      );
    } finally {
      await cluster.stop();
    }
  }
} finally {
  await postgres.stop();
  await rm(dir, { recursive: true, force: true });
}

process.stdout.write(
  `\nIdle Temporal Server (no workflow), ${IDLE_SECONDS} s after ${SETTLE_SECONDS} s to settle; CPU ms per second\n`,
);
process.stdout.write(
  `${['shards', ...TEMPORAL_SERVICES, 'postgres', 'hist. MiB', 'start ms'].map((h) => h.padStart(10)).join('')}\n`,
);
for (const r of results) {
  process.stdout.write(
    `${[
      String(r.shards),
      ...[...TEMPORAL_SERVICES, 'postgres'].map((k) => String(Math.round((r.cpu[k] ?? 0) * 1000))),
      r.rss.toFixed(0),
      String(r.startMs),
    ]
      .map((c) => c.padStart(10))
      .join('')}\n`,
  );
}

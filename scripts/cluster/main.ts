// `npm run cluster`: the production-shaped deployment of scripts/cluster/cluster.ts on this machine, every part a
// process of its own, with progress lines while binaries are built or installed and parts start, then one
// block saying where everything is. Ctrl-C (or SIGTERM) stops the parts in order, each step printed; the data
// stays in the directory (CLUSTER_DATA_DIR, default `.data/cluster`) for the next start, which upgrades the
// schemas instead of recreating them. CLUSTER_SIGIL_WORKERS and CLUSTER_APIS choose how many of each (2).
import { redactUrl } from '../../config/logger.ts';
import { ensureWebBuild } from '../ensure-web-build.ts';
import { type Cluster, DEFAULT_CLUSTER_DIR, startCluster } from './cluster.ts';
import { STOP_ORDER } from './temporal-server.ts';

const say = (line: string) => process.stdout.write(`[cluster] ${line}\n`);

function count(name: string): number {
  const raw = process.env[name]?.trim();
  if (!raw) return 2;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 16) {
    process.stderr.write(`${name}=${raw}: must be a whole number from 1 to 16\n`);
    process.exit(64);
  }
  return value;
}

const sigilWorkers = count('CLUSTER_SIGIL_WORKERS');
const apis = count('CLUSTER_APIS');
let cluster: Cluster | undefined;
let stopping = false;

async function shutdown(why: string, code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (!cluster) {
    // startCluster has not answered yet: the parts started so far are SIGKILLed when this process exits (the
    // data stays; PostgreSQL recovers from its log at the next start).
    say(`${why} during the start: the parts started so far are killed`);
    process.exit(code === 0 ? 130 : code);
  }
  say(
    `${why}: stopping in order — HAProxy, the Web UI, APIs, Sigil workers, Temporal (${STOP_ORDER.join(', ')}), S3 gateway, SeaweedFS, PostgreSQL`,
  );
  await cluster?.stop();
  say('stopped; the data is kept for the next start');
  process.exit(code);
}

process.on('SIGINT', () => void shutdown('Ctrl-C', 0));
process.on('SIGTERM', () => void shutdown('SIGTERM', 0));

const t0 = Date.now();
try {
  // The APIs serve the web app from web/build (built when missing or older than its sources).
  await ensureWebBuild(say);
  cluster = await startCluster({
    dataDir: process.env.CLUSTER_DATA_DIR?.trim() || DEFAULT_CLUSTER_DIR,
    sigilWorkers,
    apis,
    say,
  });
} catch (error) {
  process.stderr.write(
    `\n[cluster] start failed: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
}
if (stopping) await new Promise(() => {});

const pids = (name: string) => cluster?.part(name).pids().join(', ') || '-';
const processes = cluster.parts.map((part) => `    ${part.name.padEnd(18)} pid ${pids(part.name)}`);
const lines = [
  '',
  '────────────────────────────────────────────────────────────────────────',
  `  Sigil cluster is running, ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  '',
  `  App (HAProxy)       ${cluster.url}`,
  `  Health              ${cluster.url}/api/health`,
  `  HAProxy statistics  ${cluster.statsUrl}`,
  `  Temporal Web UI     ${cluster.webUiUrl ?? `none: ${cluster.webUiMissing?.split('\n')[0] ?? 'not started'}`}`,
  `  Temporal frontend   ${cluster.temporalAddress}  namespace ${cluster.namespace}`,
  `  PostgreSQL          ${redactUrl(cluster.databaseUrl)}`,
  `  S3 (SeaweedFS)      ${cluster.s3.endpoint}  bucket ${cluster.s3.bucket}  (keys in ${cluster.dataDir}/cluster-state.json)`,
  '',
  '  Processes',
  ...processes,
  '',
  `  Data                ${cluster.dataDir}/ (kept for the next start)`,
  `  Logs                ${cluster.logDir}/<process>.log`,
  '  Stop with Ctrl-C: HAProxy, Web UI, APIs, Sigil workers, Temporal, S3 gateway, SeaweedFS, PostgreSQL, in that order.',
  '────────────────────────────────────────────────────────────────────────',
  '',
];
process.stdout.write(`${lines.join('\n')}\n`);

// Runs embedded PostgreSQL as its own process (started by db/embedded-postgres-process.ts for `npm start`, the
// tests and the benchmarks): prints one JSON line `{"ready":true}` once it accepts connections and stops the
// cluster on SIGTERM/SIGINT, or when its parent dies. A separate process because the embedded-postgres package
// installs exit hooks that would otherwise take over the parent's signals and exit code.
import { watchSupervisor } from '../config/shutdown.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

const [dataDir, port] = process.argv.slice(2);
if (!dataDir || !port) {
  process.stderr.write('usage: node db/embedded-postgres-main.ts DATA_DIR PORT\n');
  process.exit(64);
}
try {
  await startEmbeddedPostgres({
    dataDir,
    port: Number(port),
    log: (line) => process.stdout.write(`${JSON.stringify({ log: line })}\n`),
  });
  process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
} catch (error) {
  process.stdout.write(
    `${JSON.stringify({ error: error instanceof Error ? error.message : String(error) })}\n`,
  );
  process.exit(1);
}
watchSupervisor();
// Stays alive while PostgreSQL runs; embedded-postgres stops the cluster and exits on SIGTERM or SIGINT.
setInterval(() => {}, 1 << 30);

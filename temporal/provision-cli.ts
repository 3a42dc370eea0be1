// Provisions the Temporal servers Sigil runs itself (see provision.ts); `npm run pretest` runs it with --all,
// which is what builds the Temporal CLI on a fresh CI machine.
//   node temporal/provision-cli.ts [--all|--dev-server|--test-server] [--json]
// Progress goes to stderr; one result line per server (or the JSON with --json) to stdout.
import { loadConfigOrExit } from '../config/config.ts';
import {
  describeProvisioned,
  type ProvisionedServer,
  provisionDevServer,
  provisionTimeSkippingServer,
  type ServerKind,
} from './provision.ts';

const USAGE = `Usage: node temporal/provision-cli.ts [--all|--dev-server|--test-server] [--json]
  --all          both servers (the default)
  --dev-server   the Temporal CLI (dev server + Web UI); nothing to do when TEMPORAL_ADDRESS is set
  --test-server  the Java time-skipping test server used by the tests
  --json         print the results as JSON
`;

type Outcome =
  | ({ status: 'provisioned' } & ProvisionedServer)
  | { status: 'skipped'; kind: ServerKind; reason: string }
  | { status: 'failed'; kind: ServerKind; error: string };

function parseArgs(argv: string[]): { kinds: ServerKind[]; json: boolean } {
  const kinds = new Set<ServerKind>();
  let json = false;
  for (const arg of argv) {
    if (arg === '--all') {
      kinds.add('dev-server');
      kinds.add('test-server');
    } else if (arg === '--dev-server') kinds.add('dev-server');
    else if (arg === '--test-server') kinds.add('test-server');
    else if (arg === '--json') json = true;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else {
      process.stderr.write(`Unknown argument: ${arg}\n${USAGE}`);
      process.exit(64);
    }
  }
  if (kinds.size === 0) {
    kinds.add('dev-server');
    kinds.add('test-server');
  }
  return { kinds: (['dev-server', 'test-server'] as const).filter((kind) => kinds.has(kind)), json };
}

const { kinds, json } = parseArgs(process.argv.slice(2));
const config = loadConfigOrExit();
const log = (line: string) => process.stderr.write(`${line}\n`);
const outcomes: Outcome[] = [];

for (const kind of kinds) {
  if (kind === 'dev-server' && !config.temporal.devServer) {
    outcomes.push({
      status: 'skipped',
      kind,
      reason: `TEMPORAL_ADDRESS=${config.temporal.address} is set, so Sigil uses that existing Temporal server and provisions no dev server`,
    });
    continue;
  }
  try {
    const server =
      kind === 'dev-server'
        ? await provisionDevServer({ cliPath: config.temporal.cliPath, cacheDir: config.cacheDir, log })
        : await provisionTimeSkippingServer({
            testServerPath: config.temporal.testServerPath,
            cacheDir: config.cacheDir,
            log,
          });
    outcomes.push({ status: 'provisioned', ...server });
  } catch (error) {
    outcomes.push({ status: 'failed', kind, error: error instanceof Error ? error.message : String(error) });
  }
}

if (json) {
  process.stdout.write(`${JSON.stringify(outcomes, null, 2)}\n`);
} else {
  for (const outcome of outcomes) {
    if (outcome.status === 'provisioned') process.stdout.write(`${describeProvisioned(outcome)}\n`);
    else if (outcome.status === 'skipped')
      process.stdout.write(`${outcome.kind}: skipped: ${outcome.reason}\n`);
  }
}
for (const outcome of outcomes) {
  if (outcome.status === 'failed') process.stderr.write(`\n${outcome.kind}: FAILED\n${outcome.error}\n`);
}
process.exitCode = outcomes.some((outcome) => outcome.status === 'failed') ? 1 : 0;

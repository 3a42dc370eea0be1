// `npm run provision`: provisions what Sigil runs itself ahead of time; `npm test` runs it first (`pretest`,
// with --all), which is what fetches the Temporal CLI, the Java test server, Chromium, Schemathesis and the two
// PDF signature validators (pdfsig, pyHanko) on a fresh machine, the Python client's test environment and
// SeaweedFS (the S3-compatible object store of the storage tests, built with Go), and the production Temporal
// Server with its schema tool, the Temporal Web UI server and HAProxy (`npm run cluster`: built with Go; Debian's
// package).
//   node provisioning/cli.ts [--all|--dev-server|--test-server|--chromium|--schemathesis|
//     --pdf-validators|--pdfsig|--pyhanko|--python-client|--openapi-generators|--seaweedfs|--haproxy|
//     --temporal-ui] [--json]
// Progress goes to stderr; one result line per part (or the JSON with --json) to stdout. Exit code 1 when a
// part could not be provided (its error says what to install or which variable to set).
import { loadConfigOrExit } from '../config/config.ts';
import { provisionDevServer } from '../temporal/provisioning/temporal-cli.ts';
import { provisionTimeSkippingServer } from '../temporal/provisioning/test-server.ts';
import { provisionChromium } from './chromium.ts';
import { provisionHaproxy } from './haproxy.ts';
import { provisionOpenApiGenerator, provisionOpenApiPythonClient } from './openapi-generators.ts';
import { provisionPdfsig, provisionPyhanko } from './pdf-validators.ts';
import { provisionPythonClient } from './python-client.ts';
import { provisionSchemathesis } from './schemathesis.ts';
import { provisionSeaweedfs } from './seaweedfs.ts';
import { describeProvisioned, type Provisioned, type ProvisionKind } from './shared.ts';
import { provisionTemporalServer } from './temporal-server.ts';
import { provisionTemporalUi } from './temporal-ui.ts';

const ALL: readonly ProvisionKind[] = [
  'dev-server',
  'test-server',
  'chromium',
  'schemathesis',
  'pdfsig',
  'pyhanko',
  'python-client',
  'openapi-python-client',
  'openapi-generator',
  'temporal-server',
  'seaweedfs',
  'haproxy',
  'temporal-ui',
];

const USAGE = `Usage: node provisioning/cli.ts [--all|--dev-server|--test-server|--chromium|--schemathesis|
         --pdf-validators|--pdfsig|--pyhanko|--python-client|--openapi-generators|--seaweedfs|--haproxy|
         --temporal-ui] [--json]
  --all             everything below (the default)
  --dev-server      the Temporal CLI (dev server + Web UI); nothing to do when TEMPORAL_ADDRESS is set
  --test-server     the Java time-skipping test server used by the tests
  --chromium        the Chromium the browser tests drive (installed with apt-get when running as root)
  --schemathesis    the API fuzzer the fuzz test runs (pinned; installed from PyPI into a virtualenv in the cache)
  --pdf-validators  both PDF signature validators the sealing tests run: --pdfsig and --pyhanko
  --pdfsig          poppler's pdfsig (Debian's poppler-utils, installed with apt-get when running as root)
  --pyhanko         the pyHanko CLI (pinned; installed from PyPI into a virtualenv in the cache)
  --python-client   pytest with clients/python installed (editable), for its tests (a virtualenv in the cache)
  --openapi-generators  the two client generators of the OpenAPI test: openapi-python-client (pinned; a
                    virtualenv in the cache) and openapi-generator-cli (pinned; a jar from Maven Central)
  --temporal-server the production Temporal Server 1.32.2 and its SQL schema tool (\`npm run cluster\`;
                    built once with Go from the module proxy into the cache, schemas copied beside them)
  --seaweedfs       SeaweedFS (\`weed\`), the S3-compatible object store of the storage tests (pinned; built
                    once with Go from the module proxy into the cache)
  --haproxy         HAProxy, the load balancer of \`npm run cluster\` (installed with apt-get when running as root)
  --temporal-ui     the Temporal Web UI server of \`npm run cluster\` (pinned; built once with Go from the module
                    proxy into the cache, its web app embedded)
  --json            print the results as JSON
`;

type Outcome =
  | ({ status: 'provisioned' } & Provisioned)
  | { status: 'skipped'; kind: ProvisionKind; reason: string }
  | { status: 'failed'; kind: ProvisionKind; error: string };

function parseArgs(argv: string[]): { kinds: ProvisionKind[]; json: boolean } {
  const kinds = new Set<ProvisionKind>();
  let json = false;
  for (const arg of argv) {
    if (arg === '--all') for (const kind of ALL) kinds.add(kind);
    else if (arg === '--dev-server') kinds.add('dev-server');
    else if (arg === '--test-server') kinds.add('test-server');
    else if (arg === '--chromium') kinds.add('chromium');
    else if (arg === '--schemathesis') kinds.add('schemathesis');
    else if (arg === '--pdf-validators') {
      kinds.add('pdfsig');
      kinds.add('pyhanko');
    } else if (arg === '--pdfsig') kinds.add('pdfsig');
    else if (arg === '--pyhanko') kinds.add('pyhanko');
    else if (arg === '--python-client') kinds.add('python-client');
    else if (arg === '--openapi-generators') {
      kinds.add('openapi-python-client');
      kinds.add('openapi-generator');
    } else if (arg === '--seaweedfs') kinds.add('seaweedfs');
    else if (arg === '--haproxy') kinds.add('haproxy');
    else if (arg === '--temporal-ui') kinds.add('temporal-ui');
    else if (arg === '--temporal-server') kinds.add('temporal-server');
    else if (arg === '--json') json = true;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else {
      process.stderr.write(`Unknown argument: ${arg}\n${USAGE}`);
      process.exit(64);
    }
  }
  if (kinds.size === 0) for (const kind of ALL) kinds.add(kind);
  return { kinds: ALL.filter((kind) => kinds.has(kind)), json };
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
    outcomes.push({ status: 'provisioned', ...(await provision(kind)) });
  } catch (error) {
    outcomes.push({ status: 'failed', kind, error: error instanceof Error ? error.message : String(error) });
  }
}

function provision(kind: ProvisionKind): Promise<Provisioned> {
  switch (kind) {
    case 'dev-server':
      return provisionDevServer({ cliPath: config.temporal.cliPath, cacheDir: config.cacheDir, log });
    case 'test-server':
      return provisionTimeSkippingServer({
        testServerPath: config.temporal.testServerPath,
        cacheDir: config.cacheDir,
        log,
      });
    case 'chromium':
      return provisionChromium({ cacheDir: config.cacheDir, log });
    case 'schemathesis':
      return provisionSchemathesis({ cacheDir: config.cacheDir, log });
    case 'pdfsig':
      return provisionPdfsig({ cacheDir: config.cacheDir, log });
    case 'pyhanko':
      return provisionPyhanko({ cacheDir: config.cacheDir, log });
    case 'python-client':
      return provisionPythonClient({ cacheDir: config.cacheDir, log });
    case 'openapi-python-client':
      return provisionOpenApiPythonClient({ cacheDir: config.cacheDir, log });
    case 'openapi-generator':
      return provisionOpenApiGenerator({ cacheDir: config.cacheDir, log });
    case 'temporal-server':
      return provisionTemporalServer({
        serverDir: process.env.TEMPORAL_SERVER_DIR,
        cacheDir: config.cacheDir,
        log,
      });
    case 'seaweedfs':
      return provisionSeaweedfs({ cacheDir: config.cacheDir, log });
    case 'haproxy':
      return provisionHaproxy({ cacheDir: config.cacheDir, log });
    case 'temporal-ui':
      return provisionTemporalUi({ cacheDir: config.cacheDir, log });
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

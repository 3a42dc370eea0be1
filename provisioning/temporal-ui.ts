// The Temporal Web UI of `npm run cluster`: Temporal's UI server (github.com/temporalio/ui-server/v2), whose Go
// module carries the built web app (`ui/assets`, embedded into the binary), so one `go install` from the Go
// module proxy makes a complete UI (about 2 minutes on 2 cores) — kept in the cache like the Temporal Server.
// Looked up in this order: TEMPORAL_UI_SERVER_PATH, the cache, a Go build.
//
// The version: 2.56.4, the newest whose requirements the module proxy serves — 2.58.0 and 2.58.1 need
// go.temporal.io/api v1.64.0, which the proxy refuses ("This module version is not available"); 2.56.4 needs
// v1.63.5, the one Temporal Server 1.32.2 is built with.
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  cacheState,
  defaultLog,
  describeExit,
  findOnPath,
  formatDuration,
  heartbeat,
  indent,
  isExecutableFile,
  type Log,
  onPathSync,
  type Provisioned,
  ProvisioningError,
  type ProvisionOptions,
  removeLeftovers,
  requireExecutable,
  runCommand,
  withLock,
} from './shared.ts';

export const TEMPORAL_UI_VERSION = '2.56.4';
/** The UI server's go.mod asks for Go 1.26.10; the same approved toolchain as the Temporal Server. */
export const TEMPORAL_UI_GO_TOOLCHAIN = 'go1.27.3';
const PACKAGE = 'github.com/temporalio/ui-server/v2/cmd/server';
const KIND = 'temporal-ui';

export interface ProvisionedTemporalUi extends Provisioned {
  kind: 'temporal-ui';
  /** `temporal-ui-server --root DIR --config config --env ENV start`. */
  path: string;
}

export function temporalUiCachePath(cacheDir: string, version = TEMPORAL_UI_VERSION): string {
  return join(cacheDir, 'temporal-ui', `v${version}`, 'temporal-ui-server');
}

/** "Temporal UI version 2.56.4" (its `--version`) → "2.56.4". */
export function parseTemporalUiVersion(output: string): string | undefined {
  return /version (\d+\.\d+\.\d+\S*)/.exec(output)?.[1];
}

/**
 * Finds or builds the Temporal UI server: TEMPORAL_UI_SERVER_PATH, the cache, or a Go build into the cache.
 * Throws ProvisioningError when the variable names no executable, when there is no Go, or when the build fails.
 */
export async function provisionTemporalUi(options: ProvisionOptions): Promise<ProvisionedTemporalUi> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;

  const explicit = env.TEMPORAL_UI_SERVER_PATH?.trim();
  if (explicit) {
    const path = await requireExecutable(KIND, explicit);
    return { kind: KIND, source: 'env', path, version: undefined };
  }
  const cached = temporalUiCachePath(options.cacheDir);
  if (await isExecutableFile(cached)) {
    return { kind: KIND, source: 'cache', path: cached, version: TEMPORAL_UI_VERSION };
  }
  const go = await findOnPath('go', env);
  if (!go) {
    throw new ProvisioningError(
      KIND,
      `No Temporal Web UI server ${TEMPORAL_UI_VERSION}: ${howToProvideTemporalUi(env, options.cacheDir)}`,
    );
  }
  const built = await withLock(KIND, options.cacheDir, 'temporal-ui', log, async () => {
    if (await isExecutableFile(cached)) return false;
    await buildTemporalUi(go, options.cacheDir, log, env);
    return true;
  });
  return { kind: KIND, source: built ? 'built' : 'cache', path: cached, version: TEMPORAL_UI_VERSION };
}

/** `go install` into a scratch directory of the cache, then one rename into place. */
async function buildTemporalUi(go: string, cacheDir: string, log: Log, env: NodeJS.ProcessEnv) {
  const root = join(cacheDir, 'temporal-ui');
  const target = temporalUiCachePath(cacheDir);
  await mkdir(root, { recursive: true });
  await removeLeftovers(root, '.build-');
  const work = await mkdtemp(join(root, '.build-'));
  const gobin = join(work, 'bin');
  const ref = `${PACKAGE}@v${TEMPORAL_UI_VERSION}`;
  const goEnv = { ...env, GOTOOLCHAIN: TEMPORAL_UI_GO_TOOLCHAIN, CGO_ENABLED: '0', GOBIN: gobin };
  log(
    `The Temporal Web UI server ${TEMPORAL_UI_VERSION} is not in the cache (${target}). Building it once with ` +
      `\`go install ${ref}\` (toolchain ${TEMPORAL_UI_GO_TOOLCHAIN}) from the Go module proxy; its module carries ` +
      'the built web app. About 2 minutes on 2 cores; later runs use the cache.',
  );
  const started = Date.now();
  let packages = 0;
  let downloads = 0;
  let last = 'starting go';
  const stopHeartbeat = heartbeat(
    log,
    (elapsed) =>
      `  building the Temporal Web UI server: ${elapsed} elapsed, ` +
      `${downloads ? `${downloads} modules downloaded, ` : ''}${packages} packages compiled; last: ${last}`,
  );
  try {
    const result = await runCommand(go, ['install', '-v', ref], {
      cwd: work,
      env: goEnv,
      onLine: (line) => {
        if (line.startsWith('go: downloading ')) {
          downloads++;
          last = line;
        } else if (/^[\w.-]+(\/[\w.~+-]+)*$/.test(line)) {
          packages++;
          last = line;
        }
      },
    });
    const elapsed = formatDuration(Date.now() - started);
    if (result.code !== 0) {
      throw new ProvisioningError(
        KIND,
        `Building the Temporal Web UI server with \`go install ${ref}\` failed (${describeExit(result)} after ` +
          `${elapsed}).\nLast lines of go's output:\n${indent(result.tail)}`,
      );
    }
    const version = await runCommand(join(gobin, 'server'), ['--version'], { env, timeoutMs: 60_000 });
    const printed = parseTemporalUiVersion(version.tail.join('\n'));
    if (version.code !== 0 || printed !== TEMPORAL_UI_VERSION) {
      throw new ProvisioningError(
        KIND,
        `The built Temporal Web UI server does not say version ${TEMPORAL_UI_VERSION} ` +
          `(\`server --version\`: ${describeExit(version)}):\n${indent(version.tail)}`,
      );
    }
    await mkdir(join(root, `v${TEMPORAL_UI_VERSION}`), { recursive: true });
    await rename(join(gobin, 'server'), target);
    log(`Built the Temporal Web UI server ${TEMPORAL_UI_VERSION} in ${elapsed}: ${target}`);
  } finally {
    stopHeartbeat();
    await rm(work, { recursive: true, force: true });
  }
}

/** Why there is no UI server and how to provide one, for error messages and the cluster's printed block. */
export function howToProvideTemporalUi(env: NodeJS.ProcessEnv, cacheDir: string | undefined): string {
  const looked = [
    `TEMPORAL_UI_SERVER_PATH: ${env.TEMPORAL_UI_SERVER_PATH ? `set to ${env.TEMPORAL_UI_SERVER_PATH}` : 'not set'}`,
    ...(cacheDir ? [`cache: ${cacheState(temporalUiCachePath(cacheDir))}`] : []),
    `\`go\` on PATH: ${onPathSync('go', env) ? 'found' : 'not found'}`,
  ];
  return (
    `Sigil looked at:\n${looked.map((line) => `  - ${line}`).join('\n')}\nTo provide it:\n` +
    `  - install Go (1.21 or later; it fetches the ${TEMPORAL_UI_GO_TOOLCHAIN} toolchain itself) and run ` +
    '`npm run provision -- --temporal-ui`, which builds it once into the cache;\n' +
    '  - or set TEMPORAL_UI_SERVER_PATH to a Temporal UI server binary (github.com/temporalio/ui-server).'
  );
}

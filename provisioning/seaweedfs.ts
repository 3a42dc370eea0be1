// SeaweedFS (Apache-2.0), the S3-compatible object store the storage port's tests run against and a deployment
// beyond one machine can use (`weed server … -s3`). Looked up in this order: SEAWEEDFS_PATH, Sigil's cache, a
// build with Go from the module proxy into the cache. SeaweedFS's own go.mod carries a `replace`, which
// `go install module@version` refuses, so the build goes through a small wrapper module that requires the pinned
// pseudo-version and repeats that one replace; it asks for the Go toolchain SeaweedFS needs (GOTOOLCHAIN), which
// the local `go` downloads from the proxy when it is older.
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
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
  readVersion,
  removeLeftovers,
  requireExecutable,
  runCommand,
  withLock,
} from './shared.ts';

/** The SeaweedFS release `weed version` reports for the pinned commit. */
export const SEAWEEDFS_VERSION = '4.53';
/** The pinned commit of github.com/seaweedfs/seaweedfs, as a Go pseudo-version (release 4.53). */
export const SEAWEEDFS_MODULE_VERSION = 'v0.0.0-20261109003541-7506e5f91cd6';
/** The toolchain the pinned commit's go.mod asks for; an older local `go` fetches it from the module proxy. */
export const SEAWEEDFS_GO_TOOLCHAIN = 'go1.27.3';
const SEAWEEDFS_MODULE = 'github.com/seaweedfs/seaweedfs';
const SEAWEEDFS_PACKAGE = `${SEAWEEDFS_MODULE}/weed`;
/** The one `replace` of SeaweedFS's go.mod, which a module that requires it must repeat. */
const SEAWEEDFS_REPLACE = 'github.com/tyler-smith/go-bip39 => github.com/cosmos/go-bip39 v1.0.0';
const BUILD_TIMEOUT_MS = 30 * 60_000;

export interface ProvisionedSeaweedfs extends Provisioned {
  kind: 'seaweedfs';
  path: string;
}

/** Where the built `weed` is cached. */
export function seaweedfsCachePath(cacheDir: string, version = SEAWEEDFS_VERSION): string {
  return join(cacheDir, 'seaweedfs', `v${version}`, 'weed');
}

/** The version `weed version` prints ("version 30GB 4.53 7506e5f… linux amd64"), or what is wrong with it. */
export function weedVersion(path: string, env: NodeJS.ProcessEnv) {
  return readVersion(path, env, {
    args: ['version'],
    timeoutMs: 60_000,
    read: (line) => /^version\b.*?\b(\d+\.\d+)\b/.exec(line)?.[1],
    expected: 'version … <major>.<minor> …',
  });
}

/**
 * Finds or builds `weed`. Throws ProvisioningError when SEAWEEDFS_PATH is set but unusable, when there is no
 * cached build and no `go` to build one, or when the build fails (with the tail of go's output).
 */
export async function provisionSeaweedfs(options: ProvisionOptions): Promise<ProvisionedSeaweedfs> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;

  const explicit = env.SEAWEEDFS_PATH?.trim();
  if (explicit) {
    const path = await requireExecutable('seaweedfs', explicit);
    const version = await weedVersion(path, env);
    return { kind: 'seaweedfs', source: 'env', path, version: version.ok ? version.version : undefined };
  }

  const target = seaweedfsCachePath(options.cacheDir);
  if (await isExecutableFile(target)) {
    return { kind: 'seaweedfs', source: 'cache', path: target, version: SEAWEEDFS_VERSION };
  }

  const go = await findOnPath('go', env);
  if (!go) {
    throw new ProvisioningError(
      'seaweedfs',
      `SeaweedFS ${SEAWEEDFS_VERSION} is not in Sigil's cache (${target}), and there is no \`go\` on PATH to ` +
        `build it.\n${howToProvideSeaweedfs(options.cacheDir, env)}`,
    );
  }

  return withLock('seaweedfs', options.cacheDir, 'seaweedfs', log, async () => {
    // Another process may have built it while this one waited for the lock.
    if (await isExecutableFile(target)) {
      return { kind: 'seaweedfs', source: 'cache', path: target, version: SEAWEEDFS_VERSION };
    }
    log(
      `SeaweedFS ${SEAWEEDFS_VERSION} (the S3-compatible object store of the storage tests) is not cached.`,
    );
    await buildSeaweedfs(go, options.cacheDir, log, env);
    return { kind: 'seaweedfs', source: 'built', path: target, version: SEAWEEDFS_VERSION };
  });
}

/** The wrapper module's go.mod: requires the pinned commit and repeats its replace. */
export function wrapperGoMod(): string {
  return [
    'module sigil.local/seaweedfs-build',
    '',
    'go 1.25',
    '',
    `require ${SEAWEEDFS_MODULE} ${SEAWEEDFS_MODULE_VERSION}`,
    '',
    `replace ${SEAWEEDFS_REPLACE}`,
    '',
  ].join('\n');
}

/** A file that imports the command, so `go mod tidy` keeps every module it needs. */
const WRAPPER_TOOLS_GO = `//go:build tools\n\npackage tools\n\nimport _ "${SEAWEEDFS_PACKAGE}"\n`;

async function buildSeaweedfs(go: string, cacheDir: string, log: Log, env: NodeJS.ProcessEnv): Promise<void> {
  const root = join(cacheDir, 'seaweedfs');
  const target = seaweedfsCachePath(cacheDir);
  await mkdir(root, { recursive: true });
  // We hold the lock, so any build directory left here belongs to a build that died.
  await removeLeftovers(root, '.build-');
  const work = await mkdtemp(join(root, '.build-'));
  const goEnv = { ...env, GOTOOLCHAIN: SEAWEEDFS_GO_TOOLCHAIN };

  log(
    `Building it once with Go (${SEAWEEDFS_GO_TOOLCHAIN}) from the Go module proxy through a wrapper module ` +
      `(${SEAWEEDFS_MODULE} ${SEAWEEDFS_MODULE_VERSION}). The first build takes about 4 minutes on 2 cores; ` +
      'later runs use the cache.',
  );
  const started = Date.now();
  let downloads = 0;
  let packages = 0;
  let step = 'go mod tidy';
  let last = 'starting go';
  const stopHeartbeat = heartbeat(
    log,
    (elapsed) =>
      `  building SeaweedFS: ${elapsed} elapsed, ${step}, ${downloads} modules downloaded, ` +
      `${packages} packages compiled; last: ${last}`,
  );
  const onLine = (line: string) => {
    if (line.startsWith('go: downloading ') || line.startsWith('go: finding ')) {
      downloads++;
      last = line;
    } else if (/^[\w.-]+(\/[\w.~+-]+)*$/.test(line)) {
      packages++;
      last = line;
    }
  };
  const failed = (command: string, result: Awaited<ReturnType<typeof runCommand>>) =>
    new ProvisioningError(
      'seaweedfs',
      `Building SeaweedFS with \`${command}\` failed (${describeExit(result)} after ` +
        `${formatDuration(Date.now() - started)}).\nLast lines of go's output:\n${indent(result.tail)}\n` +
        howToProvideSeaweedfs(cacheDir, env),
    );

  try {
    await writeFile(join(work, 'go.mod'), wrapperGoMod());
    await writeFile(join(work, 'tools.go'), WRAPPER_TOOLS_GO);
    const tidy = await runCommand(go, ['mod', 'tidy'], {
      cwd: work,
      env: goEnv,
      onLine,
      timeoutMs: BUILD_TIMEOUT_MS,
    });
    if (tidy.code !== 0) throw failed('go mod tidy', tidy);
    log(
      `  modules resolved in ${formatDuration(Date.now() - started)} (${downloads} downloaded); compiling…`,
    );
    step = 'go build';
    const built = await runCommand(go, ['build', '-v', '-o', join(work, 'weed'), SEAWEEDFS_PACKAGE], {
      cwd: work,
      env: goEnv,
      onLine,
      timeoutMs: BUILD_TIMEOUT_MS,
    });
    if (built.code !== 0) throw failed(`go build ${SEAWEEDFS_PACKAGE}`, built);
    const version = await weedVersion(join(work, 'weed'), env);
    if (!version.ok || version.version !== SEAWEEDFS_VERSION) {
      throw new ProvisioningError(
        'seaweedfs',
        `go built SeaweedFS, but \`weed version\` ${version.ok ? `reports ${version.version}` : version.problem}` +
          ` instead of ${SEAWEEDFS_VERSION}; nothing was cached.\n${howToProvideSeaweedfs(cacheDir, env)}`,
      );
    }
    await mkdir(join(root, `v${SEAWEEDFS_VERSION}`), { recursive: true });
    await rename(join(work, 'weed'), target);
    log(
      `Built SeaweedFS ${SEAWEEDFS_VERSION} in ${formatDuration(Date.now() - started)} ` +
        `(${packages} packages compiled): ${target}`,
    );
  } finally {
    stopHeartbeat();
    await rm(work, { recursive: true, force: true });
  }
}

/** The ways to provide SeaweedFS, for error messages. */
export function howToProvideSeaweedfs(cacheDir: string, env: NodeJS.ProcessEnv): string {
  return [
    'To provide SeaweedFS, either',
    `  - install Go (1.21 or later, https://go.dev/dl/; on Debian or Ubuntu \`apt-get install -y golang-go\`) and run ` +
      '`npm run provision -- --seaweedfs`: it builds SeaweedFS once into the cache, fetching the toolchain ' +
      `${SEAWEEDFS_GO_TOOLCHAIN} and the modules from the Go module proxy (about 4 minutes); or`,
    '  - set SEAWEEDFS_PATH to a `weed` binary of SeaweedFS.',
    `Now: \`go\` on PATH: ${onPathSync('go', env) ? 'yes' : 'no'}; cache: ${cacheState(seaweedfsCachePath(cacheDir))}.`,
  ].join('\n');
}

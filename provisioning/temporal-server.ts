// The production Temporal Server (not the CLI's dev server) for `npm run cluster` and its test: the `server`
// binary, its SQL schema tool and the PostgreSQL schemas it applies, all at TEMPORAL_SERVER_VERSION. There is no
// release binary Sigil can fetch from a package registry, so it is built once with Go from the Go module proxy
// (`go install go.temporal.io/server/cmd/server@v…` and `cmd/tools/sql`; about 4 minutes on 2 cores) and kept in
// the cache with the schema files copied from the Go module cache the build filled. Looked up in this order:
// TEMPORAL_SERVER_DIR (a directory laid out like the cache), the cache, a Go build.
import { cp, mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
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
  runCommand,
  withLock,
} from './shared.ts';

export const TEMPORAL_SERVER_VERSION = '1.32.2';
/** 1.32 needs Go 1.26.10 or later; Go fetches this toolchain itself (GOTOOLCHAIN) when the local one is older. */
export const TEMPORAL_SERVER_GO_TOOLCHAIN = 'go1.27.3';
const MODULE = 'go.temporal.io/server';
const SERVER_PACKAGE = `${MODULE}/cmd/server`;
const SQL_TOOL_PACKAGE = `${MODULE}/cmd/tools/sql`;
/** The PostgreSQL schemas inside the module (the v12 plugin, `postgres12`). */
const SCHEMA_IN_MODULE = join('schema', 'postgresql', 'v12');
const KIND = 'temporal-server';

export interface TemporalServerFiles extends Provisioned {
  kind: 'temporal-server';
  /** The `server` binary: `--service frontend|history|matching|worker … start`. */
  path: string;
  /** The schema tool (`cmd/tools/sql`): create-database, setup-schema, update-schema. */
  sqlTool: string;
  /** `…/schema/postgresql/v12/temporal/versioned`: the main store's schema versions. */
  temporalSchemaDir: string;
  /** `…/schema/postgresql/v12/visibility/versioned`: the visibility store's. */
  visibilitySchemaDir: string;
}

export interface TemporalServerProvisionOptions extends ProvisionOptions {
  /** TEMPORAL_SERVER_DIR: a directory holding `temporal-server`, `temporal-sql-tool` and `schema/`. */
  serverDir?: string | undefined;
}

/** Where the server, its schema tool and the schemas of `version` are cached. */
export function temporalServerCacheDir(cacheDir: string, version = TEMPORAL_SERVER_VERSION): string {
  return join(cacheDir, 'temporal-server', `v${version}`);
}

function filesIn(dir: string, source: Provisioned['source']): TemporalServerFiles {
  const schema = join(dir, 'schema', 'postgresql', 'v12');
  return {
    kind: KIND,
    source,
    path: join(dir, 'temporal-server'),
    sqlTool: join(dir, 'temporal-sql-tool'),
    temporalSchemaDir: join(schema, 'temporal', 'versioned'),
    visibilitySchemaDir: join(schema, 'visibility', 'versioned'),
    version: TEMPORAL_SERVER_VERSION,
  };
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** What is missing from a directory laid out like the cache; empty when it is complete. */
async function missingFiles(files: TemporalServerFiles): Promise<string[]> {
  const missing: string[] = [];
  for (const binary of [files.path, files.sqlTool]) {
    if (!(await isExecutableFile(binary))) missing.push(binary);
  }
  for (const dir of [files.temporalSchemaDir, files.visibilitySchemaDir]) {
    if (!(await isDirectory(dir))) missing.push(dir);
  }
  return missing;
}

/**
 * Finds or builds the production Temporal Server: TEMPORAL_SERVER_DIR, the cache, or a Go build into the cache.
 * Throws ProvisioningError when TEMPORAL_SERVER_DIR is incomplete, when there is no Go, or when the build fails.
 */
export async function provisionTemporalServer(
  options: TemporalServerProvisionOptions,
): Promise<TemporalServerFiles> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;

  if (options.serverDir) {
    const files = filesIn(resolve(options.serverDir), 'env');
    const missing = await missingFiles(files);
    if (missing.length > 0) {
      throw new ProvisioningError(
        KIND,
        `TEMPORAL_SERVER_DIR is set to ${options.serverDir}, but it lacks:\n${indent(missing)}\n` +
          'It must hold `temporal-server`, `temporal-sql-tool` and `schema/postgresql/v12/{temporal,visibility}/versioned` ' +
          '(the layout of the cache); unset it to let Sigil build them.',
      );
    }
    return files;
  }

  const target = temporalServerCacheDir(options.cacheDir);
  const cached = filesIn(target, 'cache');
  if ((await missingFiles(cached)).length === 0) return cached;

  const go = await findOnPath('go', env);
  if (!go) {
    throw new ProvisioningError(
      KIND,
      `No Temporal Server ${TEMPORAL_SERVER_VERSION}: ${howToProvideTemporalServer(env, options.cacheDir)}`,
    );
  }
  const built = await withLock(KIND, options.cacheDir, 'temporal-server', log, async () => {
    // Another process may have built it while this one waited for the lock.
    if ((await missingFiles(cached)).length === 0) return false;
    await buildTemporalServer(go, options.cacheDir, log, env);
    return true;
  });
  return filesIn(target, built ? 'built' : 'cache');
}

/**
 * `go install` of the server and the schema tool into a scratch directory of the cache, then the schemas copied
 * from the module cache the build filled (`go env GOMODCACHE`), then one rename into place: a build that dies
 * leaves only a scratch directory, removed by the next one.
 */
async function buildTemporalServer(go: string, cacheDir: string, log: Log, env: NodeJS.ProcessEnv) {
  const root = join(cacheDir, 'temporal-server');
  const target = temporalServerCacheDir(cacheDir);
  await mkdir(root, { recursive: true });
  await removeLeftovers(root, '.build-');
  const work = await mkdtemp(join(root, '.build-'));
  const gobin = join(work, 'bin');
  const refs = [SERVER_PACKAGE, SQL_TOOL_PACKAGE].map((pkg) => `${pkg}@v${TEMPORAL_SERVER_VERSION}`);
  const goEnv = { ...env, GOTOOLCHAIN: TEMPORAL_SERVER_GO_TOOLCHAIN, CGO_ENABLED: '0', GOBIN: gobin };

  log(
    `Temporal Server ${TEMPORAL_SERVER_VERSION} is not in the cache (${target}). Building it once with ` +
      `\`go install ${refs.join(' ')}\` (toolchain ${TEMPORAL_SERVER_GO_TOOLCHAIN}) from the Go module proxy. ` +
      'The first build takes about 4 minutes on 2 cores; later runs use the cache.',
  );
  const started = Date.now();
  let packages = 0;
  let downloads = 0;
  let last = 'starting go';
  const stopHeartbeat = heartbeat(
    log,
    (elapsed) =>
      `  building Temporal Server: ${elapsed} elapsed, ` +
      `${downloads ? `${downloads} modules downloaded, ` : ''}${packages} packages compiled; last: ${last}`,
  );
  try {
    const result = await runCommand(go, ['install', '-v', ...refs], {
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
        `Building the Temporal Server with \`go install ${refs.join(' ')}\` failed (${describeExit(result)} after ` +
          `${elapsed}).\nLast lines of go's output:\n${indent(result.tail)}`,
      );
    }
    const modCache = await runCommand(go, ['env', 'GOMODCACHE'], {
      cwd: work,
      env: goEnv,
      timeoutMs: 120_000,
    });
    const modCacheDir = modCache.tail.at(-1)?.trim();
    if (modCache.code !== 0 || !modCacheDir) {
      throw new ProvisioningError(
        KIND,
        `\`go env GOMODCACHE\` failed (${describeExit(modCache)}):\n${indent(modCache.tail)}`,
      );
    }
    const moduleDir = join(modCacheDir, `${MODULE}@v${TEMPORAL_SERVER_VERSION}`);
    const staged = join(work, 'staged');
    await mkdir(staged);
    await rename(join(gobin, 'server'), join(staged, 'temporal-server'));
    await rename(join(gobin, 'sql'), join(staged, 'temporal-sql-tool'));
    // The module cache is read-only; the copies need not be.
    await cp(join(moduleDir, SCHEMA_IN_MODULE), join(staged, SCHEMA_IN_MODULE), { recursive: true });
    await runCommand('chmod', ['-R', 'u+w', join(staged, 'schema')], { timeoutMs: 60_000 });
    const missing = await missingFiles(filesIn(staged, 'built'));
    if (missing.length > 0) {
      throw new ProvisioningError(KIND, `The Temporal Server build lacks:\n${indent(missing)}`);
    }
    const version = await runCommand(join(staged, 'temporal-server'), ['--version'], {
      env,
      timeoutMs: 60_000,
    });
    log(`  \`temporal-server --version\`: ${version.tail.join(' ').trim()}`);
    await rm(target, { recursive: true, force: true });
    await rename(staged, target);
    log(`Built Temporal Server ${TEMPORAL_SERVER_VERSION} and its schema tool in ${elapsed}: ${target}`);
  } finally {
    stopHeartbeat();
    await rm(work, { recursive: true, force: true });
  }
}

/** Why there is no Temporal Server and how to provide one, for error messages. */
export function howToProvideTemporalServer(env: NodeJS.ProcessEnv, cacheDir: string | undefined): string {
  const looked = [
    `TEMPORAL_SERVER_DIR: ${env.TEMPORAL_SERVER_DIR ? `set to ${env.TEMPORAL_SERVER_DIR}` : 'not set'}`,
    ...(cacheDir ? [`cache: ${cacheState(join(temporalServerCacheDir(cacheDir), 'temporal-server'))}`] : []),
    `\`go\` on PATH: ${onPathSync('go', env) ? 'found' : 'not found'}`,
  ];
  return (
    `Sigil looked at:\n${looked.map((line) => `  - ${line}`).join('\n')}\nTo provide it:\n` +
    `  - install Go (1.21 or later; it fetches the ${TEMPORAL_SERVER_GO_TOOLCHAIN} toolchain itself) and run ` +
    '`npm run provision -- --temporal-server`, which builds the server and its schema tool once into the cache;\n' +
    '  - or set TEMPORAL_SERVER_DIR to a directory holding `temporal-server`, `temporal-sql-tool` and ' +
    '`schema/postgresql/v12/{temporal,visibility}/versioned`.'
  );
}

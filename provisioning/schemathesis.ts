// Schemathesis, the property-based API fuzzer that test/fuzz/schemathesis.test.ts runs against both OpenAPI
// documents. Looked up in this order: SCHEMATHESIS_PATH, `st` or `schemathesis` on PATH when it is the pinned
// release, Sigil's cache (a virtualenv under <cache>/schemathesis/<version>/venv), and otherwise installed from
// PyPI into that virtualenv with `python3 -m venv` and pip. Without a Python 3.11+ that can do it, one error
// says what to install or which variable to set.
import { join } from 'node:path';
import {
  cachedVenvTool,
  cacheState,
  defaultLog,
  findOnPath,
  findPythonInterpreter,
  installVenvTool,
  type Log,
  type Provisioned,
  ProvisioningError,
  PYTHON_INTERPRETERS,
  type PythonInterpreter,
  readVersion,
  requireExecutable,
  type VenvTool,
  type VersionAnswer,
  withLock,
} from './shared.ts';

/** The release Sigil's fuzz test is written and tuned against (CLI options, report format, checks). */
export const SCHEMATHESIS_VERSION = '4.32.5';
/** Its PyPI project. */
export const SCHEMATHESIS_PYPI_PROJECT = 'schemathesis';
/** Names of its CLI on PATH. */
export const SCHEMATHESIS_COMMANDS = ['st', 'schemathesis'] as const;
/** Schemathesis 4.32 requires Python 3.11 or later. */
export const MINIMUM_PYTHON = [3, 11] as const;
/** Interpreters tried, in order, to create the virtualenv. */
export const PYTHON_COMMANDS = PYTHON_INTERPRETERS;

export interface SchemathesisProvisionOptions {
  /** Sigil's cache directory (`SIGIL_CACHE_DIR`, default ~/.cache/sigil). */
  cacheDir: string;
  /** Progress lines; defaults to stderr. */
  log?: Log;
  /** SCHEMATHESIS_PATH and PATH are read here, and python and pip run with it; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Create the virtualenv when Schemathesis is missing (default true); false only looks. */
  install?: boolean;
}

export interface ProvisionedSchemathesis extends Provisioned {
  kind: 'schemathesis';
  path: string;
}

/** The virtualenv of the pinned release in the cache. */
export function schemathesisVenvPath(cacheDir: string, version = SCHEMATHESIS_VERSION): string {
  return join(cacheDir, 'schemathesis', version, 'venv');
}

/** The `st` executable of that virtualenv. */
export function schemathesisCachePath(cacheDir: string, version = SCHEMATHESIS_VERSION): string {
  return join(schemathesisVenvPath(cacheDir, version), 'bin', 'st');
}

/**
 * Finds (or installs into the cache) the Schemathesis CLI. Throws ProvisioningError when SCHEMATHESIS_PATH is
 * set but unusable, when an install fails, or when there is nothing found and no way to install it.
 */
export async function provisionSchemathesis(
  options: SchemathesisProvisionOptions,
): Promise<ProvisionedSchemathesis> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;
  const kind = 'schemathesis';

  const explicit = env.SCHEMATHESIS_PATH?.trim();
  if (explicit) {
    const path = await requireExecutable(kind, explicit);
    const version = await schemathesisVersion(path, env);
    if (!version.ok) {
      throw new ProvisioningError(
        kind,
        `SCHEMATHESIS_PATH is set to ${explicit}, but \`${explicit} --version\` ${version.problem}, so it is not ` +
          `the Schemathesis CLI.\n${howToProvideSchemathesis()}`,
      );
    }
    if (version.version !== SCHEMATHESIS_VERSION) {
      log(
        `Using Schemathesis ${version.version} from SCHEMATHESIS_PATH (${path}); Sigil's fuzz test is tuned for ` +
          `${SCHEMATHESIS_VERSION}, so its findings may differ.`,
      );
    }
    return { kind, source: 'env', path, version: version.version };
  }

  for (const name of SCHEMATHESIS_COMMANDS) {
    const path = await findOnPath(name, env);
    if (!path) continue;
    const version = await schemathesisVersion(path, env);
    if (version.ok && version.version === SCHEMATHESIS_VERSION) {
      return { kind, source: 'path', path, version: version.version };
    }
    log(
      `Ignoring ${path}: ${
        version.ok
          ? `it is Schemathesis ${version.version}, and Sigil pins ${SCHEMATHESIS_VERSION}`
          : `\`${name} --version\` ${version.problem}, so it is not the Schemathesis CLI`
      } (set SCHEMATHESIS_PATH to use it anyway).`,
    );
  }

  const cached = await cachedSchemathesis(options.cacheDir, env);
  if (cached) return { kind, source: 'cache', path: cached, version: SCHEMATHESIS_VERSION };

  const install = options.install ?? true;
  const python = install ? await findPython(env) : { rejected: [] };
  const interpreter = python.found;
  if (!install || !interpreter) {
    throw new ProvisioningError(kind, schemathesisMissing(options.cacheDir, install, python));
  }
  return withLock(kind, options.cacheDir, 'schemathesis', log, async () => {
    // Another process may have installed it while this one waited for the lock.
    const meanwhile = await cachedSchemathesis(options.cacheDir, env);
    if (meanwhile) return { kind, source: 'cache', path: meanwhile, version: SCHEMATHESIS_VERSION };
    const path = await installIntoVenv(interpreter, options.cacheDir, log, env);
    return { kind, source: 'installed', path, version: SCHEMATHESIS_VERSION };
  });
}

/** `st --version` prints "st, version 4.32.5" (`schemathesis --version`: "schemathesis, version …"). */
const schemathesisVersion = (path: string, env: NodeJS.ProcessEnv): Promise<VersionAnswer> =>
  readVersion(path, env, {
    args: ['--version'],
    timeoutMs: 60_000,
    read: (line) => /^(?:st|schemathesis), version (\S+)/.exec(line)?.[1],
    expected: 'st, version …',
  });

/** The pinned release in its virtualenv of the cache. */
const schemathesisTool = (cacheDir: string): VenvTool => ({
  kind: 'schemathesis',
  label: 'Schemathesis',
  venv: schemathesisVenvPath(cacheDir),
  executable: schemathesisCachePath(cacheDir),
  requirements: [`${SCHEMATHESIS_PYPI_PROJECT}==${SCHEMATHESIS_VERSION}`],
  marker: { requirement: `${SCHEMATHESIS_PYPI_PROJECT}==${SCHEMATHESIS_VERSION}` },
  pinned: SCHEMATHESIS_VERSION,
  version: schemathesisVersion,
  howTo: howToProvideSchemathesis,
});

/** The cached virtualenv's `st`, when a finished install left it there and it still runs. */
const cachedSchemathesis = (cacheDir: string, env: NodeJS.ProcessEnv) =>
  cachedVenvTool(schemathesisTool(cacheDir), env);

// ---------------------------------------------------------------------------------------------------------
// Python and the virtualenv
// ---------------------------------------------------------------------------------------------------------

type Python = PythonInterpreter;

/** The first Python 3.11+ among the interpreters tried, and what was wrong with the others (for the message). */
const findPython = (env: NodeJS.ProcessEnv) => findPythonInterpreter(env, MINIMUM_PYTHON);

/** Installs the pinned release into its virtualenv of the cache (the caller holds the lock). */
function installIntoVenv(
  python: Python,
  cacheDir: string,
  log: Log,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  log(
    `Schemathesis ${SCHEMATHESIS_VERSION} (for the API fuzz test) is not installed: SCHEMATHESIS_PATH is unset, ` +
      `there is no \`st\` ${SCHEMATHESIS_VERSION} on PATH and nothing is cached at ${schemathesisVenvPath(cacheDir)}.`,
  );
  return installVenvTool(schemathesisTool(cacheDir), python, log, env);
}

// ---------------------------------------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------------------------------------

/** The ways to provide Schemathesis, for error messages. */
export function howToProvideSchemathesis(): string {
  const steps = [
    `install Python ${MINIMUM_PYTHON.join('.')} or later with its venv module and run ` +
      '`npm run provision -- --schemathesis`, which installs it into the cache;',
    `or \`pip install ${SCHEMATHESIS_PYPI_PROJECT}==${SCHEMATHESIS_VERSION}\` yourself (pipx, a virtualenv) and put ` +
      'its `st` on PATH;',
    'or set SCHEMATHESIS_PATH to a Schemathesis CLI executable (`st`).',
  ];
  return `To provide it:\n${steps.map((step) => `  - ${step}`).join('\n')}`;
}

function schemathesisMissing(
  cacheDir: string,
  install: boolean,
  python: { found?: Python; rejected: string[] },
): string {
  const why = !install
    ? 'this caller only looks for it'
    : python.rejected.length > 0
      ? `no Python ${MINIMUM_PYTHON.join('.')}+ to create the virtualenv with (${python.rejected.join('; ')})`
      : `no Python on PATH (${PYTHON_COMMANDS.join(', ')}) to create the virtualenv with`;
  return (
    `Schemathesis ${SCHEMATHESIS_VERSION}, which the API fuzz test (test/fuzz/) runs, is not installed: ` +
    `SCHEMATHESIS_PATH is unset, there is no \`st\` or \`schemathesis\` ${SCHEMATHESIS_VERSION} on PATH, and the ` +
    `cache holds none (${cacheState(schemathesisCachePath(cacheDir))}).\n` +
    `Sigil installs it from PyPI into that cache by itself; here it cannot: ${why}.\n${howToProvideSchemathesis()}`
  );
}

// Schemathesis, the property-based API fuzzer that test/fuzz/schemathesis.test.ts runs against both OpenAPI
// documents. Looked up in this order: SCHEMATHESIS_PATH, `st` or `schemathesis` on PATH when it is the pinned
// release, Sigil's cache (a virtualenv under <cache>/schemathesis/<version>/venv), and otherwise installed from
// PyPI into that virtualenv with `python3 -m venv` and pip. Without a Python 3.11+ that can do it, one error
// says what to install or which variable to set.
import { access, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  cacheState,
  defaultLog,
  describeExit,
  findOnPath,
  findPythonInterpreter,
  formatDuration,
  heartbeat,
  indent,
  isExecutableFile,
  type Log,
  type Provisioned,
  ProvisioningError,
  PYTHON_INTERPRETERS,
  type PythonInterpreter,
  requireExecutable,
  runCommand,
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

/** Written into the virtualenv once pip installed Schemathesis and `st --version` answered. */
const COMPLETE_MARKER = '.sigil-complete';
const PIP_TIMEOUT_MS = 15 * 60_000;

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

type VersionAnswer = { ok: true; version: string } | { ok: false; problem: string };

/** `st --version` prints "st, version 4.32.5" (`schemathesis --version`: "schemathesis, version …"). */
async function schemathesisVersion(path: string, env: NodeJS.ProcessEnv): Promise<VersionAnswer> {
  const result = await runCommand(path, ['--version'], { env, timeoutMs: 60_000 });
  if (result.code !== 0) return { ok: false, problem: `failed (${describeExit(result)})` };
  for (const line of result.tail) {
    const match = /^(?:st|schemathesis), version (\S+)/.exec(line.trim());
    if (match?.[1]) return { ok: true, version: match[1] };
  }
  return { ok: false, problem: 'does not print "st, version …"' };
}

/** The cached virtualenv's `st`, when a finished install left it there and it still runs. */
async function cachedSchemathesis(cacheDir: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const path = schemathesisCachePath(cacheDir);
  if (!(await isExecutableFile(path))) return undefined;
  try {
    await access(join(schemathesisVenvPath(cacheDir), COMPLETE_MARKER));
  } catch {
    return undefined;
  }
  const version = await schemathesisVersion(path, env);
  return version.ok && version.version === SCHEMATHESIS_VERSION ? path : undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Python and the virtualenv
// ---------------------------------------------------------------------------------------------------------

type Python = PythonInterpreter;

/** The first Python 3.11+ among the interpreters tried, and what was wrong with the others (for the message). */
const findPython = (env: NodeJS.ProcessEnv) => findPythonInterpreter(env, MINIMUM_PYTHON);

/**
 * Creates the virtualenv in the cache, installs the pinned release with its pip and checks `st --version`.
 * A virtualenv cannot be moved once created (its scripts name its own interpreter), so it is built in place;
 * the marker file written last tells a finished one from one an interrupted install left behind.
 */
async function installIntoVenv(
  python: Python,
  cacheDir: string,
  log: Log,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const venv = schemathesisVenvPath(cacheDir);
  const st = schemathesisCachePath(cacheDir);
  const requirement = `${SCHEMATHESIS_PYPI_PROJECT}==${SCHEMATHESIS_VERSION}`;
  const started = Date.now();
  log(
    `Schemathesis ${SCHEMATHESIS_VERSION} (for the API fuzz test) is not installed: SCHEMATHESIS_PATH is unset, ` +
      `there is no \`st\` ${SCHEMATHESIS_VERSION} on PATH and nothing is cached at ${venv}.`,
  );
  log(
    `Installing it once from PyPI into a virtualenv with Python ${python.version} (${python.path}); usually ` +
      'under a minute.',
  );
  // Held under the lock, so a directory here without the marker is what an interrupted install left.
  await rm(venv, { recursive: true, force: true });

  log(`  python -m venv ${venv}`);
  const created = await runCommand(python.path, ['-m', 'venv', venv], { env, timeoutMs: 5 * 60_000 });
  if (created.code !== 0) {
    await rm(venv, { recursive: true, force: true });
    const noEnsurepip = created.tail.some((line) => /ensurepip|python3-venv/.test(line));
    throw new ProvisioningError(
      'schemathesis',
      `Creating the virtualenv failed: \`${python.path} -m venv\` ended with ${describeExit(created)}.\n` +
        `Last lines of its output:\n${indent(created.tail)}\n` +
        (noEnsurepip
          ? 'This Python has no venv support: on Debian or Ubuntu install the `python3-venv` package (as root: `apt-get install -y python3-venv`).\n'
          : '') +
        howToProvideSchemathesis(),
    );
  }

  const pip = join(venv, 'bin', 'pip');
  const counts = { collected: 0, downloaded: 0 };
  let phase = 'resolving';
  const stopHeartbeat = heartbeat(
    log,
    (elapsed) =>
      `  pip install ${requirement}: ${elapsed} elapsed, ${phase}, ${counts.collected} packages collected, ` +
      `${counts.downloaded} downloaded`,
  );
  const installed = await runCommand(
    pip,
    [
      'install',
      '--disable-pip-version-check',
      '--no-input',
      '--progress-bar',
      'off',
      '--no-warn-script-location',
      requirement,
    ],
    {
      env: { ...env, PIP_NO_INPUT: '1', VIRTUAL_ENV: venv },
      timeoutMs: PIP_TIMEOUT_MS,
      onLine: (line) => {
        const text = line.trim();
        if (/^Collecting /.test(text)) {
          counts.collected++;
          if (counts.collected === 1) log(`  pip: ${text}`);
        } else if (/^(Downloading|Using cached|Processing) /.test(text)) counts.downloaded++;
        else if (/^Installing collected packages: /.test(text)) {
          phase = 'installing';
          const packages = text.replace(/^Installing collected packages: /, '').split(', ').length;
          log(`  pip: installing ${packages} packages (${counts.downloaded} fetched)…`);
        } else if (/^Successfully installed /.test(text)) {
          phase = 'installed';
          log(`  pip: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`);
        }
      },
    },
  ).finally(stopHeartbeat);
  if (installed.code !== 0) {
    await rm(venv, { recursive: true, force: true });
    throw new ProvisioningError(
      'schemathesis',
      `Installing Schemathesis failed: \`pip install ${requirement}\` ended with ${describeExit(installed)} after ` +
        `${formatDuration(Date.now() - started)}.\nLast lines of pip's output:\n${indent(installed.tail)}\n` +
        `Check pip's index (\`pip config list\`) and network access to it.\n${howToProvideSchemathesis()}`,
    );
  }

  const version = (await isExecutableFile(st))
    ? await schemathesisVersion(st, env)
    : ({ ok: false, problem: 'is missing' } as const);
  if (!version.ok || version.version !== SCHEMATHESIS_VERSION) {
    await rm(venv, { recursive: true, force: true });
    throw new ProvisioningError(
      'schemathesis',
      `pip installed ${requirement}, but ${st} ${
        version.ok ? `reports version ${version.version}` : version.problem
      }; the virtualenv was removed.\n${howToProvideSchemathesis()}`,
    );
  }
  await writeFile(
    join(venv, COMPLETE_MARKER),
    `${JSON.stringify({ requirement, python: python.version, installedAt: new Date().toISOString() })}\n`,
  );
  log(`Installed Schemathesis ${SCHEMATHESIS_VERSION} in ${formatDuration(Date.now() - started)}: ${st}`);
  return st;
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

// The two independent PDF signature validators the sealing tests check Sigil's seals with: poppler's `pdfsig`
// (C++ on NSS) and pyHanko (Python), so a seal is judged by two implementations that share no code with
// @libpdf/core or with each other.
//   pdfsig:  PDFSIG_PATH, `pdfsig` on PATH, and when Sigil runs as root on a machine with apt-get, Debian's
//            poppler-utils package installed there and then.
//   pyHanko: PYHANKO_PATH, Sigil's cache (a virtualenv under <cache>/pyhanko/<version>/venv), and otherwise
//            pyhanko and pyhanko-cli (pinned) installed from PyPI into that virtualenv with `python3 -m venv`
//            and pip. A `pyhanko` on PATH is not used: what it reports depends on the pyhanko-certvalidator and
//            cryptography releases next to it, and the tests are written against the pinned set.
// `npm run provision -- --pdf-validators` (and `npm test`'s pretest) installs both; the tests only look, with
// pdfValidatorPaths(). Anything missing is one error saying what to install or which variable to set.
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  cachedVenvTool,
  cacheState,
  defaultLog,
  findOnPath,
  findPythonInterpreter,
  formatDuration,
  installDebianPackage,
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

/** What provisions both validators; named by every "not provisioned" error. */
export const PDF_VALIDATORS_PROVISION_COMMAND = 'npm run provision -- --pdf-validators';

/** The name of poppler's signature tool on PATH. */
export const PDFSIG_COMMAND = 'pdfsig';
/** The Debian package that provides /usr/bin/pdfsig. */
export const PDFSIG_PACKAGE = 'poppler-utils';

/** The pyHanko library release the tests' expectations are written against. */
export const PYHANKO_VERSION = '0.38.0';
/** The release of its command-line interface (a PyPI project of its own), which provides `pyhanko`. */
export const PYHANKO_CLI_VERSION = '0.6.0';
/** What pip installs into the virtualenv. */
export const PYHANKO_REQUIREMENTS = [`pyhanko==${PYHANKO_VERSION}`, `pyhanko-cli==${PYHANKO_CLI_VERSION}`];
/** pyHanko 0.38 requires Python 3.10 or later. */
export const PYHANKO_MINIMUM_PYTHON = [3, 10] as const;

export interface PdfsigProvisionOptions {
  /** Progress lines; defaults to stderr. */
  log?: Log;
  /** PDFSIG_PATH and PATH are read here, and apt-get runs with it; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Install Debian's package when pdfsig is missing (default true); false only looks. */
  install?: boolean;
  /** Where the install lock lives (`<cacheDir>/locks/pdfsig.lock`), so two installs never overlap. */
  cacheDir?: string;
  /** The user id that decides whether apt-get may run; defaults to this process's. */
  uid?: number;
}

export interface PyhankoProvisionOptions {
  /** Sigil's cache directory (`SIGIL_CACHE_DIR`, default ~/.cache/sigil). */
  cacheDir: string;
  /** Progress lines; defaults to stderr. */
  log?: Log;
  /** PYHANKO_PATH and PATH are read here, and python and pip run with it; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Create the virtualenv when pyHanko is missing (default true); false only looks. */
  install?: boolean;
}

export interface ProvisionedPdfsig extends Provisioned {
  kind: 'pdfsig';
  path: string;
}

export interface ProvisionedPyhanko extends Provisioned {
  kind: 'pyhanko';
  path: string;
}

/** The virtualenv of the pinned releases in the cache. */
export function pyhankoVenvPath(cacheDir: string): string {
  return join(cacheDir, 'pyhanko', `${PYHANKO_VERSION}-cli${PYHANKO_CLI_VERSION}`, 'venv');
}

/** The `pyhanko` executable of that virtualenv. */
export function pyhankoCachePath(cacheDir: string): string {
  return join(pyhankoVenvPath(cacheDir), 'bin', 'pyhanko');
}

/**
 * The executables the tests run, found without installing anything. Throws one error naming
 * `npm run provision -- --pdf-validators` (and what exactly is missing) when either is not provisioned.
 */
export async function pdfValidatorPaths(
  options: { cacheDir?: string; env?: NodeJS.ProcessEnv; log?: Log } = {},
): Promise<{ pdfsig: string; pyhanko: string }> {
  const env = options.env ?? process.env;
  // The rule of config/config.ts (and vitest.config.ts), without loading the whole configuration.
  const cacheDir = options.cacheDir ?? resolve(env.SIGIL_CACHE_DIR ?? join(homedir(), '.cache', 'sigil'));
  const [pdfsig, pyhanko] = await Promise.allSettled([
    provisionPdfsig({ env, log: options.log, install: false }),
    provisionPyhanko({ cacheDir, env, log: options.log, install: false }),
  ]);
  if (pdfsig.status === 'fulfilled' && pyhanko.status === 'fulfilled') {
    return { pdfsig: pdfsig.value.path, pyhanko: pyhanko.value.path };
  }
  const problems = [pdfsig, pyhanko].flatMap((result) =>
    result.status === 'rejected'
      ? [result.reason instanceof Error ? result.reason.message : String(result.reason)]
      : [],
  );
  throw new Error(
    `The PDF signature validators the sealing tests run are not provisioned (or not usable); run \`${PDF_VALIDATORS_PROVISION_COMMAND}\` ` +
      `(\`npm test\` does it first, in its pretest step).\n\n${problems.join('\n\n')}`,
  );
}

// ---------------------------------------------------------------------------------------------------------
// pdfsig
// ---------------------------------------------------------------------------------------------------------

/**
 * Finds (and as root with apt-get, installs) pdfsig. Throws ProvisioningError when PDFSIG_PATH is set but
 * unusable, when an install fails, or when there is no pdfsig and no way to install it here.
 */
export async function provisionPdfsig(options: PdfsigProvisionOptions = {}): Promise<ProvisionedPdfsig> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;
  const kind = 'pdfsig';

  const explicit = env.PDFSIG_PATH?.trim();
  if (explicit) {
    const path = await requireExecutable(kind, explicit);
    const version = await pdfsigVersion(path, env);
    if (!version.ok) {
      throw new ProvisioningError(
        kind,
        `PDFSIG_PATH is set to ${explicit}, but \`${explicit} -v\` ${version.problem}, so it is not poppler's ` +
          `pdfsig.\n${howToProvidePdfsig()}`,
      );
    }
    return { kind, source: 'env', path, version: version.version };
  }

  const found = await findPdfsigOnPath(env, log);
  if (found) return { kind, source: 'path', ...found };

  const uid = options.uid ?? process.getuid?.();
  const aptGet = await findOnPath('apt-get', env);
  const install = options.install ?? true;
  if (!install || uid !== 0 || !aptGet) {
    throw new ProvisioningError(kind, pdfsigMissing(env, { install, uid, aptGet }));
  }

  const installOnce = async (): Promise<ProvisionedPdfsig> => {
    // Another process may have installed it while this one waited for the lock.
    const meanwhile = await findPdfsigOnPath(env, log);
    if (meanwhile) return { kind, source: 'path', ...meanwhile };
    const started = Date.now();
    log(
      'pdfsig (for the sealing tests) is not installed: PDFSIG_PATH is unset and there is no `pdfsig` on PATH.',
    );
    log(
      `Installing Debian's ${PDFSIG_PACKAGE} package with apt-get (running as root; once, usually under a minute).`,
    );
    await installDebianPackage({
      kind,
      aptGet,
      debianPackage: PDFSIG_PACKAGE,
      env,
      log,
      howTo: howToProvidePdfsig(),
    });
    const installed = await findPdfsigOnPath(env, log);
    if (!installed) {
      throw new ProvisioningError(
        kind,
        `apt-get installed ${PDFSIG_PACKAGE}, but there is still no working \`pdfsig\` on PATH ` +
          `(PATH=${env.PATH ?? ''}). Set PDFSIG_PATH to the pdfsig binary.`,
      );
    }
    log(
      `Installed pdfsig ${installed.version} in ${formatDuration(Date.now() - started)}: ${installed.path}`,
    );
    return { kind, source: 'installed', ...installed };
  };
  return options.cacheDir ? withLock(kind, options.cacheDir, 'pdfsig', log, installOnce) : installOnce();
}

/** `pdfsig -v` prints "pdfsig version 22.12.0" and poppler's copyright (on stderr). */
const pdfsigVersion = (path: string, env: NodeJS.ProcessEnv): Promise<VersionAnswer> =>
  readVersion(path, env, {
    args: ['-v'],
    timeoutMs: 30_000,
    read: (line) => /^pdfsig version (\S+)/.exec(line)?.[1],
    expected: 'pdfsig version …',
  });

async function findPdfsigOnPath(
  env: NodeJS.ProcessEnv,
  log: Log,
): Promise<{ path: string; version: string } | undefined> {
  const path = await findOnPath(PDFSIG_COMMAND, env);
  if (!path) return undefined;
  const version = await pdfsigVersion(path, env);
  if (version.ok) return { path, version: version.version };
  log(`Ignoring ${path}: \`pdfsig -v\` ${version.problem}, so it is not poppler's pdfsig.`);
  return undefined;
}

function howToProvidePdfsig(): string {
  return [
    'To provide it, either:',
    `  - run \`${PDF_VALIDATORS_PROVISION_COMMAND}\` as root on Debian or Ubuntu, which installs ${PDFSIG_PACKAGE} ` +
      'with apt-get;',
    `  - or install it yourself: \`sudo apt-get install -y --no-install-recommends ${PDFSIG_PACKAGE}\` (or your ` +
      "system's poppler utilities package);",
    "  - or set PDFSIG_PATH to poppler's pdfsig executable.",
  ].join('\n');
}

function pdfsigMissing(
  env: NodeJS.ProcessEnv,
  why: { install: boolean; uid: number | undefined; aptGet: string | undefined },
): string {
  const reason = !why.install
    ? `this caller only looks for it; \`${PDF_VALIDATORS_PROVISION_COMMAND}\` (and \`npm test\`'s pretest step) installs it`
    : !why.aptGet
      ? 'there is no apt-get on PATH here'
      : `this process runs as ${why.uid === undefined ? 'an unknown user' : `uid ${why.uid}`}, not root`;
  return (
    "poppler's pdfsig, which the sealing tests validate seals with, is not installed: PDFSIG_PATH is unset and " +
    `there is no \`pdfsig\` on PATH${env.PATH ? '' : ' (PATH is empty)'}.\n` +
    `Sigil installs Debian's ${PDFSIG_PACKAGE} package itself only when it runs as root with apt-get; ${reason}.\n` +
    howToProvidePdfsig()
  );
}

// ---------------------------------------------------------------------------------------------------------
// pyHanko
// ---------------------------------------------------------------------------------------------------------

/**
 * Finds (or installs into the cache) the pyHanko CLI. Throws ProvisioningError when PYHANKO_PATH is set but
 * unusable, when an install fails, or when it is not cached and cannot be installed here.
 */
export async function provisionPyhanko(options: PyhankoProvisionOptions): Promise<ProvisionedPyhanko> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;
  const kind = 'pyhanko';
  const pinned = `${PYHANKO_VERSION}, CLI ${PYHANKO_CLI_VERSION}`;

  const explicit = env.PYHANKO_PATH?.trim();
  if (explicit) {
    const path = await requireExecutable(kind, explicit);
    const version = await pyhankoVersion(path, env);
    if (!version.ok) {
      throw new ProvisioningError(
        kind,
        `PYHANKO_PATH is set to ${explicit}, but \`${explicit} --version\` ${version.problem}, so it is not the ` +
          `pyHanko CLI.\n${howToProvidePyhanko()}`,
      );
    }
    if (version.version !== pinned) {
      log(
        `Using pyHanko ${version.version} from PYHANKO_PATH (${path}); Sigil's sealing tests are written ` +
          `against ${pinned}, so its verdicts may differ.`,
      );
    }
    return { kind, source: 'env', path, version: version.version };
  }

  const cached = await cachedPyhanko(options.cacheDir, env);
  if (cached) return { kind, source: 'cache', path: cached, version: pinned };

  const install = options.install ?? true;
  const python = install ? await findPythonInterpreter(env, PYHANKO_MINIMUM_PYTHON) : { rejected: [] };
  const interpreter = python.found;
  if (!install || !interpreter) {
    throw new ProvisioningError(kind, pyhankoMissing(options.cacheDir, install, python));
  }
  return withLock(kind, options.cacheDir, 'pyhanko', log, async () => {
    // Another process may have installed it while this one waited for the lock.
    const meanwhile = await cachedPyhanko(options.cacheDir, env);
    if (meanwhile) return { kind, source: 'cache', path: meanwhile, version: pinned };
    const path = await installPyhanko(interpreter, options.cacheDir, log, env);
    return { kind, source: 'installed', path, version: pinned };
  });
}

/** `pyhanko --version` prints "pyHanko, version 0.38.0 (CLI 0.6.0)"; the version is "0.38.0, CLI 0.6.0". */
const pyhankoVersion = (path: string, env: NodeJS.ProcessEnv): Promise<VersionAnswer> =>
  readVersion(path, env, {
    args: ['--version'],
    timeoutMs: 60_000,
    read: (line) => {
      const match = /^pyHanko, version (\S+)(?: \(CLI ([^)\s]+)\))?/.exec(line);
      return match?.[1] && (match[2] ? `${match[1]}, CLI ${match[2]}` : match[1]);
    },
    expected: 'pyHanko, version …',
  });

/** The pinned releases in their virtualenv of the cache. */
const pyhankoTool = (cacheDir: string): VenvTool => ({
  kind: 'pyhanko',
  label: 'pyHanko',
  venv: pyhankoVenvPath(cacheDir),
  executable: pyhankoCachePath(cacheDir),
  requirements: PYHANKO_REQUIREMENTS,
  marker: { requirements: PYHANKO_REQUIREMENTS },
  pinned: `${PYHANKO_VERSION}, CLI ${PYHANKO_CLI_VERSION}`,
  version: pyhankoVersion,
  howTo: howToProvidePyhanko,
});

/** The cached virtualenv's `pyhanko`, when a finished install left it there and it still runs. */
const cachedPyhanko = (cacheDir: string, env: NodeJS.ProcessEnv) =>
  cachedVenvTool(pyhankoTool(cacheDir), env);

/** Installs the pinned releases into their virtualenv of the cache (the caller holds the lock). */
function installPyhanko(
  python: PythonInterpreter,
  cacheDir: string,
  log: Log,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  log(
    `pyHanko ${PYHANKO_VERSION} (for the sealing tests) is not installed: PYHANKO_PATH is unset and nothing is ` +
      `cached at ${pyhankoVenvPath(cacheDir)}.`,
  );
  return installVenvTool(pyhankoTool(cacheDir), python, log, env);
}

/** The ways to provide pyHanko, for error messages. */
export function howToProvidePyhanko(): string {
  const steps = [
    `install Python ${PYHANKO_MINIMUM_PYTHON.join('.')} or later with its venv module and run ` +
      `\`${PDF_VALIDATORS_PROVISION_COMMAND}\`, which installs it into the cache;`,
    `or \`pip install ${PYHANKO_REQUIREMENTS.join(' ')}\` yourself (a virtualenv, pipx) and set PYHANKO_PATH to its ` +
      '`pyhanko`.',
  ];
  return `To provide it:\n${steps.map((step) => `  - ${step}`).join('\n')}`;
}

function pyhankoMissing(
  cacheDir: string,
  install: boolean,
  python: { found?: PythonInterpreter; rejected: string[] },
): string {
  const why = !install
    ? `this caller only looks for it; \`${PDF_VALIDATORS_PROVISION_COMMAND}\` (and \`npm test\`'s pretest step) installs it`
    : python.rejected.length > 0
      ? `no Python ${PYHANKO_MINIMUM_PYTHON.join('.')}+ to create the virtualenv with (${python.rejected.join('; ')})`
      : `no Python on PATH (${PYTHON_INTERPRETERS.join(', ')}) to create the virtualenv with`;
  return (
    `pyHanko ${PYHANKO_VERSION} (CLI ${PYHANKO_CLI_VERSION}), which the sealing tests validate seals with, is not ` +
    `installed: PYHANKO_PATH is unset and the cache holds none (${cacheState(pyhankoCachePath(cacheDir))}).\n` +
    `Sigil installs it from PyPI into that cache by itself; here it cannot: ${why}.\n${howToProvidePyhanko()}`
  );
}

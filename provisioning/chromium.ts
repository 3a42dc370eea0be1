// The browser tests' Chromium (the tests in test/e2e/ drive it with playwright-core, never a downloaded
// browser). Looked up in this order: CHROMIUM_PATH, `chromium` or `chromium-browser` on PATH, and when Sigil
// runs as root on a machine with apt-get, Debian's chromium package installed there and then. Anything else is
// one error saying what to install or which variable to set.
import {
  defaultLog,
  describeExit,
  findOnPath,
  formatDuration,
  indent,
  installDebianPackage,
  type Log,
  type Provisioned,
  ProvisioningError,
  requireExecutable,
  runCommand,
  withLock,
} from './shared.ts';

/** Names the Chromium binary has on PATH: Debian's package, and the name other distributions use. */
export const CHROMIUM_COMMANDS = ['chromium', 'chromium-browser'] as const;
/** The Debian package that provides /usr/bin/chromium. */
export const CHROMIUM_PACKAGE = 'chromium';

export interface ChromiumProvisionOptions {
  /** Progress lines; defaults to stderr. */
  log?: Log;
  /** CHROMIUM_PATH and PATH are read here, and apt-get runs with it; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /**
   * Install Debian's package when Chromium is missing (default true). The browser tests only look
   * (`install: false`); `npm test` installs beforehand, in its provisioning step.
   */
  install?: boolean;
  /** Where the install lock lives (`<cacheDir>/locks/chromium.lock`), so two installs never overlap. */
  cacheDir?: string;
  /** The user id that decides whether apt-get may run; defaults to this process's. */
  uid?: number;
}

export interface ProvisionedChromium extends Provisioned {
  kind: 'chromium';
  path: string;
}

/**
 * Finds (and as root with apt-get, installs) Chromium. Throws ProvisioningError when CHROMIUM_PATH is set but
 * unusable, when an install fails, or when there is no Chromium and no way to install it here.
 */
export async function provisionChromium(
  options: ChromiumProvisionOptions = {},
): Promise<ProvisionedChromium> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;

  const explicit = env.CHROMIUM_PATH?.trim();
  if (explicit) {
    const path = await requireExecutable('chromium', explicit);
    return { kind: 'chromium', source: 'env', path, version: undefined };
  }

  const found = await findChromiumOnPath(env, log);
  if (found) return { kind: 'chromium', source: 'path', ...found };

  const uid = options.uid ?? process.getuid?.();
  const aptGet = await findOnPath('apt-get', env);
  const install = options.install ?? true;
  if (!install || uid !== 0 || !aptGet) {
    throw new ProvisioningError('chromium', chromiumMissing(env, { install, uid, aptGet }));
  }

  const installOnce = async (): Promise<ProvisionedChromium> => {
    // Another process may have installed it while this one waited for the lock.
    const meanwhile = await findChromiumOnPath(env, log);
    if (meanwhile) return { kind: 'chromium', source: 'path', ...meanwhile };
    const version = await installWithApt(aptGet, env, log);
    return { kind: 'chromium', source: 'installed', ...version };
  };
  return options.cacheDir
    ? withLock('chromium', options.cacheDir, 'chromium', log, installOnce)
    : installOnce();
}

/** `chromium` (or `chromium-browser`) on PATH that answers `--version` like a Chromium. */
async function findChromiumOnPath(
  env: NodeJS.ProcessEnv,
  log: Log,
): Promise<{ path: string; version: string } | undefined> {
  for (const name of CHROMIUM_COMMANDS) {
    const path = await findOnPath(name, env);
    if (!path) continue;
    const result = await runCommand(path, ['--version'], { env, timeoutMs: 30_000 });
    // "Chromium 140.0.7339.127 built on Debian …"; stderr may carry the wrapper script's own warnings.
    const version = result.tail
      .map((line) => line.trim())
      .find((line) => /^(Chromium|Google Chrome|Chrome)\b.*\d+\.\d+/.test(line));
    if (result.code === 0 && version) return { path, version };
    // Ubuntu's chromium-browser, for one, is a stub asking for the snap.
    log(
      `Ignoring ${path}: \`${name} --version\` ${result.code === 0 ? 'does not print a Chromium version' : `failed (${describeExit(result)})`}, ` +
        `so it is not a working Chromium${result.tail.length ? `:\n${indent(result.tail.slice(-3))}` : '.'}`,
    );
  }
  return undefined;
}

async function installWithApt(
  aptGet: string,
  env: NodeJS.ProcessEnv,
  log: Log,
): Promise<{ path: string; version: string }> {
  const started = Date.now();
  log(
    'Chromium (for the browser tests) is not installed: CHROMIUM_PATH is unset and there is no `chromium` or ' +
      '`chromium-browser` on PATH.',
  );
  log(
    `Installing Debian's ${CHROMIUM_PACKAGE} package with apt-get (running as root; once, usually under a minute).`,
  );

  await installDebianPackage({
    kind: 'chromium',
    aptGet,
    debianPackage: CHROMIUM_PACKAGE,
    env,
    log,
    howTo: howToProvideChromium(),
  });

  const found = await findChromiumOnPath(env, log);
  if (!found) {
    throw new ProvisioningError(
      'chromium',
      `apt-get installed ${CHROMIUM_PACKAGE}, but there is still no working \`chromium\` on PATH ` +
        `(PATH=${env.PATH ?? ''}). Set CHROMIUM_PATH to the Chromium binary.`,
    );
  }
  log(`Installed ${found.version} in ${formatDuration(Date.now() - started)}: ${found.path}`);
  return found;
}

function howToProvideChromium(): string {
  return [
    'To provide it, either:',
    `  - install it: \`sudo apt-get install -y --no-install-recommends ${CHROMIUM_PACKAGE}\` on Debian or Ubuntu ` +
      "(or your system's Chromium package), or run `npm run provision -- --chromium` as root, which does that;",
    '  - or set CHROMIUM_PATH to a Chromium (or Google Chrome) executable.',
  ].join('\n');
}

function chromiumMissing(
  env: NodeJS.ProcessEnv,
  why: { install: boolean; uid: number | undefined; aptGet: string | undefined },
): string {
  const reason = !why.install
    ? 'the browser tests only look for it; `npm test` installs it beforehand (its `pretest` step)'
    : !why.aptGet
      ? 'there is no apt-get on PATH here'
      : `this process runs as ${why.uid === undefined ? 'an unknown user' : `uid ${why.uid}`}, not root`;
  return (
    `${
      'Chromium, which the browser tests in test/e2e/ drive, is not installed: CHROMIUM_PATH is unset ' +
      'and there is no `chromium` or `chromium-browser` on PATH'
    }${env.PATH ? '' : ' (PATH is empty)'}.\n` +
    `Sigil installs Debian's ${CHROMIUM_PACKAGE} package itself only when it runs as root with apt-get; ${reason}.\n` +
    howToProvideChromium()
  );
}

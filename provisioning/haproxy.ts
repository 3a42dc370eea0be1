// HAProxy, the load balancer in front of `npm run cluster`'s API processes. Looked up in this order:
// HAPROXY_PATH, `haproxy` on PATH (also /usr/sbin, where Debian puts it, even when PATH lacks it), and when
// Sigil runs as root on a machine with apt-get, Debian's haproxy package installed there and then (as
// provisioning/chromium.ts installs Chromium). Anything else is one error saying what to install or which
// variable to set.
import { delimiter } from 'node:path';
import {
  defaultLog,
  describeExit,
  findOnPath,
  formatDuration,
  installDebianPackage,
  type Log,
  type Provisioned,
  ProvisioningError,
  requireExecutable,
  runCommand,
  withLock,
} from './shared.ts';

/** The Debian package that provides /usr/sbin/haproxy. */
export const HAPROXY_PACKAGE = 'haproxy';
/** Where Debian installs it: a non-root PATH often lacks the sbin directories. */
const SBIN_DIRS = ['/usr/sbin', '/usr/local/sbin', '/sbin'];

export interface HaproxyProvisionOptions {
  /** Progress lines; defaults to stderr. */
  log?: Log;
  /** HAPROXY_PATH and PATH are read here, and apt-get runs with it; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Install Debian's package when HAProxy is missing (default true). */
  install?: boolean;
  /** Where the install lock lives (`<cacheDir>/locks/haproxy.lock`), so two installs never overlap. */
  cacheDir?: string;
  /** The user id that decides whether apt-get may run; defaults to this process's. */
  uid?: number;
}

export interface ProvisionedHaproxy extends Provisioned {
  kind: 'haproxy';
  path: string;
}

/** "HAProxy version 2.6.12-1+deb12u2 2025/…" → "2.6.12-1+deb12u2". */
export function parseHaproxyVersion(output: string): string | undefined {
  return /HA-?Proxy version (\S+)/i.exec(output)?.[1];
}

/**
 * Finds (and as root with apt-get, installs) HAProxy. Throws ProvisioningError when HAPROXY_PATH is set but
 * unusable, when an install fails, or when there is no HAProxy and no way to install it here.
 */
export async function provisionHaproxy(options: HaproxyProvisionOptions = {}): Promise<ProvisionedHaproxy> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;

  const explicit = env.HAPROXY_PATH?.trim();
  if (explicit) {
    const path = await requireExecutable('haproxy', explicit);
    const version = await haproxyVersion(path, env);
    if (!version.ok) throw new ProvisioningError('haproxy', `HAPROXY_PATH=${explicit}: ${version.problem}`);
    return { kind: 'haproxy', source: 'env', path, version: version.version };
  }

  const found = await findHaproxy(env);
  if (found) return { kind: 'haproxy', source: 'path', ...found };

  const uid = options.uid ?? process.getuid?.();
  const aptGet = await findOnPath('apt-get', env);
  const install = options.install ?? true;
  if (!install || uid !== 0 || !aptGet) {
    throw new ProvisioningError('haproxy', haproxyMissing({ install, uid, aptGet }));
  }
  const installOnce = async (): Promise<ProvisionedHaproxy> => {
    const meanwhile = await findHaproxy(env);
    if (meanwhile) return { kind: 'haproxy', source: 'path', ...meanwhile };
    const started = Date.now();
    log(
      'HAProxy (the load balancer of `npm run cluster`) is not installed: HAPROXY_PATH is unset and there is no',
    );
    log(
      `\`haproxy\` on PATH or in /usr/sbin. Installing Debian's ${HAPROXY_PACKAGE} package with apt-get (as root).`,
    );
    await installDebianPackage({
      kind: 'haproxy',
      aptGet,
      debianPackage: HAPROXY_PACKAGE,
      env,
      log,
      howTo: howToProvideHaproxy(),
    });
    const installed = await findHaproxy(env);
    if (!installed) {
      throw new ProvisioningError(
        'haproxy',
        `apt-get installed ${HAPROXY_PACKAGE}, but there is still no working \`haproxy\` on PATH or in ` +
          `${SBIN_DIRS.join(', ')}. Set HAPROXY_PATH to the haproxy binary.`,
      );
    }
    log(
      `Installed HAProxy ${installed.version} in ${formatDuration(Date.now() - started)}: ${installed.path}`,
    );
    return { kind: 'haproxy', source: 'installed', ...installed };
  };
  return options.cacheDir
    ? withLock('haproxy', options.cacheDir, 'haproxy', log, installOnce)
    : installOnce();
}

async function haproxyVersion(
  path: string,
  env: NodeJS.ProcessEnv,
): Promise<{ ok: true; version: string } | { ok: false; problem: string }> {
  const result = await runCommand(path, ['-v'], { env, timeoutMs: 30_000 });
  const version = parseHaproxyVersion(result.tail.join('\n'));
  if (result.code === 0 && version) return { ok: true, version };
  return {
    ok: false,
    problem: `\`${path} -v\` ${result.code === 0 ? 'does not print an HAProxy version' : `failed (${describeExit(result)})`}`,
  };
}

async function findHaproxy(env: NodeJS.ProcessEnv): Promise<{ path: string; version: string } | undefined> {
  const path = await findOnPath('haproxy', {
    ...env,
    PATH: [env.PATH ?? '', ...SBIN_DIRS].filter(Boolean).join(delimiter),
  });
  if (!path) return undefined;
  const version = await haproxyVersion(path, env);
  return version.ok ? { path, version: version.version } : undefined;
}

function howToProvideHaproxy(): string {
  return [
    'To provide it, either:',
    `  - install it: \`sudo apt-get install -y --no-install-recommends ${HAPROXY_PACKAGE}\` on Debian or Ubuntu ` +
      "(or your system's haproxy package, 2.6 or newer), or run `npm run provision -- --haproxy` as root, which does that;",
    '  - or set HAPROXY_PATH to an haproxy executable.',
  ].join('\n');
}

export function haproxyMissing(why: {
  install: boolean;
  uid: number | undefined;
  aptGet: string | undefined;
}): string {
  const reason = !why.install
    ? 'this run only looks for it'
    : !why.aptGet
      ? 'there is no apt-get on PATH here'
      : `this process runs as ${why.uid === undefined ? 'an unknown user' : `uid ${why.uid}`}, not root`;
  return (
    "HAProxy, the load balancer in front of `npm run cluster`'s API processes, is not installed: HAPROXY_PATH " +
    `is unset and there is no \`haproxy\` on PATH or in ${SBIN_DIRS.join(', ')}.\n` +
    `Sigil installs Debian's ${HAPROXY_PACKAGE} package itself only when it runs as root with apt-get; ${reason}.\n` +
    howToProvideHaproxy()
  );
}

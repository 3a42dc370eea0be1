// Provisioning of the two Temporal servers Sigil runs itself:
//  - the Temporal CLI (`temporal server start-dev`: dev server + Web UI), and
//  - the Java time-skipping test server used by the test suite.
// The SDK's own download of both needs internet access, which CI and the developers' machines lack, so each
// is looked up in this order: an explicit path from the environment, PATH, Sigil's cache, a build from a
// package registry (Go module proxy / Maven Central) into the cache, and only then the SDK's download.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import {
  access,
  chmod,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { connect as http2Connect } from 'node:http2';
import { createServer, connect as netConnect } from 'node:net';
import { hostname } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import type { EphemeralServerExecutable } from '@temporalio/testing';

/** Temporal CLI release built from the Go module proxy (later tags cannot be `go install`ed). */
export const TEMPORAL_CLI_VERSION = 'v1.5.1';
const TEMPORAL_CLI_PACKAGE = 'github.com/temporalio/cli/cmd/temporal';
const TEMPORAL_CLI_VERSION_VAR = 'github.com/temporalio/cli/temporalcli.Version';

/** io.temporal:temporal-test-server release resolved from Maven Central. */
export const TEMPORAL_TEST_SERVER_VERSION = '1.38.0';
const TEST_SERVER_MAIN_CLASS = 'io.temporal.testserver.TestServer';
const MAVEN_DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';
// The test server logs through slf4j but ships no binding; without one slf4j prints a warning on every start.
const SLF4J_NOP_VERSION = '1.7.36';
const CDS_ARCHIVE_NAME = 'test-server.jsa';
const CDS_DUMP_ENV = 'SIGIL_TEST_SERVER_CDS_DUMP';

const HEARTBEAT_MS = 15_000;
const LOCK_POLL_MS = 1_000;
const LOCK_MAX_WAIT_MS = 60 * 60 * 1000;
const LOCK_STALE_MS = 2 * 60 * 60 * 1000;
const LOCK_OWNERLESS_GRACE_MS = 30_000;
const OUTPUT_TAIL_LINES = 30;

export type ServerKind = 'dev-server' | 'test-server';

/** How a server was found: explicit env variable, PATH, Sigil's cache, built just now, or left to the SDK. */
export type ProvisionSource = 'env' | 'path' | 'cache' | 'built' | 'sdk-download';

export interface ProvisionedServer {
  kind: ServerKind;
  source: ProvisionSource;
  /** What to pass as `server.executable` to `@temporalio/testing`. */
  executable: EphemeralServerExecutable;
  /** The binary (or wrapper script); undefined when the SDK is left to download it. */
  path: string | undefined;
  /** Version when known. */
  version: string | undefined;
}

export interface ProvisionOptions {
  cacheDir: string;
  /** Progress lines (a build can take minutes); defaults to stderr. */
  log?: (line: string) => void;
  /** Environment used for PATH look-ups and child processes; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface DevServerProvisionOptions extends ProvisionOptions {
  /** TEMPORAL_CLI_PATH */
  cliPath?: string;
}

export interface TestServerProvisionOptions extends ProvisionOptions {
  /** TEMPORAL_TEST_SERVER_PATH */
  testServerPath?: string;
}

export class ProvisioningError extends Error {
  readonly kind: ServerKind;
  constructor(kind: ServerKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProvisioningError';
    this.kind = kind;
  }
}

const SERVER_NAMES: Record<ServerKind, string> = {
  'dev-server': 'Temporal dev server (Temporal CLI)',
  'test-server': 'Temporal time-skipping test server',
};

const PATH_VARIABLES: Record<ServerKind, string> = {
  'dev-server': 'TEMPORAL_CLI_PATH',
  'test-server': 'TEMPORAL_TEST_SERVER_PATH',
};

function defaultLog(line: string): void {
  process.stderr.write(`${line}\n`);
}

// ---------------------------------------------------------------------------------------------------------
// Temporal CLI (dev server)
// ---------------------------------------------------------------------------------------------------------

/** Where a built Temporal CLI is cached. */
export function devServerCachePath(cacheDir: string): string {
  return join(cacheDir, 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');
}

/** The SDK's own download directory, the last resort (needs internet access). */
export function sdkDownloadDir(cacheDir: string): string {
  return join(cacheDir, 'sdk-downloads');
}

/**
 * Finds the Temporal CLI: TEMPORAL_CLI_PATH, `temporal` on PATH, the cache, a build with Go into the cache,
 * or else the SDK's download. Throws ProvisioningError when an explicit path is bad or a build fails.
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

  const go = await findOnPath('go', env);
  if (go) {
    const built = await withLock(options.cacheDir, 'temporal-cli', log, async () => {
      // Another process may have built it while this one waited for the lock.
      if (await isExecutableFile(cached)) return false;
      await buildTemporalCli(go, options.cacheDir, log, env);
      return true;
    });
    return existingPath(kind, built ? 'built' : 'cache', cached, TEMPORAL_CLI_VERSION);
  }

  log(
    `No Temporal CLI: TEMPORAL_CLI_PATH is unset, no \`temporal\` on PATH, nothing cached at ${cached}, ` +
      'and no `go` on PATH to build it. Leaving it to the SDK to download (needs internet access).',
  );
  return sdkDownload(kind, options.cacheDir);
}

export async function resolveDevServerExecutable(
  options: DevServerProvisionOptions,
): Promise<EphemeralServerExecutable> {
  return (await provisionDevServer(options)).executable;
}

/** Like resolveDevServerExecutable, but the binary's path, or undefined when only the SDK download is left. */
export async function resolveDevServerBinary(
  options: DevServerProvisionOptions,
): Promise<string | undefined> {
  return (await provisionDevServer(options)).path;
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

async function buildTemporalCli(
  go: string,
  cacheDir: string,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv,
) {
  const root = join(cacheDir, 'temporal-cli');
  const target = devServerCachePath(cacheDir);
  await mkdir(root, { recursive: true });
  // We hold the lock, so any build directory left here belongs to a build that died.
  await removeLeftovers(root, '.build-');
  const work = await mkdtemp(join(root, '.build-'));
  const gobin = join(work, 'bin');
  const moduleRef = `${TEMPORAL_CLI_PACKAGE}@${TEMPORAL_CLI_VERSION}`;

  log(
    `Temporal CLI ${TEMPORAL_CLI_VERSION} (dev server + Web UI) is not installed: TEMPORAL_CLI_PATH is unset, ` +
      `there is no \`temporal\` on PATH and nothing is cached at ${target}.`,
  );
  log(
    `Building it once with \`go install ${moduleRef}\` from the Go module proxy. The first build takes ` +
      'several minutes on 2 cores; later runs use the cache.',
  );

  const started = Date.now();
  let packages = 0;
  let downloads = 0;
  let last = 'starting go';
  const heartbeat = setInterval(() => {
    log(
      `  building Temporal CLI: ${formatDuration(Date.now() - started)} elapsed, ` +
        `${downloads ? `${downloads} modules downloaded, ` : ''}${packages} packages compiled; last: ${last}`,
    );
  }, HEARTBEAT_MS);
  heartbeat.unref();

  try {
    const result = await runCommand(
      go,
      [
        'install',
        '-v',
        `-ldflags=-X ${TEMPORAL_CLI_VERSION_VAR}=${TEMPORAL_CLI_VERSION.replace(/^v/, '')}`,
        moduleRef,
      ],
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
          `Last lines of go's output:\n${indent(result.tail)}\n${howToProvide('dev-server')}`,
      );
    }
    await mkdir(join(root, TEMPORAL_CLI_VERSION), { recursive: true });
    await rename(join(gobin, 'temporal'), target);
    log(
      `Built Temporal CLI ${TEMPORAL_CLI_VERSION} in ${elapsed} (${packages} packages compiled): ${target}`,
    );
  } finally {
    clearInterval(heartbeat);
    await rm(work, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// Java time-skipping test server
// ---------------------------------------------------------------------------------------------------------

/** Directory of the cached test server: the wrapper script, lib/ with the jars and the class-data archive. */
export function testServerCacheDir(cacheDir: string): string {
  return join(cacheDir, 'temporal-test-server', TEMPORAL_TEST_SERVER_VERSION);
}

/** The cached wrapper script the SDK runs as `<path> <port> [--enable-time-skipping]`. */
export function testServerCachePath(cacheDir: string): string {
  return join(testServerCacheDir(cacheDir), 'temporal-test-server');
}

interface TestServerManifest {
  version: string;
  java: string;
  javaMajor: number;
  jars: string[];
  createdAt: string;
}

/**
 * Finds the time-skipping test server: TEMPORAL_TEST_SERVER_PATH, `temporal-test-server` on PATH, the cache,
 * a resolution from Maven Central (needs `java` and `mvn`) into the cache, or else the SDK's download.
 */
export async function provisionTimeSkippingServer(
  options: TestServerProvisionOptions,
): Promise<ProvisionedServer> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;
  const kind = 'test-server';

  if (options.testServerPath) {
    const path = await requireExecutable(kind, options.testServerPath);
    return existingPath(kind, 'env', path, undefined);
  }

  const onPath = await findOnPath('temporal-test-server', env);
  if (onPath) return existingPath(kind, 'path', onPath, undefined);

  const cached = testServerCachePath(options.cacheDir);
  if (await cachedTestServerUsable(options.cacheDir, env, log)) {
    return existingPath(kind, 'cache', cached, TEMPORAL_TEST_SERVER_VERSION);
  }

  const java = await findOnPath('java', env);
  const mvn = await findOnPath('mvn', env);
  if (java && mvn) {
    const built = await withLock(options.cacheDir, 'temporal-test-server', log, async () => {
      if (await cachedTestServerUsable(options.cacheDir, env, log)) return false;
      await buildTestServer(java, mvn, options.cacheDir, log, env);
      return true;
    });
    return existingPath(kind, built ? 'built' : 'cache', cached, TEMPORAL_TEST_SERVER_VERSION);
  }

  const missing = [java ? undefined : '`java`', mvn ? undefined : '`mvn`'].filter(Boolean).join(' and ');
  log(
    `No time-skipping test server: TEMPORAL_TEST_SERVER_PATH is unset, no \`temporal-test-server\` on PATH, ` +
      `nothing cached at ${cached}, and ${missing} missing from PATH to fetch it from Maven Central. ` +
      'Leaving it to the SDK to download (needs internet access).',
  );
  return sdkDownload(kind, options.cacheDir);
}

export async function resolveTimeSkippingServerExecutable(
  options: TestServerProvisionOptions,
): Promise<EphemeralServerExecutable> {
  return (await provisionTimeSkippingServer(options)).executable;
}

/** Like resolveTimeSkippingServerExecutable, but the path, or undefined when only the SDK download is left. */
export async function resolveTimeSkippingServerBinary(
  options: TestServerProvisionOptions,
): Promise<string | undefined> {
  return (await provisionTimeSkippingServer(options)).path;
}

async function readManifest(dir: string): Promise<TestServerManifest | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, 'provision.json'), 'utf8')) as TestServerManifest;
  } catch {
    return undefined;
  }
}

async function cachedTestServerUsable(
  cacheDir: string,
  env: NodeJS.ProcessEnv,
  log: (line: string) => void,
): Promise<boolean> {
  const dir = testServerCacheDir(cacheDir);
  if (!(await isExecutableFile(testServerCachePath(cacheDir)))) return false;
  const manifest = await readManifest(dir);
  if (!manifest) return false;
  // The wrapper runs the java it was provisioned with, or else the one on PATH.
  if ((await isExecutableFile(manifest.java)) || (await findOnPath('java', env))) return true;
  log(
    `Ignoring the cached test server in ${dir}: it needs Java, and ${manifest.java} is gone and PATH has no java.`,
  );
  return false;
}

async function javaMajorVersion(java: string, env: NodeJS.ProcessEnv): Promise<number | undefined> {
  const result = await runCommand(java, ['-version'], { env, timeoutMs: 30_000 });
  for (const line of result.tail) {
    const match = /version "(\d+)(?:\.(\d+))?/.exec(line);
    if (match) return match[1] === '1' ? Number(match[2]) : Number(match[1]);
  }
  return undefined;
}

function testServerPom(): string {
  const dependency = (group: string, artifact: string, version: string) =>
    [
      '    <dependency>',
      `      <groupId>${group}</groupId>`,
      `      <artifactId>${artifact}</artifactId>`,
      `      <version>${version}</version>`,
      '    </dependency>',
    ].join('\n');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!-- Throwaway project: only used to copy the test server and its runtime dependencies. -->',
    '<project xmlns="http://maven.apache.org/POM/4.0.0">',
    '  <modelVersion>4.0.0</modelVersion>',
    '  <groupId>sigil.provision</groupId>',
    '  <artifactId>temporal-test-server-deps</artifactId>',
    '  <version>0</version>',
    '  <packaging>pom</packaging>',
    '  <dependencies>',
    dependency('io.temporal', 'temporal-test-server', TEMPORAL_TEST_SERVER_VERSION),
    dependency('org.slf4j', 'slf4j-nop', SLF4J_NOP_VERSION),
    '  </dependencies>',
    '</project>',
    '',
  ].join('\n');
}

/** JVM flags for a fast start on a loaded machine: client compiler only, one GC thread, class-data sharing. */
function javaStartupFlags(javaMajor: number): string[] {
  const flags = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-Xshare:auto'];
  // Unified logging exists from Java 9; silence CDS chatter (e.g. an archive made stale by a JDK update).
  if (javaMajor >= 9) flags.push('-Xlog:cds=off', '-Xlog:cds+dynamic=off');
  return flags;
}

function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

function testServerWrapper(java: string, javaMajor: number, jars: string[]): string {
  const classpath = jars.map((jar) => `$dir/lib/${jar}`).join(':');
  const main = TEST_SERVER_MAIN_CLASS;
  return [
    '#!/bin/sh',
    `# Temporal time-skipping test server ${TEMPORAL_TEST_SERVER_VERSION} (io.temporal:temporal-test-server from`,
    '# Maven Central), provisioned by Sigil (temporal/provision.ts). Generated: delete this directory to',
    '# provision it again. The SDK runs it as: temporal-test-server <port> [--enable-time-skipping]',
    'dir=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd -P) || exit 1',
    `java=${shellQuote(java)}`,
    '[ -x "$java" ] || java=java',
    `flags=${shellQuote(javaStartupFlags(javaMajor).join(' '))}`,
    `cp="${classpath}"`,
    `if [ -n "\${${CDS_DUMP_ENV}:-}" ]; then`,
    `  exec "$java" $flags "-XX:ArchiveClassesAtExit=$${CDS_DUMP_ENV}" -cp "$cp" ${main} "$@"`,
    'fi',
    `if [ -f "$dir/${CDS_ARCHIVE_NAME}" ]; then`,
    `  exec "$java" $flags "-XX:SharedArchiveFile=$dir/${CDS_ARCHIVE_NAME}" -cp "$cp" ${main} "$@"`,
    'fi',
    `exec "$java" $flags -cp "$cp" ${main} "$@"`,
    '',
  ].join('\n');
}

async function buildTestServer(
  java: string,
  mvn: string,
  cacheDir: string,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const root = join(cacheDir, 'temporal-test-server');
  const finalDir = testServerCacheDir(cacheDir);
  await mkdir(root, { recursive: true });
  await removeLeftovers(root, '.build-');
  const work = await mkdtemp(join(root, '.build-'));
  const artifact = `io.temporal:temporal-test-server:${TEMPORAL_TEST_SERVER_VERSION}`;

  log(
    `Time-skipping test server ${TEMPORAL_TEST_SERVER_VERSION} is not installed: TEMPORAL_TEST_SERVER_PATH is ` +
      `unset, there is no \`temporal-test-server\` on PATH and nothing is cached in ${finalDir}.`,
  );
  log(
    `Fetching ${artifact} and its runtime dependencies from Maven Central with mvn (once; usually under a minute).`,
  );

  const started = Date.now();
  let major = 8;
  try {
    major = (await javaMajorVersion(java, env)) ?? major;
    await writeFile(join(work, 'pom.xml'), testServerPom());
    let downloads = 0;
    let last = 'starting mvn';
    const heartbeat = setInterval(() => {
      log(
        `  resolving test server: ${formatDuration(Date.now() - started)} elapsed, ${downloads} files downloaded; ` +
          `last: ${last}`,
      );
    }, HEARTBEAT_MS);
    heartbeat.unref();
    let result: CommandResult;
    try {
      result = await runCommand(
        mvn,
        [
          '-B',
          '-f',
          join(work, 'pom.xml'),
          `${MAVEN_DEPENDENCY_PLUGIN}:copy-dependencies`,
          '-DincludeScope=runtime',
          `-DoutputDirectory=${join(work, 'lib')}`,
        ],
        {
          cwd: work,
          env,
          onLine: (line) => {
            const match = /^\[INFO\] Downloaded from \S+: (\S+)/.exec(line);
            if (match?.[1]) {
              downloads++;
              last = match[1].slice(match[1].lastIndexOf('/') + 1);
            }
          },
        },
      );
    } finally {
      clearInterval(heartbeat);
    }
    if (result.code !== 0) {
      throw new ProvisioningError(
        'test-server',
        `Fetching ${artifact} with Maven failed (${describeExit(result)} after ` +
          `${formatDuration(Date.now() - started)}).\nLast lines of mvn's output:\n${indent(result.tail)}\n` +
          howToProvide('test-server'),
      );
    }

    const jars = (await readdir(join(work, 'lib'))).filter((name) => name.endsWith('.jar')).sort();
    const unsafe = jars.find((name) => !/^[\w.+-]+$/.test(name));
    if (unsafe) throw new ProvisioningError('test-server', `Unexpected jar name from Maven: ${unsafe}`);
    if (!jars.includes(`temporal-test-server-${TEMPORAL_TEST_SERVER_VERSION}.jar`)) {
      throw new ProvisioningError('test-server', `Maven did not copy temporal-test-server into ${work}/lib.`);
    }
    const wrapper = join(work, 'temporal-test-server');
    await writeFile(wrapper, testServerWrapper(java, major, jars));
    await chmod(wrapper, 0o755);
    const manifest: TestServerManifest = {
      version: TEMPORAL_TEST_SERVER_VERSION,
      java,
      javaMajor: major,
      jars,
      createdAt: new Date().toISOString(),
    };
    await writeFile(join(work, 'provision.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    await chmod(work, 0o755); // mkdtemp made it private
    await rm(finalDir, { recursive: true, force: true });
    await rename(work, finalDir);
    log(`  copied ${jars.length} jars in ${formatDuration(Date.now() - started)}`);
  } catch (error) {
    await rm(work, { recursive: true, force: true });
    throw error;
  }

  try {
    await prepareTestServerStart(finalDir, major, log, env);
  } catch (error) {
    await rm(finalDir, { recursive: true, force: true });
    throw error;
  }
  log(
    `Test server ${TEMPORAL_TEST_SERVER_VERSION} ready in ${formatDuration(Date.now() - started)}: ${finalDir}`,
  );
}

/**
 * Starts the freshly cached server once to record an AppCDS archive of the classes it loads (Java 13+), then
 * starts it again from the archive to check that it comes up. The archive roughly halves the start time.
 */
async function prepareTestServerStart(
  dir: string,
  major: number,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const wrapper = join(dir, 'temporal-test-server');
  if (major >= 13) {
    const partial = join(dir, `${CDS_ARCHIVE_NAME}.partial`);
    const training = await runServerOnce(wrapper, { ...env, [CDS_DUMP_ENV]: partial }, true);
    if (training.startMs === undefined) {
      throw new ProvisioningError(
        'test-server',
        `The test server in ${dir} did not start (${training.reason}).\nLast lines of its output:\n` +
          indent(training.tail),
      );
    }
    try {
      await rename(partial, join(dir, CDS_ARCHIVE_NAME));
      log(`  recorded a class-data archive for a faster start (${CDS_ARCHIVE_NAME})`);
    } catch {
      log(`  could not record a class-data archive (the server will start without one, more slowly)`);
    }
  } else {
    log(`  Java ${major} cannot record a class-data archive (needs 13+); the server starts without one`);
  }
  const check = await runServerOnce(wrapper, env, false);
  if (check.startMs === undefined) {
    throw new ProvisioningError(
      'test-server',
      `The test server in ${dir} did not start (${check.reason}).\nLast lines of its output:\n${indent(check.tail)}`,
    );
  }
  log(`  test server accepts connections ${check.startMs} ms after launch`);
}

interface ServerRun {
  startMs: number | undefined;
  reason: string;
  tail: string[];
}

/** Runs the test server wrapper on a free port until it accepts connections (and answers gRPC), then stops it. */
async function runServerOnce(wrapper: string, env: NodeJS.ProcessEnv, exercise: boolean): Promise<ServerRun> {
  const port = await freePort();
  const tail: string[] = [];
  const started = performance.now();
  const child = spawn(wrapper, [String(port), '--enable-time-skipping'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  collectLines(child, (line) => pushTail(tail, line));
  const exited = new Promise<void>((done) => {
    child.once('close', () => done());
    child.once('error', (error) => {
      pushTail(tail, String(error));
      done();
    });
  });
  const ready = await waitForPort(port, 60_000, exited);
  const startMs = ready ? Math.round(performance.now() - started) : undefined;
  if (ready && exercise) await exerciseGrpc(port);
  child.kill('SIGTERM');
  // Writing the class-data archive at exit takes a few seconds.
  const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  await exited;
  clearTimeout(killer);
  return { startMs, reason: ready ? 'started' : 'no connection within 60 s, or it exited', tail };
}

/** Sends a few empty gRPC requests, so the request-handling classes are loaded (and archived) too. */
async function exerciseGrpc(port: number): Promise<void> {
  const session = http2Connect(`http://127.0.0.1:${port}`);
  session.on('error', () => {});
  const methods = [
    '/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo',
    '/temporal.api.testservice.v1.TestService/GetCurrentTime',
    '/temporal.api.workflowservice.v1.WorkflowService/DescribeNamespace',
    '/temporal.api.workflowservice.v1.WorkflowService/ListWorkflowExecutions',
  ];
  for (const method of methods) {
    await new Promise<void>((done) => {
      const request = session.request({
        ':method': 'POST',
        ':path': method,
        'content-type': 'application/grpc',
        te: 'trailers',
      });
      request.setTimeout(10_000, () => request.close());
      request.on('data', () => {});
      request.on('error', () => {});
      request.on('close', () => done());
      // One uncompressed gRPC message of length zero: the empty request.
      request.end(Buffer.alloc(5));
    });
  }
  session.close();
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') done(address.port);
        else fail(new Error('no port'));
      });
    });
  });
}

async function waitForPort(port: number, timeoutMs: number, exited: Promise<void>): Promise<boolean> {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (!gone && Date.now() < deadline) {
    const open = await new Promise<boolean>((done) => {
      const socket = netConnect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => {
        socket.destroy();
        done(false);
      });
    });
    if (open) return true;
    await sleep(25);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------------------------------------

function howToProvide(kind: ServerKind): string {
  const steps =
    kind === 'dev-server'
      ? [
          'set TEMPORAL_CLI_PATH to a Temporal CLI binary (`temporal`), or put `temporal` on PATH;',
          `install Go (1.25 or later) and run \`npm run provision -- --dev-server\`, which builds the CLI ${TEMPORAL_CLI_VERSION} into the cache;`,
          'or set TEMPORAL_ADDRESS=host:port to use an existing Temporal server instead of starting one.',
        ]
      : [
          'set TEMPORAL_TEST_SERVER_PATH to a temporal-test-server executable, or put `temporal-test-server` on PATH;',
          `or install Java (17 recommended) and Maven and run \`npm run provision -- --test-server\`, which fetches ${TEMPORAL_TEST_SERVER_VERSION} from Maven Central into the cache.`,
        ];
  return `To provide it:\n${steps.map((step) => `  - ${step}`).join('\n')}`;
}

function onPathSync(name: string, env: NodeJS.ProcessEnv): boolean {
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

function cacheState(path: string): string {
  try {
    accessSync(path, constants.X_OK);
    return `${path} (present)`;
  } catch {
    return `${path} (not provisioned)`;
  }
}

/**
 * Wraps a failure to start a server (typically the SDK's download failing offline) in ONE error that says what
 * is missing and how to provide it. A ProvisioningError (already explicit) is returned as it is.
 */
export function explainProvisioningFailure(
  kind: ServerKind,
  cause: unknown,
  options: { cacheDir?: string; env?: NodeJS.ProcessEnv } = {},
): Error {
  if (cause instanceof ProvisioningError) return cause;
  const env = options.env ?? process.env;
  const reason = cause instanceof Error ? cause.message : String(cause);
  const variable = PATH_VARIABLES[kind];
  const found = (name: string) => `${name}: ${onPathSync(name, env) ? 'found' : 'not found'}`;
  const lookedAt =
    kind === 'dev-server'
      ? [
          `${variable}: ${env[variable] ? `set to ${env[variable]}` : 'not set'}`,
          `\`temporal\` on PATH: ${onPathSync('temporal', env) ? 'found' : 'not found'}`,
          options.cacheDir ? `cache: ${cacheState(devServerCachePath(options.cacheDir))}` : undefined,
          `build with Go (${found('go')})`,
          "the SDK's own download, which needs internet access",
        ]
      : [
          `${variable}: ${env[variable] ? `set to ${env[variable]}` : 'not set'}`,
          `\`temporal-test-server\` on PATH: ${onPathSync('temporal-test-server', env) ? 'found' : 'not found'}`,
          options.cacheDir ? `cache: ${cacheState(testServerCachePath(options.cacheDir))}` : undefined,
          `fetch from Maven Central (${found('java')}, ${found('mvn')})`,
          "the SDK's own download, which needs internet access",
        ];
  const message =
    `Could not start the ${SERVER_NAMES[kind]}:\n  ${reason}\n` +
    `Sigil looks for it in this order:\n${lookedAt
      .filter(Boolean)
      .map((item) => `  - ${item}`)
      .join('\n')}\n${howToProvide(kind)}`;
  return new ProvisioningError(kind, message, { cause });
}

// ---------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------

/** One line for logs, e.g. "dev-server: cache /home/x/.cache/sigil/temporal-cli/v1.5.1/temporal". */
export function describeProvisioned(server: ProvisionedServer): string {
  if (server.source === 'sdk-download') {
    const dir = server.executable.type === 'cached-download' ? server.executable.downloadDir : undefined;
    return `${server.kind}: sdk-download into ${dir} on first use (needs internet access)`;
  }
  return `${server.kind}: ${server.source} ${server.path}${server.version ? ` (${server.version})` : ''}`;
}

function existingPath(
  kind: ServerKind,
  source: ProvisionSource,
  path: string,
  version: string | undefined,
): ProvisionedServer {
  return { kind, source, executable: { type: 'existing-path', path }, path, version };
}

function sdkDownload(kind: ServerKind, cacheDir: string): ProvisionedServer {
  return {
    kind,
    source: 'sdk-download',
    executable: { type: 'cached-download', downloadDir: sdkDownloadDir(cacheDir) },
    path: undefined,
    version: undefined,
  };
}

async function requireExecutable(kind: ServerKind, path: string): Promise<string> {
  const variable = PATH_VARIABLES[kind];
  const absolute = resolve(path);
  const fix = `Point ${variable} at the ${SERVER_NAMES[kind]} executable, or unset it to let Sigil find or build one.`;
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

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function findOnPath(name: string, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = resolve(dir, name);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

async function removeLeftovers(dir: string, prefix: string): Promise<void> {
  for (const name of await readdir(dir)) {
    if (name.startsWith(prefix)) await rm(join(dir, name), { recursive: true, force: true });
  }
}

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
 * at a time; others wait, then find the result in the cache. A lock whose process died is taken over.
 */
async function withLock<T>(
  cacheDir: string,
  name: string,
  log: (line: string) => void,
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
        name === 'temporal-cli' ? 'dev-server' : 'test-server',
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

interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The last lines of stdout and stderr, interleaved. */
  tail: string[];
}

function pushTail(tail: string[], line: string): void {
  tail.push(line);
  if (tail.length > OUTPUT_TAIL_LINES) tail.shift();
}

function collectLines(child: ChildProcess, onLine: (line: string) => void): void {
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

function runCommand(
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

function describeExit(result: CommandResult): string {
  if (result.signal) return `killed by ${result.signal}`;
  return result.code === null ? 'could not run' : `exit code ${result.code}`;
}

function indent(lines: string[]): string {
  return lines.length ? lines.map((line) => `    ${line}`).join('\n') : '    (no output)';
}

export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

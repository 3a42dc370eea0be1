// The Java time-skipping test server (io.temporal:temporal-test-server) the deadline tests run through
// `TestWorkflowEnvironment.createTimeSkipping`. Looked up in this order: TEMPORAL_TEST_SERVER_PATH,
// `temporal-test-server` on PATH, Sigil's cache, a resolution from Maven Central with `java` and `mvn` into the
// cache (with a class-data archive, so it starts well inside the SDK's 5-second limit), and only then the SDK's
// own download (needs internet access).
import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { connect as http2Connect } from 'node:http2';
import { createServer, connect as netConnect } from 'node:net';
import { join } from 'node:path';
import {
  type CommandResult,
  cacheState,
  collectLines,
  defaultLog,
  describeExit,
  findOnPath,
  formatDuration,
  heartbeat,
  indent,
  isExecutableFile,
  type Log,
  onPathSync,
  ProvisioningError,
  type ProvisionOptions,
  pushTail,
  removeLeftovers,
  requireExecutable,
  runCommand,
  sleep,
  withLock,
} from '../../provisioning/shared.ts';
import { existingPath, type ProvisionedServer, sdkDownload } from './server.ts';

/** io.temporal:temporal-test-server release resolved from Maven Central. */
export const TEMPORAL_TEST_SERVER_VERSION = '1.38.0';
const TEST_SERVER_MAIN_CLASS = 'io.temporal.testserver.TestServer';
const MAVEN_DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';
// The test server logs through slf4j but ships no binding; without one slf4j prints a warning on every start.
const SLF4J_NOP_VERSION = '1.7.36';
const CDS_ARCHIVE_NAME = 'test-server.jsa';
const CDS_DUMP_ENV = 'SIGIL_TEST_SERVER_CDS_DUMP';

export interface TestServerProvisionOptions extends ProvisionOptions {
  /** TEMPORAL_TEST_SERVER_PATH */
  testServerPath?: string;
}

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
    const built = await withLock('test-server', options.cacheDir, 'temporal-test-server', log, async () => {
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

async function readManifest(dir: string): Promise<TestServerManifest | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, 'provision.json'), 'utf8')) as TestServerManifest;
  } catch {
    return undefined;
  }
}

async function cachedTestServerUsable(cacheDir: string, env: NodeJS.ProcessEnv, log: Log): Promise<boolean> {
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
    '# Maven Central), provisioned by Sigil (temporal/provisioning/). Generated: delete this directory to',
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
  log: Log,
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
    const stopHeartbeat = heartbeat(
      log,
      (elapsed) =>
        `  resolving test server: ${elapsed} elapsed, ${downloads} files downloaded; last: ${last}`,
    );
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
      stopHeartbeat();
    }
    if (result.code !== 0) {
      throw new ProvisioningError(
        'test-server',
        `Fetching ${artifact} with Maven failed (${describeExit(result)} after ` +
          `${formatDuration(Date.now() - started)}).\nLast lines of mvn's output:\n${indent(result.tail)}\n` +
          howToProvideTestServer(),
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
  log: Log,
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

/** The ways to provide the test server, for error messages. */
export function howToProvideTestServer(): string {
  const steps = [
    'set TEMPORAL_TEST_SERVER_PATH to a temporal-test-server executable, or put `temporal-test-server` on PATH;',
    `or install Java (17 recommended) and Maven and run \`npm run provision -- --test-server\`, which fetches ${TEMPORAL_TEST_SERVER_VERSION} from Maven Central into the cache.`,
  ];
  return `To provide it:\n${steps.map((step) => `  - ${step}`).join('\n')}`;
}

/** The places Sigil looked, for an error after the SDK could not start the test server. */
export function testServerLookups(env: NodeJS.ProcessEnv, cacheDir: string | undefined): string[] {
  const variable = 'TEMPORAL_TEST_SERVER_PATH';
  const found = (name: string) => `${name}: ${onPathSync(name, env) ? 'found' : 'not found'}`;
  return [
    `${variable}: ${env[variable] ? `set to ${env[variable]}` : 'not set'}`,
    `\`temporal-test-server\` on PATH: ${onPathSync('temporal-test-server', env) ? 'found' : 'not found'}`,
    ...(cacheDir ? [`cache: ${cacheState(testServerCachePath(cacheDir))}`] : []),
    `fetch from Maven Central (${found('java')}, ${found('mvn')})`,
    "the SDK's own download, which needs internet access",
  ];
}

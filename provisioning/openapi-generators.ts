// The two client generators test/integration/openapi-generators.test.ts runs on the /api/v1 document, as an
// integrator would (docs/api.md, "Generating a client"):
//   openapi-python-client (PyPI): OPENAPI_PYTHON_CLIENT_PATH, or Sigil's cache (a virtualenv under
//     <cache>/openapi-python-client/<version>/venv), and otherwise installed from PyPI into that virtualenv. The
//     virtualenv also holds what the two generated Python clients import (httpx and attrs come with the
//     generator; urllib3 and python-dateutil are added for openapi-generator's client), so the test runs both
//     clients with its python.
//   openapi-generator-cli (Maven Central, org.openapitools:openapi-generator-cli): OPENAPI_GENERATOR_JAR, or the
//     cache (<cache>/openapi-generator/<version>/openapi-generator-cli-<version>.jar), and otherwise copied
//     there with `mvn dependency:copy`; it runs with `java -jar`.
// Both are pinned: generated code differs between releases. Progress goes to the log; anything missing is one
// error saying what to install or which variable to set.
import { mkdir, mkdtemp, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  cachedVenvTool,
  defaultLog,
  describeExit,
  findOnPath,
  findPythonInterpreter,
  formatBytes,
  formatDuration,
  heartbeat,
  indent,
  installVenvTool,
  type Log,
  type Provisioned,
  ProvisioningError,
  readVersion,
  removeLeftovers,
  requireExecutable,
  runCommand,
  type VenvTool,
  withLock,
} from './shared.ts';

export const OPENAPI_PYTHON_CLIENT_VERSION = '0.29.1';
export const OPENAPI_GENERATOR_VERSION = '7.17.0';
const OPENAPI_GENERATOR_ARTIFACT = `org.openapitools:openapi-generator-cli:${OPENAPI_GENERATOR_VERSION}`;
const MAVEN_DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';
/** What the generated clients import beyond what openapi-python-client brings (openapi-generator's client). */
const CLIENT_RUNTIME = ['urllib3==2.5.0', 'python-dateutil==2.9.0.post0'];
/** openapi-python-client 0.29 requires Python 3.10 or later. */
const MINIMUM_PYTHON = [3, 10] as const;

export interface GeneratorProvisionOptions {
  /** Sigil's cache directory (`SIGIL_CACHE_DIR`, default ~/.cache/sigil). */
  cacheDir: string;
  /** Progress lines; defaults to stderr. */
  log?: Log;
  /** The variables and PATH are read here, and pip and mvn run with it; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface ProvisionedPythonGenerator extends Provisioned {
  kind: 'openapi-python-client';
  /** The `openapi-python-client` executable. */
  path: string;
  /** The python of its virtualenv, which imports both generated clients. */
  python: string;
}

export interface ProvisionedJavaGenerator extends Provisioned {
  kind: 'openapi-generator';
  /** The jar. */
  path: string;
  java: string;
}

const venvOf = (cacheDir: string) =>
  join(cacheDir, 'openapi-python-client', OPENAPI_PYTHON_CLIENT_VERSION, 'venv');

function howToProvidePythonGenerator(): string {
  return (
    'To provide it:\n' +
    `  - install Python ${MINIMUM_PYTHON.join('.')} or later with its venv module; the test installs it into the cache;\n` +
    `  - or set OPENAPI_PYTHON_CLIENT_PATH to the \`openapi-python-client\` ${OPENAPI_PYTHON_CLIENT_VERSION} of a ` +
    `virtualenv that also has ${CLIENT_RUNTIME.join(' and ')}.`
  );
}

/** `openapi-python-client --version` prints "openapi-python-client version: 0.29.1". */
const generatorVersion = (path: string, env: NodeJS.ProcessEnv) =>
  readVersion(path, env, {
    args: ['--version'],
    timeoutMs: 60_000,
    read: (line) => /^openapi-python-client version: (\S+)/.exec(line)?.[1],
    expected: 'openapi-python-client version: …',
  });

const pythonGeneratorTool = (cacheDir: string): VenvTool => ({
  kind: 'openapi-python-client',
  label: 'openapi-python-client',
  venv: venvOf(cacheDir),
  executable: join(venvOf(cacheDir), 'bin', 'openapi-python-client'),
  requirements: [`openapi-python-client==${OPENAPI_PYTHON_CLIENT_VERSION}`, ...CLIENT_RUNTIME],
  marker: { requirements: [`openapi-python-client==${OPENAPI_PYTHON_CLIENT_VERSION}`, ...CLIENT_RUNTIME] },
  pinned: OPENAPI_PYTHON_CLIENT_VERSION,
  version: generatorVersion,
  howTo: howToProvidePythonGenerator,
});

/** openapi-python-client in its virtualenv (found, cached or installed now). */
export async function provisionOpenApiPythonClient(
  options: GeneratorProvisionOptions,
): Promise<ProvisionedPythonGenerator> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;
  const kind = 'openapi-python-client';
  const found = (source: Provisioned['source'], path: string): ProvisionedPythonGenerator => ({
    kind,
    source,
    path,
    python: join(path, '..', 'python'),
    version: OPENAPI_PYTHON_CLIENT_VERSION,
  });

  const explicit = env.OPENAPI_PYTHON_CLIENT_PATH?.trim();
  if (explicit) return found('env', await requireExecutable(kind, explicit));

  const tool = pythonGeneratorTool(options.cacheDir);
  const cached = await cachedVenvTool(tool, env);
  if (cached) return found('cache', cached);

  const python = await findPythonInterpreter(env, MINIMUM_PYTHON);
  if (!python.found) {
    throw new ProvisioningError(
      kind,
      `openapi-python-client ${OPENAPI_PYTHON_CLIENT_VERSION} is not installed and there is no Python ` +
        `${MINIMUM_PYTHON.join('.')}+ to install it with (${python.rejected.join('; ') || 'none on PATH'}).\n` +
        howToProvidePythonGenerator(),
    );
  }
  const interpreter = python.found;
  return withLock(kind, options.cacheDir, 'openapi-python-client', log, async () => {
    const meanwhile = await cachedVenvTool(tool, env);
    if (meanwhile) return found('cache', meanwhile);
    log(
      `openapi-python-client ${OPENAPI_PYTHON_CLIENT_VERSION} (for the client-generator test) is not installed: ` +
        `nothing is cached at ${tool.venv}.`,
    );
    return found('installed', await installVenvTool(tool, interpreter, log, env));
  });
}

function howToProvideJavaGenerator(): string {
  return (
    'To provide it:\n' +
    '  - install Java 11 or later and Maven (`java`, `mvn` on PATH); the test copies the jar into the cache;\n' +
    `  - or set OPENAPI_GENERATOR_JAR to openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar (and have \`java\`).`
  );
}

/** openapi-generator-cli's jar (found, cached or copied from Maven Central now) and the java to run it. */
export async function provisionOpenApiGenerator(
  options: GeneratorProvisionOptions,
): Promise<ProvisionedJavaGenerator> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;
  const kind = 'openapi-generator';
  const java = await findOnPath('java', env);
  if (!java) {
    throw new ProvisioningError(
      kind,
      `openapi-generator-cli runs on Java: no \`java\` on PATH.\n${howToProvideJavaGenerator()}`,
    );
  }
  const found = (source: Provisioned['source'], path: string): ProvisionedJavaGenerator => ({
    kind,
    source,
    path,
    java,
    version: OPENAPI_GENERATOR_VERSION,
  });

  const explicit = env.OPENAPI_GENERATOR_JAR?.trim();
  if (explicit) {
    const path = resolve(explicit);
    if (!(await isFile(path))) {
      throw new ProvisioningError(
        kind,
        `OPENAPI_GENERATOR_JAR is set to ${explicit}, which is not a file.\n${howToProvideJavaGenerator()}`,
      );
    }
    return found('env', path);
  }

  const dir = join(options.cacheDir, 'openapi-generator', OPENAPI_GENERATOR_VERSION);
  const jar = join(dir, `openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`);
  if (await isFile(jar)) return found('cache', jar);

  const mvn = await findOnPath('mvn', env);
  if (!mvn) {
    throw new ProvisioningError(
      kind,
      `openapi-generator-cli ${OPENAPI_GENERATOR_VERSION} is not cached at ${jar} and there is no \`mvn\` on PATH ` +
        `to fetch it from Maven Central.\n${howToProvideJavaGenerator()}`,
    );
  }
  return withLock(kind, options.cacheDir, 'openapi-generator', log, async () => {
    if (await isFile(jar)) return found('cache', jar);
    await fetchJar(mvn, dir, jar, log, env);
    return found('built', jar);
  });
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** Copies the jar from Maven Central into a scratch directory beside `dir`, then moves it into place. */
async function fetchJar(
  mvn: string,
  dir: string,
  jar: string,
  log: Log,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const root = join(dir, '..');
  await mkdir(root, { recursive: true });
  await removeLeftovers(root, '.fetch-');
  const work = await mkdtemp(join(root, '.fetch-'));
  const started = Date.now();
  log(
    `openapi-generator-cli ${OPENAPI_GENERATOR_VERSION} (for the client-generator test) is not cached at ${jar}: ` +
      `fetching ${OPENAPI_GENERATOR_ARTIFACT} from Maven Central with mvn (once; about 30 MB).`,
  );
  let downloads = 0;
  let last = 'starting mvn';
  const stop = heartbeat(
    log,
    (elapsed) =>
      `  fetching openapi-generator-cli: ${elapsed} elapsed, ${downloads} files downloaded; last: ${last}`,
  );
  try {
    const result = await runCommand(
      mvn,
      [
        '-B',
        `${MAVEN_DEPENDENCY_PLUGIN}:copy`,
        `-Dartifact=${OPENAPI_GENERATOR_ARTIFACT}`,
        `-DoutputDirectory=${work}`,
      ],
      {
        cwd: work,
        env,
        timeoutMs: 15 * 60_000,
        onLine: (line) => {
          const match = /^\[INFO\] Downloaded from \S+: (\S+)/.exec(line);
          if (match?.[1]) {
            downloads++;
            last = match[1].slice(match[1].lastIndexOf('/') + 1);
          }
        },
      },
    );
    const copied = join(work, `openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`);
    if (result.code !== 0 || !(await isFile(copied))) {
      throw new ProvisioningError(
        'openapi-generator',
        `mvn could not copy ${OPENAPI_GENERATOR_ARTIFACT} (${describeExit(result)}).\nLast lines of its output:\n` +
          `${indent(result.tail)}\nCheck Maven's access to its repository (~/.m2/settings.xml).\n${howToProvideJavaGenerator()}`,
      );
    }
    await mkdir(dir, { recursive: true });
    await rename(copied, jar);
    log(
      `  fetched openapi-generator-cli ${OPENAPI_GENERATOR_VERSION} (${formatBytes((await stat(jar)).size)}) in ` +
        `${formatDuration(Date.now() - started)}: ${jar}`,
    );
  } finally {
    stop();
    await rm(work, { recursive: true, force: true });
  }
}

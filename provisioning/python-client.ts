// The Python client's test environment (clients/python, run by test/integration/python-client.test.ts): a
// virtualenv in Sigil's cache with the package installed in editable mode (its source is read from the checkout,
// so an edit needs no reinstall) and pytest, httpx and mypy pinned. Looked up in this order: PYTHON_CLIENT_PYTEST_PATH
// (a pytest whose environment has sigil-client installed), the cache (<cache>/python-client/<key>/venv, the key
// a hash of pyproject.toml and of the checkout's path: a dependency change, or another checkout, gets its own
// virtualenv), and otherwise made there with `python3 -m venv` and pip, like Schemathesis' (provisioning/schemathesis.ts).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  cachedVenvTool,
  defaultLog,
  findPythonInterpreter,
  installVenvTool,
  type Log,
  type Provisioned,
  ProvisioningError,
  readVersion,
  requireExecutable,
  type VenvTool,
  type VersionAnswer,
  withLock,
} from './shared.ts';

/** The test runner and HTTP library the client's tests are written against, and the type checker of its hints. */
export const PYTEST_VERSION = '9.2.0';
export const HTTPX_VERSION = '0.28.1';
export const MYPY_VERSION = '2.4.1';
/** The package's `requires-python`. */
export const MINIMUM_PYTHON = [3, 10] as const;
/** The package (pyproject.toml, src/sigil_client, tests). */
export const PYTHON_CLIENT_DIR = new URL('../clients/python', import.meta.url).pathname;

export interface PythonClientProvisionOptions {
  cacheDir: string;
  log?: Log;
  env?: NodeJS.ProcessEnv;
}

export interface ProvisionedPythonClient extends Provisioned {
  kind: 'python-client';
  /** The pytest executable. */
  path: string;
}

/** The cache key: pyproject.toml's bytes and where the checkout is (an editable install points at it). */
export async function pythonClientKey(clientDir = PYTHON_CLIENT_DIR): Promise<string> {
  const pyproject = await readFile(join(clientDir, 'pyproject.toml'));
  return createHash('sha256').update(pyproject).update('\0').update(clientDir).digest('hex').slice(0, 16);
}

export function pythonClientVenvPath(cacheDir: string, key: string): string {
  return join(cacheDir, 'python-client', key, 'venv');
}

/** `pytest --version` prints "pytest 9.2.0". */
const pytestVersion = (path: string, env: NodeJS.ProcessEnv): Promise<VersionAnswer> =>
  readVersion(path, env, {
    args: ['--version'],
    timeoutMs: 60_000,
    read: (line) => /^pytest (\S+)$/.exec(line)?.[1],
    expected: 'pytest …',
  });

function howToProvide(): string {
  return (
    'To provide it:\n' +
    `  - install Python ${MINIMUM_PYTHON.join('.')} or later with its venv module (Sigil then installs the ` +
    'rest into its cache by itself);\n' +
    `  - or \`pip install -e clients/python pytest==${PYTEST_VERSION} httpx==${HTTPX_VERSION} mypy==${MYPY_VERSION}\` into an ` +
    'environment of your own and set PYTHON_CLIENT_PYTEST_PATH to its `pytest`.'
  );
}

function pythonClientTool(cacheDir: string, key: string): VenvTool {
  const venv = pythonClientVenvPath(cacheDir, key);
  return {
    kind: 'python-client',
    label: 'the Python client with pytest',
    venv,
    executable: join(venv, 'bin', 'pytest'),
    requirements: [
      '-e',
      PYTHON_CLIENT_DIR,
      `pytest==${PYTEST_VERSION}`,
      `httpx==${HTTPX_VERSION}`,
      `mypy==${MYPY_VERSION}`,
    ],
    marker: {
      key,
      clientDir: PYTHON_CLIENT_DIR,
      pytest: PYTEST_VERSION,
      httpx: HTTPX_VERSION,
      mypy: MYPY_VERSION,
    },
    pinned: PYTEST_VERSION,
    version: pytestVersion,
    howTo: howToProvide,
  };
}

/** Finds (or makes in the cache) pytest with sigil-client installed from this checkout. */
export async function provisionPythonClient(
  options: PythonClientProvisionOptions,
): Promise<ProvisionedPythonClient> {
  const log = options.log ?? defaultLog;
  const env = options.env ?? process.env;
  const kind = 'python-client';

  const explicit = env.PYTHON_CLIENT_PYTEST_PATH?.trim();
  if (explicit) {
    const path = await requireExecutable(kind, explicit);
    const version = await pytestVersion(path, env);
    if (!version.ok) {
      throw new ProvisioningError(
        kind,
        `PYTHON_CLIENT_PYTEST_PATH is set to ${explicit}, but \`${explicit} --version\` ${version.problem}.\n${howToProvide()}`,
      );
    }
    return { kind, source: 'env', path, version: version.version };
  }

  const key = await pythonClientKey();
  const tool = pythonClientTool(options.cacheDir, key);
  const cached = await cachedVenvTool(tool, env);
  if (cached) return { kind, source: 'cache', path: cached, version: PYTEST_VERSION };

  const python = await findPythonInterpreter(env, MINIMUM_PYTHON);
  const interpreter = python.found;
  if (!interpreter) {
    throw new ProvisioningError(
      kind,
      `The Python client's tests need Python ${MINIMUM_PYTHON.join('.')}+ to make their virtualenv at ` +
        `${tool.venv}: ${python.rejected.length > 0 ? python.rejected.join('; ') : 'no Python on PATH'}.\n${howToProvide()}`,
    );
  }
  return withLock(kind, options.cacheDir, `python-client-${key}`, log, async () => {
    const meanwhile = await cachedVenvTool(tool, env);
    if (meanwhile) return { kind, source: 'cache', path: meanwhile, version: PYTEST_VERSION };
    log(`The Python client's test environment is not in the cache yet (${tool.venv}).`);
    const path = await installVenvTool(tool, interpreter, log, env);
    return { kind, source: 'installed', path, version: PYTEST_VERSION };
  });
}

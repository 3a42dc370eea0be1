// Finding (and installing) the fuzz test's Schemathesis, every branch. Only the machine's edge is faked: PATH
// holds scratch directories with small shell scripts standing for `st`, `python3` and the virtualenv's pip, and
// the cache is a scratch directory. The resolver runs them as it runs the real ones.
import { access, chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  provisionSchemathesis,
  SCHEMATHESIS_VERSION,
  schemathesisCachePath,
  schemathesisVenvPath,
} from '../../provisioning/schemathesis.ts';
import { ProvisioningError } from '../../provisioning/shared.ts';

let root: string;
let bin: string; // on PATH
let tools: string; // on PATH, after bin
let cacheDir: string;
let lines: string[];
const log = (line: string) => lines.push(line);

const st = (version = SCHEMATHESIS_VERSION, name = 'st') => `#!/bin/sh\necho "${name}, version ${version}"\n`;

async function script(dir: string, name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, body);
  await chmod(path, 0o755);
  return path;
}

/**
 * A fake Python: `-c` prints its version, `-m venv DIR` creates DIR/bin/pip (unless `venvFails`). The pip it
 * writes logs its arguments, prints what pip prints and then runs `onInstall` with $VENV set.
 */
function python(
  options: { version?: string; venvFails?: string; onInstall?: string; pipExit?: number } = {},
) {
  const calls = join(root, 'calls');
  const pip = `#!/bin/sh
echo "pip $* VIRTUAL_ENV=$VIRTUAL_ENV" >> '${calls}'
VENV="$VIRTUAL_ENV"
echo "Collecting schemathesis==${SCHEMATHESIS_VERSION}"
echo "  Downloading schemathesis-${SCHEMATHESIS_VERSION}-py3-none-any.whl (400 kB)"
echo "Collecting hypothesis>=6.108.0 (from schemathesis==${SCHEMATHESIS_VERSION})"
echo "  Using cached hypothesis-6.170.15-py3-none-any.whl (530 kB)"
echo "Installing collected packages: hypothesis, schemathesis"
${options.onInstall ?? ''}
if [ "${options.pipExit ?? 0}" != 0 ]; then echo "ERROR: No matching distribution found for schemathesis" >&2; exit ${options.pipExit}; fi
echo "Successfully installed hypothesis-6.170.15 schemathesis-${SCHEMATHESIS_VERSION}"
`;
  return `#!/bin/sh
echo "python $*" >> '${calls}'
if [ "$1" = "-c" ]; then echo "python ${options.version ?? '3.11.7'}"; exit 0; fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  ${options.venvFails ? `echo "${options.venvFails}" >&2; exit 1` : ''}
  /bin/mkdir -p "$3/bin"
  /bin/cat > "$3/bin/pip" <<'PIP'
${pip}PIP
  /bin/chmod +x "$3/bin/pip"
  exit 0
fi
exit 2
`;
}

/** What the fake pip does to install: an `st` of `version` in the virtualenv. */
const installsSt = (version = SCHEMATHESIS_VERSION) =>
  `printf '#!/bin/sh\\necho "st, version ${version}"\\n' > "$VENV/bin/st"; /bin/chmod +x "$VENV/bin/st"`;

async function calls(): Promise<string[]> {
  const text = await readFile(join(root, 'calls'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}

function env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: [bin, tools].join(delimiter), ...extra };
}

async function failure(promise: Promise<unknown>): Promise<ProvisioningError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ProvisioningError);
    return error as ProvisioningError;
  }
  throw new Error('expected a ProvisioningError');
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/** A finished install in the cache, as the resolver leaves it. */
async function cachedInstall(version = SCHEMATHESIS_VERSION): Promise<string> {
  const venv = schemathesisVenvPath(cacheDir);
  await mkdir(join(venv, 'bin'), { recursive: true });
  await writeFile(join(venv, '.sigil-complete'), '{}\n');
  return script(join(venv, 'bin'), 'st', st(version));
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sigil-schemathesis-'));
  bin = join(root, 'bin');
  tools = join(root, 'tools');
  cacheDir = join(root, 'cache');
  await mkdir(bin);
  await mkdir(tools);
  lines = [];
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('SCHEMATHESIS_PATH', () => {
  it('wins over PATH and the cache when it names a Schemathesis CLI', async () => {
    const explicit = await script(root, 'my-st', st());
    await script(bin, 'st', st());
    await cachedInstall();
    const found = await provisionSchemathesis({ cacheDir, log, env: env({ SCHEMATHESIS_PATH: explicit }) });
    expect(found).toEqual({
      kind: 'schemathesis',
      source: 'env',
      path: explicit,
      version: SCHEMATHESIS_VERSION,
    });
  });

  it('pointing nowhere is an error naming it, not a fall-back to PATH', async () => {
    await script(bin, 'st', st());
    const error = await failure(
      provisionSchemathesis({ cacheDir, log, env: env({ SCHEMATHESIS_PATH: join(root, 'nowhere') }) }),
    );
    expect(error.kind).toBe('schemathesis');
    expect(error.message).toContain(
      `SCHEMATHESIS_PATH is set to ${join(root, 'nowhere')}, but that file does not exist`,
    );
  });

  it('naming a file that is not executable is an error saying so', async () => {
    const path = join(root, 'not-executable');
    await writeFile(path, st());
    const error = await failure(
      provisionSchemathesis({ cacheDir, log, env: env({ SCHEMATHESIS_PATH: path }) }),
    );
    expect(error.message).toContain('is not executable');
  });

  it('naming something that is not Schemathesis is an error saying so', async () => {
    const other = await script(root, 'other', '#!/bin/sh\necho "hello"\n');
    const error = await failure(
      provisionSchemathesis({ cacheDir, log, env: env({ SCHEMATHESIS_PATH: other }) }),
    );
    expect(error.message).toContain('does not print "st, version …", so it is not the Schemathesis CLI');
    expect(error.message).toContain('npm run provision -- --schemathesis');
  });

  it('another version is used, with a line saying the test is tuned for the pinned one', async () => {
    const explicit = await script(root, 'old-st', st('4.0.0'));
    const found = await provisionSchemathesis({ cacheDir, log, env: env({ SCHEMATHESIS_PATH: explicit }) });
    expect(found).toMatchObject({ source: 'env', version: '4.0.0' });
    expect(lines.join('\n')).toContain(`tuned for ${SCHEMATHESIS_VERSION}`);
  });

  it('empty counts as unset', async () => {
    const path = await script(bin, 'st', st());
    const found = await provisionSchemathesis({ cacheDir, log, env: env({ SCHEMATHESIS_PATH: ' ' }) });
    expect(found).toMatchObject({ source: 'path', path });
  });
});

describe('PATH', () => {
  it('finds `st` of the pinned version', async () => {
    const path = await script(bin, 'st', st());
    const found = await provisionSchemathesis({ cacheDir, log, env: env() });
    expect(found).toEqual({ kind: 'schemathesis', source: 'path', path, version: SCHEMATHESIS_VERSION });
  });

  it('finds `schemathesis` when there is no `st`', async () => {
    const path = await script(tools, 'schemathesis', st(SCHEMATHESIS_VERSION, 'schemathesis'));
    const found = await provisionSchemathesis({ cacheDir, log, env: env() });
    expect(found).toMatchObject({ source: 'path', path });
  });

  it('skips another version, saying so, and goes on to the cache', async () => {
    const other = await script(bin, 'st', st('3.39.16'));
    const cached = await cachedInstall();
    const found = await provisionSchemathesis({ cacheDir, log, env: env() });
    expect(found).toEqual({
      kind: 'schemathesis',
      source: 'cache',
      path: cached,
      version: SCHEMATHESIS_VERSION,
    });
    expect(lines.join('\n')).toContain(
      `Ignoring ${other}: it is Schemathesis 3.39.16, and Sigil pins ${SCHEMATHESIS_VERSION}`,
    );
  });

  it('skips an `st` that is something else', async () => {
    const other = await script(bin, 'st', '#!/bin/sh\nexit 3\n');
    await cachedInstall();
    const found = await provisionSchemathesis({ cacheDir, log, env: env() });
    expect(found.source).toBe('cache');
    expect(lines.join('\n')).toContain(`Ignoring ${other}: \`st --version\` failed (exit code 3)`);
  });
});

describe('the cache', () => {
  it('a finished virtualenv is used without running Python', async () => {
    await script(bin, 'python3', python({ onInstall: installsSt() }));
    const cached = await cachedInstall();
    const found = await provisionSchemathesis({ cacheDir, log, env: env() });
    expect(found).toMatchObject({ source: 'cache', path: cached });
    expect(await calls()).toEqual([]);
  });

  it('a virtualenv an interrupted install left (no marker) is removed and installed again', async () => {
    const venv = schemathesisVenvPath(cacheDir);
    await mkdir(join(venv, 'bin'), { recursive: true });
    await script(join(venv, 'bin'), 'st', st());
    await writeFile(join(venv, 'leftover'), 'x');
    await script(bin, 'python3', python({ onInstall: installsSt() }));
    const found = await provisionSchemathesis({ cacheDir, log, env: env() });
    expect(found).toMatchObject({ source: 'installed', path: schemathesisCachePath(cacheDir) });
    expect(await exists(join(venv, 'leftover'))).toBe(false);
  });
});

describe('installing into a virtualenv', () => {
  it('creates the virtualenv, installs the pinned release with its pip, reports progress and marks it finished', async () => {
    await script(bin, 'python3', python({ onInstall: installsSt() }));
    const found = await provisionSchemathesis({ cacheDir, log, env: env() });
    const venv = schemathesisVenvPath(cacheDir);
    expect(found).toEqual({
      kind: 'schemathesis',
      source: 'installed',
      path: join(venv, 'bin', 'st'),
      version: SCHEMATHESIS_VERSION,
    });
    expect(venv).toBe(join(cacheDir, 'schemathesis', SCHEMATHESIS_VERSION, 'venv'));
    const [check, create, install] = await calls();
    expect(check).toMatch(/^python -c /);
    expect(create).toBe(`python -m venv ${venv}`);
    expect(install).toContain(`pip install`);
    expect(install).toContain(`schemathesis==${SCHEMATHESIS_VERSION}`);
    expect(install).toContain(`VIRTUAL_ENV=${venv}`);
    expect(JSON.parse(await readFile(join(venv, '.sigil-complete'), 'utf8'))).toMatchObject({
      requirement: `schemathesis==${SCHEMATHESIS_VERSION}`,
      python: '3.11.7',
    });
    const output = lines.join('\n');
    expect(output).toContain('Installing it once from PyPI into a virtualenv with Python 3.11.7');
    expect(output).toContain(`pip: Collecting schemathesis==${SCHEMATHESIS_VERSION}`);
    expect(output).toContain('pip: installing 2 packages (2 fetched)');
    expect(output).toMatch(new RegExp(`Installed Schemathesis ${SCHEMATHESIS_VERSION} in \\d+\\.\\ds: `));

    // The next call finds it in the cache.
    lines = [];
    const again = await provisionSchemathesis({ cacheDir, log, env: env() });
    expect(again.source).toBe('cache');
  });

  it('takes a later python3.x when python3 is too old', async () => {
    await script(bin, 'python3', python({ version: '3.9.2' }));
    await script(tools, 'python3.12', python({ version: '3.12.3', onInstall: installsSt() }));
    const found = await provisionSchemathesis({ cacheDir, log, env: env() });
    expect(found.source).toBe('installed');
    expect(lines.join('\n')).toContain('with Python 3.12.3');
  });

  it('a Python without venv support is an error saying which package to install', async () => {
    await script(
      bin,
      'python3',
      python({
        venvFails: 'The virtual environment was not created successfully because ensurepip is not available.',
      }),
    );
    const error = await failure(provisionSchemathesis({ cacheDir, log, env: env() }));
    expect(error.message).toContain('Creating the virtualenv failed');
    expect(error.message).toContain('ensurepip is not available');
    expect(error.message).toContain('python3-venv');
    expect(error.message).toContain('SCHEMATHESIS_PATH');
  });

  it('a failing pip is an error with its last lines, and leaves no virtualenv behind', async () => {
    await script(bin, 'python3', python({ pipExit: 1 }));
    const error = await failure(provisionSchemathesis({ cacheDir, log, env: env() }));
    expect(error.message).toContain(
      `\`pip install schemathesis==${SCHEMATHESIS_VERSION}\` ended with exit code 1`,
    );
    expect(error.message).toContain('ERROR: No matching distribution found for schemathesis');
    expect(await exists(schemathesisVenvPath(cacheDir))).toBe(false);
  });

  it('an install whose `st` reports another version is an error, not a success', async () => {
    await script(bin, 'python3', python({ onInstall: installsSt('4.0.0') }));
    const error = await failure(provisionSchemathesis({ cacheDir, log, env: env() }));
    expect(error.message).toContain('reports version 4.0.0');
    expect(await exists(schemathesisVenvPath(cacheDir))).toBe(false);
  });
});

describe('nothing found and no way to install', () => {
  it('no Python: one message saying what to install and which variable to set', async () => {
    const error = await failure(provisionSchemathesis({ cacheDir, log, env: env() }));
    expect(error.message).toContain(`Schemathesis ${SCHEMATHESIS_VERSION}, which the API fuzz test`);
    expect(error.message).toContain('no Python on PATH');
    expect(error.message).toContain(`pip install schemathesis==${SCHEMATHESIS_VERSION}`);
    expect(error.message).toContain('set SCHEMATHESIS_PATH');
  });

  it('only a Python that is too old: the message names it', async () => {
    const old = await script(bin, 'python3', python({ version: '3.9.2' }));
    const error = await failure(provisionSchemathesis({ cacheDir, log, env: env() }));
    expect(error.message).toContain(`no Python 3.11+ to create the virtualenv with (${old} is Python 3.9.2)`);
    expect((await calls()).filter((call) => call.includes('venv'))).toEqual([]);
  });

  it('install: false only looks, even with a Python that could install', async () => {
    await script(bin, 'python3', python({ onInstall: installsSt() }));
    const error = await failure(provisionSchemathesis({ cacheDir, log, env: env(), install: false }));
    expect(error.message).toContain('this caller only looks for it');
    expect((await calls()).filter((call) => call.includes('venv'))).toEqual([]);
  });
});

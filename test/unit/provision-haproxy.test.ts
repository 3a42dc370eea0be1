// HAProxy's and the Temporal Web UI server's provisioning for `npm run cluster`: an explicit HAPROXY_PATH (or
// TEMPORAL_UI_SERVER_PATH) that points nowhere or at something else is an error naming the variable; one that
// is an HAProxy is taken with its version; without HAProxy and without a way to install it (not root, no
// apt-get) the error says what to install; the UI server without Go says how to provide it. Only the machine's
// edge is faked: scripts standing for `haproxy` in a scratch directory.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { haproxyMissing, parseHaproxyVersion, provisionHaproxy } from '../../provisioning/haproxy.ts';
import { ProvisioningError } from '../../provisioning/shared.ts';
import {
  parseTemporalUiVersion,
  provisionTemporalUi,
  TEMPORAL_UI_VERSION,
  temporalUiCachePath,
} from '../../provisioning/temporal-ui.ts';

let root: string;
let bin: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'sigil-provision-haproxy-'));
  bin = join(root, 'bin');
  await mkdir(bin);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function script(name: string, body: string): Promise<string> {
  const path = join(bin, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

describe('provisionHaproxy', () => {
  it('takes HAPROXY_PATH with the version it prints', async () => {
    const path = await script(
      'haproxy',
      'echo "HAProxy version 2.6.12-1+deb12u4 2025/07/12 - https://haproxy.org/"\necho "Status: long-term"',
    );
    const found = await provisionHaproxy({ env: { HAPROXY_PATH: path, PATH: bin }, install: false });
    expect(found).toEqual({ kind: 'haproxy', source: 'env', path, version: '2.6.12-1+deb12u4' });
  });

  it('refuses an HAPROXY_PATH that does not exist or is not an HAProxy, naming the variable', async () => {
    const missing = await provisionHaproxy({
      env: { HAPROXY_PATH: join(root, 'nope') },
      install: false,
    }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ProvisioningError);
    expect((missing as Error).message).toContain(`HAPROXY_PATH is set to ${join(root, 'nope')}`);
    const other = await script('not-haproxy', 'echo "something else"');
    const wrong = await provisionHaproxy({ env: { HAPROXY_PATH: other, PATH: bin }, install: false }).catch(
      (e: unknown) => e,
    );
    expect((wrong as Error).message).toContain('does not print an HAProxy version');
  });

  it('says what to install when HAProxy is missing and this process may not install it', () => {
    const notRoot = haproxyMissing({ install: true, uid: 1000, aptGet: '/usr/bin/apt-get' });
    expect(notRoot).toContain('runs as uid 1000, not root');
    expect(notRoot).toContain('apt-get install -y --no-install-recommends haproxy');
    expect(notRoot).toContain('HAPROXY_PATH');
    expect(haproxyMissing({ install: true, uid: 0, aptGet: undefined })).toContain('no apt-get on PATH');
  });

  it('reads the version line of `haproxy -v`', () => {
    expect(parseHaproxyVersion('HAProxy version 2.6.12-1+deb12u4 2025/07/12')).toBe('2.6.12-1+deb12u4');
    expect(parseHaproxyVersion('HA-Proxy version 1.8.19 2019/02/11')).toBe('1.8.19');
    expect(parseHaproxyVersion('nginx version: nginx/1.22.1')).toBeUndefined();
  });
});

describe('provisionTemporalUi', () => {
  it('says Go is missing and how to provide the UI server when neither the cache nor Go has it', async () => {
    const cacheDir = join(root, 'cache');
    const error = await provisionTemporalUi({ cacheDir, env: { PATH: bin } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProvisioningError);
    const message = (error as Error).message;
    expect(message).toContain(`No Temporal Web UI server ${TEMPORAL_UI_VERSION}`);
    expect(message).toContain('`go` on PATH: not found');
    expect(message).toContain(`${temporalUiCachePath(cacheDir)} (not provisioned)`);
    expect(message).toContain('npm run provision -- --temporal-ui');
  });

  it('takes a cached UI server without building', async () => {
    const cacheDir = join(root, 'cache');
    const cached = temporalUiCachePath(cacheDir);
    await mkdir(join(cached, '..'), { recursive: true });
    await writeFile(cached, '#!/bin/sh\necho "Temporal UI version 2.56.4"\n');
    await chmod(cached, 0o755);
    expect(await provisionTemporalUi({ cacheDir, env: { PATH: bin } })).toEqual({
      kind: 'temporal-ui',
      source: 'cache',
      path: cached,
      version: TEMPORAL_UI_VERSION,
    });
    expect(parseTemporalUiVersion('Temporal UI version 2.56.4')).toBe('2.56.4');
  });
});

// The Python client library (clients/python, issue 34) against a live server: its pytest suite runs in a
// virtualenv of the cache (provisioning/python-client.ts: the package installed editable, pytest and httpx
// pinned) with SIGIL_BASE_URL, SIGIL_CLIENT_ID and SIGIL_CLIENT_SECRET naming this file's API on 127.0.0.1 and
// an OAuth client of a new organization with a published template. pytest's output is printed; its failure
// fails this test. The suite covers the round trip, token renewal, retries that keep one Idempotency-Key,
// typed errors, cursor pages, webhook management and verification, and docs/clients.md's Python example.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/config.ts';
import { PYTHON_CLIENT_DIR, provisionPythonClient } from '../../provisioning/python-client.ts';
import {
  type ApiHarness,
  type Integrator,
  listenLocally,
  newIntegrator,
  openApiHarness,
} from '../support/api.ts';

let harness: ApiHarness;
let baseUrl: string;
let acme: Integrator;
let pytest: string;
let cacheDir: string;

beforeAll(async () => {
  cacheDir = loadConfig({ ...process.env, SIGIL_ENV: 'test' }).cacheDir;
  // `npm test` makes the virtualenv beforehand (pretest); run alone, the first run makes it (about a minute).
  pytest = (
    await provisionPythonClient({
      cacheDir,
      log: (line) => process.stdout.write(`[python-client] ${line}\n`),
    })
  ).path;
  harness = await openApiHarness();
  baseUrl = await listenLocally(harness.app);
  acme = await newIntegrator(harness);
});
afterAll(() => harness?.close());

function run(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: PYTHON_CLIENT_DIR,
      env: { ...process.env, ...env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: Buffer.concat(chunks).toString('utf8') }));
  });
}

describe('the Python client (clients/python)', () => {
  it('passes its pytest suite against the live server', async () => {
    const started = Date.now();
    const { code, output } = await run(pytest, ['-q', '-rA', '-p', 'no:cacheprovider', 'tests'], {
      SIGIL_BASE_URL: baseUrl,
      SIGIL_CLIENT_ID: acme.clientId,
      SIGIL_CLIENT_SECRET: acme.clientSecret,
    });
    process.stdout.write(
      `[python-client] pytest exited ${code} in ${((Date.now() - started) / 1000).toFixed(1)} s\n${output}\n`,
    );
    expect(code, output).toBe(0);
    // Every test ran (none skipped, none deselected): pytest's last line counts only passes.
    const passed = /^(\d+) passed in [\d.]+s/.exec(output.trim().split('\n').at(-1) ?? '')?.[1];
    expect(Number(passed), output).toBeGreaterThanOrEqual(10);
  });

  it('has type hints that mypy --strict accepts (the package and its tests)', async () => {
    // mypy is installed next to pytest (pyproject.toml's [tool.mypy] says strict, and where the modules are).
    const mypy = join(dirname(pytest), 'mypy');
    const cache = join(cacheDir, 'python-client', 'mypy-cache');
    const { code, output } = await run(mypy, ['--cache-dir', cache, 'src/sigil_client', 'tests']);
    process.stdout.write(`[python-client] mypy exited ${code}\n${output}\n`);
    expect(code, output).toBe(0);
    expect(output).toMatch(/^Success: no issues found in \d+ source files/m);
  });
});

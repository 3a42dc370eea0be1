// Two client generators nobody here wrote, run on the live /api/v1 document as an integrator would (issue 34,
// docs/api.md "Generating a client"): openapi-python-client 0.29.1 (PyPI) and openapi-generator 7.17.0's
// Python client (Maven Central), both provisioned once into the cache (provisioning/openapi-generators.ts).
// openapi-generator validates the document without a recommendation, and each generated client makes the round
// trip a Python script of test/integration/generated-clients/ writes with it: create an envelope from a
// template, send it, get it and download its original PDF.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '../../api/http/openapi.ts';
import { loadConfig } from '../../config/config.ts';
import {
  type ProvisionedJavaGenerator,
  type ProvisionedPythonGenerator,
  provisionOpenApiGenerator,
  provisionOpenApiPythonClient,
} from '../../provisioning/openapi-generators.ts';
import {
  type ApiHarness,
  type Integrator,
  listenLocally,
  newIntegrator,
  openApiHarness,
} from '../support/api.ts';

const SCRIPTS = new URL('./generated-clients/', import.meta.url).pathname;

let harness: ApiHarness;
let baseUrl: string;
let integrator: Integrator;
let work: string;
let documentPath: string;
let pythonGenerator: ProvisionedPythonGenerator;
let javaGenerator: ProvisionedJavaGenerator;

beforeAll(async () => {
  const cacheDir = loadConfig({ ...process.env, SIGIL_ENV: 'test' }).cacheDir;
  const log = (line: string) => process.stdout.write(`[openapi-generators] ${line}\n`);
  // Provisioned once into the cache (a virtualenv and a jar); a failure names what to install.
  [pythonGenerator, javaGenerator] = await Promise.all([
    provisionOpenApiPythonClient({ cacheDir, log }),
    provisionOpenApiGenerator({ cacheDir, log }),
  ]);
  harness = await openApiHarness();
  baseUrl = await listenLocally(harness.app);
  integrator = await newIntegrator(harness);
  work = await mkdtemp(join(tmpdir(), 'sigil-openapi-generators-'));
  documentPath = join(work, 'openapi.json');
  // The document as an integrator downloads it from the running server.
  const response = await fetch(`${baseUrl}${OPENAPI_PATH}`);
  expect(response.status).toBe(200);
  await writeFile(documentPath, await response.text());
}, 600_000);
afterAll(async () => {
  await harness?.close();
  if (work) await rm(work, { recursive: true, force: true });
});

function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number | null; output: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? work,
      env: { ...process.env, ...options.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const all: Buffer[] = [];
    const out: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      all.push(chunk);
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => all.push(chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        output: Buffer.concat(all).toString('utf8'),
        stdout: Buffer.concat(out).toString('utf8'),
      }),
    );
  });
}

interface RoundTrip {
  id: string;
  created: string;
  sent: string;
  got: string;
  externalReference: string;
  languages: (string | null)[];
  recipients: string[];
  pdfBytes: number;
}

/** Runs a round-trip script with the generated package on PYTHONPATH; checks what it saw and the PDF it saved. */
async function roundTrip(script: string, packageRoot: string, reference: string): Promise<RoundTrip> {
  const pdfPath = join(work, `${reference}.pdf`);
  const result = await run(pythonGenerator.python, [join(SCRIPTS, script)], {
    env: {
      PYTHONPATH: packageRoot,
      SIGIL_BASE_URL: baseUrl,
      SIGIL_TOKEN: await integrator.token(['templates.read', 'envelopes.read', 'envelopes.write']),
      SIGIL_TEMPLATE_ID: integrator.templateId,
      SIGIL_PDF_PATH: pdfPath,
    },
  });
  expect(result.code, result.output).toBe(0);
  const seen = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as RoundTrip;
  expect(seen).toMatchObject({
    created: 'Draft',
    sent: 'Sent',
    got: 'Sent',
    externalReference: reference,
    languages: ['he', null],
    recipients: ['Client', 'Provider'],
  });
  const pdf = await readFile(pdfPath);
  expect(pdf.length).toBe(seen.pdfBytes);
  expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  // The server agrees: the envelope the client made is there, sent, in this organization.
  const check = await fetch(`${baseUrl}/api/v1/envelopes/${seen.id}`, {
    headers: await integrator.auth(['envelopes.read']),
  });
  expect(check.status).toBe(200);
  expect(await check.json()).toMatchObject({ id: seen.id, status: 'Sent', externalReference: reference });
  return seen;
}

describe('clients generated from the /api/v1 OpenAPI document', () => {
  it('openapi-generator validates the document with no recommendation (no unused model)', async () => {
    const result = await run(javaGenerator.java, [
      '-jar',
      javaGenerator.path,
      'validate',
      '--recommend',
      '-i',
      documentPath,
    ]);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('No validation issues detected.');
    expect(result.output).not.toMatch(/recommendation|Unused model/i);
  }, 120_000);

  it('openapi-python-client generates a client without warnings that creates, sends, gets and downloads the original PDF', async () => {
    const root = join(work, 'opc');
    // application/pdf is read as bytes: the generator's documented content_type_overrides (docs/api.md). No
    // post-generation hooks: they only run a formatter (ruff), which this machine need not have.
    const config = join(work, 'openapi-python-client.yml');
    await writeFile(
      config,
      'content_type_overrides:\n  application/pdf: application/octet-stream\npost_hooks: []\n',
    );
    const generated = await run(pythonGenerator.path, [
      'generate',
      '--path',
      documentPath,
      '--output-path',
      join(work, 'opc-out'),
      '--meta',
      'none',
      '--config',
      config,
    ]);
    expect(generated.code, generated.output).toBe(0);
    // Not one warning: no operation, response or schema left out (before the shaping it dropped the PDFs).
    expect(generated.output).not.toMatch(/warning|cannot parse|unsupported|omitted/i);
    // `--meta none` writes the package's modules themselves: put them under the package name the script imports.
    await mkdir(root, { recursive: true });
    await rename(join(work, 'opc-out'), join(root, 'sigil_opc'));
    await roundTrip('round_trip_openapi_python_client.py', root, 'OPC-1');
  }, 180_000);

  it("openapi-generator's Python client imports and creates, sends, gets and downloads the original PDF", async () => {
    const root = join(work, 'og');
    const generated = await run(javaGenerator.java, [
      '-jar',
      javaGenerator.path,
      'generate',
      '-g',
      'python',
      '-i',
      documentPath,
      '-o',
      root,
      '--package-name',
      'sigil_og',
    ]);
    expect(generated.code, generated.output).toBe(0);
    await roundTrip('round_trip_openapi_generator.py', root, 'OG-1');
  }, 180_000);
});

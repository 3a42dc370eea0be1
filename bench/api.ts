// `npm run bench:api`: throughput and latency of the public API and of the signer API on real PostgreSQL and
// Temporal, each as a ratio to a trivial Fastify route measured in the same run on the same machine. The load
// generator (autocannon) runs in a process of its own (bench/load.ts), so it never shares the servers' event
// loop; the bare Fastify baseline and the API both listen in this process and are measured the same way.
// Prints a table; asserts nothing. BENCH_SECONDS (default 10) and BENCH_CONNECTIONS (default 10) tune each
// measurement; BENCH_ONLY (a comma-separated list of substrings of route names) measures only those routes (add
// "baseline" for the ratios; without it a profile of the process holds only the routes named). Everything goes through HTTP only, so the same file measures an older checkout as well.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type autocannon from 'autocannon';
import Fastify from 'fastify';
import { callAs } from '../test/support/app-requests.ts';
import { startBenchApi } from './support.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ONLY = (process.env.BENCH_ONLY ?? '').split(',').filter((part) => part !== '');
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);

interface Measured {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

const LOAD = fileURLToPath(new URL('./load.ts', import.meta.url));

/** One autocannon run in the load process. */
function measure(name: string, options: autocannon.Options): Promise<Measured | null> {
  if (ONLY.length > 0 && !ONLY.some((part) => name.includes(part))) {
    return Promise.resolve(null);
  }
  say(`${name}: ${SECONDS} s with ${CONNECTIONS} connections (load generator in its own process)…`);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [LOAD, JSON.stringify({ duration: SECONDS, connections: CONNECTIONS, ...options })],
      { maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${error.message}\n${stderr}`));
          return;
        }
        const result = JSON.parse(stdout.trim().split('\n').at(-1) as string) as Omit<Measured, 'name'>;
        resolve({
          name,
          requestsPerSecond: result.requestsPerSecond,
          p50: result.p50,
          p99: result.p99,
          errors: result.errors,
          non2xx: result.non2xx,
        });
      },
    );
  });
}

const bench = await startBenchApi(say);
const baseline = Fastify({ logger: false });
baseline.get('/noop', async () => ({ ok: true }));
const { app, template } = bench;
try {
  const baselineUrl = await baseline.listen({ host: '127.0.0.1', port: 0 });
  const apiUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  const headers = { ...bench.auth, 'content-type': 'application/json' };
  const createBody = JSON.stringify({
    title: 'Benchmark envelope',
    workflowType: 'Sequential',
    templateId: template.id,
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
      { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
    ],
  });
  const created = await fetch(`${apiUrl}/api/v1/envelopes/from-template`, {
    method: 'POST',
    headers,
    body: createBody,
  });
  const envelopeId = ((await created.json()) as { id: string }).id;
  const signer = await signingLink(apiUrl, bench.auth);

  const measured = [
    await measure('baseline GET /noop (bare Fastify)', { url: `${baselineUrl}/noop` }),
    await measure('GET /api/v1/envelopes/{id}', { url: `${apiUrl}/api/v1/envelopes/${envelopeId}`, headers }),
    await measure('POST /api/v1/envelopes/from-template', {
      url: `${apiUrl}/api/v1/envelopes/from-template`,
      method: 'POST',
      headers,
      body: createBody,
    }),
    // A recipient reading their link (after the first read, which records recipient.opened) and saving a value
    // again (after the first save, which records recipient.started): no workflow Update, SQL only.
    await measure('GET /api/signing/{token}', { url: `${apiUrl}/api/signing/${signer.token}` }),
    await measure('PUT /api/signing/{token}/fields', {
      url: `${apiUrl}/api/signing/${signer.token}/fields`,
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: signer.saveBody,
    }),
  ];
  const results = measured.filter((result) => result !== null);
  const base = results.find((result) => result.name.startsWith('baseline')) ?? {
    requestsPerSecond: Number.NaN,
  };
  const rows = results.map((r) => [
    r.name.padEnd(40),
    r.requestsPerSecond.toFixed(0).padStart(8),
    `${r.p50.toFixed(1)} ms`.padStart(10),
    `${r.p99.toFixed(1)} ms`.padStart(10),
    `${(r.requestsPerSecond / base.requestsPerSecond).toFixed(3)}`.padStart(12),
    `${r.errors + r.non2xx}`.padStart(7),
  ]);
  process.stdout.write(
    `\n${['route'.padEnd(40), 'req/s'.padStart(8), 'p50'.padStart(10), 'p99'.padStart(10), 'vs baseline'.padStart(12), 'errors'.padStart(7)].join(' ')}\n`,
  );
  for (const row of rows) process.stdout.write(`${row.join(' ')}\n`);
  process.stdout.write(
    `\n(${SECONDS} s each, ${CONNECTIONS} connections; the servers in one process, the load generator in another, on one machine)\n`,
  );
} finally {
  await baseline.close();
  await bench.close();
}

/** A sent envelope's first signer, reached through the API (an `Api` recipient): their link, opened and saved once. */
async function signingLink(apiUrl: string, auth: Record<string, string>) {
  const integrator = { headers: auth };
  const envelope = await callAs<{ id: string; recipients: { id: string; roleName: string }[] }>(
    apiUrl,
    integrator,
    'POST',
    '/api/v1/envelopes/from-template',
    {
      title: 'Benchmark signing',
      workflowType: 'Sequential',
      templateId: template.id,
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'Api' },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', deliveryChannel: 'Api' },
      ],
    },
    { status: 201 },
  );
  const client = envelope.recipients.find((recipient) => recipient.roleName === 'Client');
  await callAs(apiUrl, integrator, 'POST', `/api/v1/envelopes/${envelope.id}/send`);
  const link = await callAs<{ url: string }>(
    apiUrl,
    integrator,
    'POST',
    `/api/v1/envelopes/${envelope.id}/recipients/${client?.id}/signing-link`,
  );
  const token = link.url.split('/sign/')[1] as string;
  const signerPage = { headers: {} };
  const view = await callAs<{ fields: { fieldDefinitionId: string; type: string }[] }>(
    apiUrl,
    signerPage,
    'GET',
    `/api/signing/${token}`,
  );
  const name = view.fields.find((f) => f.type === 'Full name');
  const saveBody = JSON.stringify({
    values: [{ fieldDefinitionId: name?.fieldDefinitionId, value: 'Dana Levi' }],
  });
  await callAs(apiUrl, signerPage, 'PUT', `/api/signing/${token}/fields`, saveBody, {
    headers: { 'content-type': 'application/json' },
  });
  return { token, saveBody };
}

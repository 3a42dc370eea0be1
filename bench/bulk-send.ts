// `npm run bench:bulk-send`: bulk send (docs/bulk-send.md) on real PostgreSQL, Temporal and the envelope worker,
// all on one machine (the worker and the API share this process, as in the tests). Prints one table; asserts
// nothing.
//   - baseline: BENCH_BASELINE (default 100) envelopes sent through the send page's route
//     (POST /api/documents/send-from-template), one request after another, then 4 at a time — what a user or a
//     script without bulk send would do;
//   - bulk send: BENCH_ROWS (default 1,000) rows in one CSV file through POST /api/bulk-sends, timed from the
//     request to the run's Completed (polled every 100 ms), and the request alone (every row checked, the plan
//     checked, the rows stored, the workflow started).
// Recipients get their links by hand (ManualLink), so no message provider is on the path.
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Organization } from '../db/entities/index.ts';
import { textTable } from '../scripts/text-table.ts';
import { callAs } from '../test/support/app-requests.ts';
import { signedInUser } from '../test/support/signed-in-user.ts';
import { startBenchApi } from './support.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 1000);
const BASELINE = Number(process.env.BENCH_BASELINE ?? 100);
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

const MANUAL = [
  { roleName: 'Client', deliveryChannel: 'ManualLink' },
  { roleName: 'Provider', deliveryChannel: 'ManualLink' },
];

function recipient(role: string, index: number, prefix: string) {
  return {
    fullName: `${role} ${index}`,
    email: `${role.toLowerCase()}-${prefix}-${index}@example.com`,
  };
}

function csvOf(rows: number, prefix: string): string {
  const lines = ['externalReference,Client.name,Client.email,Provider.name,Provider.email,Date'];
  for (let i = 1; i <= rows; i += 1) {
    const client = recipient('Client', i, prefix);
    const provider = recipient('Provider', i, prefix);
    lines.push(
      `${prefix}-${i},${client.fullName},${client.email},${provider.fullName},${provider.email},2026-12-01`,
    );
  }
  return lines.join('\r\n');
}

function table(header: string[], rows: string[][]): void {
  for (const line of textTable(header, rows)) out(line);
}

const bench = await startBenchApi(say);
try {
  const { app, infrastructure, organization, template } = bench;
  // Enterprise: no monthly envelope limit, so both parts send all they are asked to.
  await infrastructure.orm.em
    .fork()
    .nativeUpdate(Organization, { id: organization.id }, { planName: 'Enterprise' });
  const owner = await signedInUser(
    { ctx: { orm: infrastructure.orm } },
    { role: 'owner', organizationId: organization.id },
  );
  const sendOne = (prefix: string, index: number) =>
    callAs<Record<string, unknown>>(app, owner, 'POST', '/api/documents/send-from-template', {
      templateId: template.id,
      title: 'Annual renewal',
      externalReference: `${prefix}-${index}`,
      recipients: [
        { roleName: 'Client', ...recipient('Client', index, prefix), deliveryChannel: 'ManualLink' },
        { roleName: 'Provider', ...recipient('Provider', index, prefix), deliveryChannel: 'ManualLink' },
      ],
    });

  // Warm-up: the first envelopes pay for connections, caches and the workflow's first load.
  for (let i = 0; i < 5; i += 1) await sendOne(`warm-${randomUUID().slice(0, 6)}`, i);

  const results: string[][] = [];
  const rate = (count: number, ms: number) => count / (ms / 1000);

  say(`baseline: ${BASELINE} envelopes through POST /api/documents/send-from-template, one at a time…`);
  let started = performance.now();
  const sequentialPrefix = `seq-${randomUUID().slice(0, 6)}`;
  for (let i = 1; i <= BASELINE; i += 1) await sendOne(sequentialPrefix, i);
  const sequentialMs = performance.now() - started;
  const baseline = rate(BASELINE, sequentialMs);

  say(`baseline: ${BASELINE} envelopes, 4 requests at a time…`);
  started = performance.now();
  const parallelPrefix = `par-${randomUUID().slice(0, 6)}`;
  let next = 1;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next <= BASELINE) {
        const index = next;
        next += 1;
        await sendOne(parallelPrefix, index);
      }
    }),
  );
  const parallelMs = performance.now() - started;

  say(`bulk send: ${ROWS} rows in one file…`);
  const csv = csvOf(ROWS, `bulk-${randomUUID().slice(0, 6)}`);
  started = performance.now();
  const run = (await callAs<Record<string, unknown>>(app, owner, 'POST', '/api/bulk-sends', {
    templateId: template.id,
    title: 'Annual renewal',
    roles: MANUAL,
    filename: 'bench.csv',
    csv,
  })) as { id: string };
  const acceptedMs = performance.now() - started;
  let view: { status: string; sent: number; failed: number; pending: number } = {
    status: 'Running',
    sent: 0,
    failed: 0,
    pending: ROWS,
  };
  let lastReport = performance.now();
  while (view.status === 'Running') {
    await sleep(100);
    const response = await app.inject({
      method: 'GET',
      url: `/api/bulk-sends/${run.id}`,
      headers: owner.headers,
    });
    view = response.json();
    if (performance.now() - lastReport > 5000) {
      say(`  ${view.sent} sent, ${view.failed} failed, ${view.pending} to go`);
      lastReport = performance.now();
    }
  }
  const bulkMs = performance.now() - started;
  if (view.status !== 'Completed' || view.sent !== ROWS) {
    throw new Error(`the run ended ${view.status} with ${view.sent} of ${ROWS} sent, ${view.failed} failed`);
  }

  results.push(
    [
      'send page route, 1 at a time',
      String(BASELINE),
      (sequentialMs / 1000).toFixed(1),
      baseline.toFixed(1),
      '1.00',
    ],
    [
      'send page route, 4 at a time',
      String(BASELINE),
      (parallelMs / 1000).toFixed(1),
      rate(BASELINE, parallelMs).toFixed(1),
      (rate(BASELINE, parallelMs) / baseline).toFixed(2),
    ],
    [
      'bulk send: request (check, store, start)',
      String(ROWS),
      (acceptedMs / 1000).toFixed(2),
      rate(ROWS, acceptedMs).toFixed(0),
      '',
    ],
    [
      'bulk send: request to Completed',
      String(ROWS),
      (bulkMs / 1000).toFixed(1),
      rate(ROWS, bulkMs).toFixed(1),
      (rate(ROWS, bulkMs) / baseline).toFixed(2),
    ],
  );
  out();
  out(
    `bulk send — ${cpus().length} cores, load ${loadavg()[0]?.toFixed(2)} (API, worker, PostgreSQL and Temporal on this machine)`,
  );
  table(['', 'envelopes', 'seconds', 'envelopes/s', 'vs 1 at a time'], results);
  out();
} finally {
  await bench.close();
}

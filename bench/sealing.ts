// `npm run bench:sealing`: what sealing costs (docs/sealing.md). Prints two tables; asserts nothing.
// 1. Per document of 1, 10 and 50 pages: rendering the final PDF alone (renderFinalPdf), then sealing the
//    rendered bytes at B-B and at B-T (an RFC 3161 timestamp from a local authority: OpenSSL's `ts -reply`
//    behind HTTP on 127.0.0.1, test/support/timestamp-authority.ts), BENCH_SEAL_RUNS times each (default 10)
//    after a warm-up; medians and p99, and each seal as a ratio to rendering alone in the same run.
// 2. Last signature → sealed final PDF ready, end to end on real PostgreSQL, Temporal and the worker: BENCH_ENVELOPES
//    (default 20) two-signer envelopes one at a time with the organization's policy at B-B, then at B-T; the time
//    from the last recipient.completed to document.final_pdf_ready (audit events), p50 and p99.
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../config/config.ts';
import { saveSecureSignaturePolicy } from '../db/sealing.ts';
import { DEFAULT_BOUNDS, type PadesLevel } from '../domain/secure-signature.ts';
import { renderFinalPdf } from '../pdf/render-final-pdf.ts';
import { sealPdf } from '../pdf/sealing/seal.ts';
import { loadSealSigner } from '../pdf/sealing/signer.ts';
import { timestampAuthorities } from '../pdf/sealing/timestamps.ts';
import { startTestTimestampAuthority } from '../test/support/timestamp-authority.ts';
import { envelopeRuns, finalPdfLatencies, renderInput, strokePng } from './envelope-runs.ts';
import { percentile } from './figures.ts';
import { startBenchApi } from './support.ts';

const RUNS = Number(process.env.BENCH_SEAL_RUNS ?? 10);
const ENVELOPES = Number(process.env.BENCH_ENVELOPES ?? 20);
const PAGES = [1, 10, 50];
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

const ms = (value: number) => `${value.toFixed(value < 10 ? 1 : 0)} ms`;

async function timed(runs: number, run: () => Promise<unknown>): Promise<number[]> {
  await run();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times;
}

const tsa = await startTestTimestampAuthority();
// The shared worker seals with these authorities (its configuration is read from the environment).
process.env.TIMESTAMP_AUTHORITY_URLS = tsa.url;
const bench = await startBenchApi(say);
try {
  const signature = strokePng();
  // The development CA the shared worker seals with (the test infrastructure's configuration).
  const signer = await loadSealSigner({ pkcs12: null, dataDir: loadConfig().dataDir });
  const timestamps = timestampAuthorities([tsa.url], 10_000);

  // ---- 1. Per document -------------------------------------------------------------------------------
  const rows: { pages: number; bytes: number; render: number[]; bb: number[]; bt: number[] }[] = [];
  for (const pages of PAGES) {
    say(`${pages}-page document: render, seal at B-B, seal at B-T, ${RUNS} runs each after a warm-up…`);
    const input = await renderInput(pages, signature);
    const rendered = await renderFinalPdf(input);
    const render = await timed(RUNS, () => renderFinalPdf(input));
    const seal = (level: PadesLevel) => () =>
      sealPdf(rendered, { signer, level, timestamps: level === 'B-B' ? null : timestamps, reason: 'bench' });
    const bb = await timed(RUNS, seal('B-B'));
    const bt = await timed(RUNS, seal('B-T'));
    rows.push({ pages, bytes: rendered.byteLength, render, bb, bt });
  }

  // ---- 2. Last signature → sealed final PDF, end to end ---------------------------------------------
  const { lifecycle } = envelopeRuns(bench, signature);
  const endToEnd: { level: PadesLevel; latencies: number[] }[] = [];
  for (const level of ['B-B', 'B-T'] as const) {
    await saveSecureSignaturePolicy(bench.infrastructure.orm.em.fork(), bench.organization.id, {
      settings: { level, timestampRequired: level !== 'B-B', sealAuditTrail: true },
      bounds: DEFAULT_BOUNDS,
    });
    say(`end to end at ${level}: a warm-up, then ${ENVELOPES} envelopes one at a time…`);
    await lifecycle(`Sealing warm-up ${level}`);
    const ids: string[] = [];
    for (let i = 0; i < ENVELOPES; i += 1) {
      ids.push((await lifecycle(`Sealing benchmark ${level} ${i + 1}`)).id);
      if ((i + 1) % 10 === 0) say(`  ${i + 1}/${ENVELOPES}`);
    }
    endToEnd.push({ level, latencies: await finalPdfLatencies(bench.infrastructure.orm, ids) });
  }

  // ---- Report ----------------------------------------------------------------------------------------
  out();
  out(`1. Sealing one document (median of ${RUNS} runs, p99 in brackets; ratio = seal ÷ render, medians)`);
  out('   pages | PDF size | render alone      | seal B-B          | ratio | seal B-T (local TSA) | ratio');
  for (const row of rows) {
    const render = percentile(row.render, 50);
    const cell = (values: number[]) =>
      `${ms(percentile(values, 50))} (${ms(percentile(values, 99))})`.padEnd(17);
    out(
      `   ${String(row.pages).padStart(5)} | ${`${Math.round(row.bytes / 1024)} KiB`.padStart(8)} | ${cell(row.render)} | ` +
        `${cell(row.bb)} | ${(percentile(row.bb, 50) / render).toFixed(2).padStart(5)} | ` +
        `${cell(row.bt).padEnd(20)} | ${(percentile(row.bt, 50) / render).toFixed(2).padStart(5)}`,
    );
  }
  out();
  out(`2. Last signature → sealed final PDF ready (${ENVELOPES} two-signer envelopes, one at a time)`);
  out('   level | envelopes | p50      | p99');
  for (const { level, latencies } of endToEnd) {
    out(
      `   ${level.padEnd(5)} | ${String(latencies.length).padStart(9)} | ${ms(percentile(latencies, 50)).padEnd(8)} | ` +
        ms(percentile(latencies, 99)),
    );
  }
  out();
  out(
    '   The audit trail is sealed too (the default policy), so each envelope carries two seals; at B-T each',
  );
  out(
    `   seal asks the local authority for a timestamp (${tsa.requests()} timestamps answered in this run).`,
  );
} finally {
  await bench.close();
  await tsa.close();
}

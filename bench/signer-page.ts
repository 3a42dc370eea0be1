// `npm run bench:signer-page`: the signer page on a phone (issue 32, docs/performance.md "The signer page on a
// phone"). Lighthouse 12 (the `lighthouse` development dependency, pinned at 12.2.3) drives Debian's Chromium
// (found as the browser tests find it: CHROMIUM_PATH, then PATH) with its default mobile profile: a Moto G
// Power's screen, simulated slow 4G (150 ms round trips, 1.6 Mbit/s) and a 4× CPU slowdown. It loads a real
// signing link of a 2-page and of a 20-page document (the demo PDF builder, a signer with fields on the first
// and the last page), sent through /api/v1 on the API app in production configuration on real PostgreSQL,
// Temporal and the worker, served from the current web build (built first when stale).
// Each load goes through a small proxy on 127.0.0.1 in front of the app: as it is ("compressed"), or with the
// request's Accept-Encoding replaced by `identity` (the baseline: the same page sent uncompressed, as it was
// before the build's precompressed copies). The two alternate, BENCH_RUNS times each (default 5), so a change
// in the machine's speed touches both alike; the report gives the medians and the ratio compressed ÷ baseline.
// Before the measured loads, one load per document in the same Chromium with the profile's network and CPU
// applied for real lists the paints and the LCP candidates the browser reports (Lighthouse 12.2.3 cannot name the
// LCP element with this Chromium). Prints tables; asserts nothing. BENCH_DOCUMENTS=2,20 chooses the page counts; BENCH_REPORTS=<dir> keeps each
// run's Lighthouse report (JSON) there.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import lighthousePackage from 'lighthouse/package.json' with { type: 'json' };
import { chromium as playwrightChromium } from 'playwright-core';
import { provisionChromium } from '../provisioning/chromium.ts';
import { buildDemoPdf } from '../scripts/demo/demo-pdf.ts';
import { ensureWebBuild } from '../scripts/ensure-web-build.ts';
import { createTemplate } from '../services/templates/create-template.ts';
import { createFileObjects } from '../storage/create-object-store.ts';
import { listenLocally } from '../test/support/api.ts';
import { callAs } from '../test/support/app-requests.ts';
import { startBenchApi } from './support.ts';

const whole = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1`);
  return value;
};
const RUNS = whole('BENCH_RUNS', 5);
const DOCUMENTS = (process.env.BENCH_DOCUMENTS ?? '2,20').split(',').map((pages) => {
  const value = Number(pages);
  if (!Number.isInteger(value) || value < 1) throw new Error(`BENCH_DOCUMENTS: not a page count: ${pages}`);
  return value;
});
const REPORTS = process.env.BENCH_REPORTS;
/** Issue 32's goals for the signer page on this profile. */
const GOALS = { lcpMs: 2500, tbtMs: 200, scriptKiB: 250_000 / 1024 };
const say = (line: string) => process.stdout.write(`[bench] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

type Variant = 'compressed' | 'baseline';
const VARIANTS: Variant[] = ['compressed', 'baseline'];

/** What one Lighthouse load of the page measured. */
interface Measured {
  score: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  /** Bytes over the wire, as Lighthouse's resource summary counts them. */
  scriptBytes: number;
  totalBytes: number;
  /** The signer API's answers and the document's PDF, bytes over the wire. */
  apiBytes: number;
  pdfBytes: number;
  /** What Lighthouse says text compression and removing unused JavaScript would still save (bytes). */
  compressionSavings: number;
  unusedScriptBytes: number;
  benchmarkIndex: number;
}

// ---- The page's address: a real envelope, sent, with a link issued to its signer -------------------------

async function signingLinkFor(
  bench: Awaited<ReturnType<typeof startBenchApi>>,
  pages: number,
): Promise<string> {
  const at = (page: number, y: number) => ({ page, x: 56, y, width: 220 });
  const template = await createTemplate(
    {
      em: bench.infrastructure.orm.em.fork(),
      files: createFileObjects(bench.config.storage, bench.infrastructure.orm.em),
    },
    {
      organizationId: bench.organization.id,
      pdf: await buildDemoPdf(`Services agreement (${pages} pages)`, pages),
      filename: `agreement-${pages}.pdf`,
      definition: {
        name: `Signer page benchmark, ${pages} pages`,
        roles: [{ name: 'Client', required: true }],
        fields: [
          {
            type: 'Full name',
            role: 'Client',
            label: 'Client name',
            required: true,
            ...at(1, 600),
            height: 24,
          },
          {
            type: 'Signature',
            role: 'Client',
            label: 'Client signature',
            required: true,
            ...at(1, 660),
            height: 50,
          },
          { type: 'Date', role: 'Client', label: 'Date', ...at(1, 740), height: 24 },
          {
            type: 'Initials',
            role: 'Client',
            label: 'Initials',
            required: true,
            ...at(pages, 600),
            height: 40,
          },
          {
            type: 'Signature',
            role: 'Client',
            label: 'Final signature',
            required: true,
            ...at(pages, 660),
            height: 50,
          },
        ],
      },
      publish: true,
    },
  );
  const integrator = { headers: bench.auth };
  const created = await callAs<Record<string, unknown>>(
    bench.app,
    integrator,
    'POST',
    '/api/v1/envelopes/from-template',
    {
      title: `Services agreement (${pages} pages)`,
      workflowType: 'Sequential',
      templateId: template.id,
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', deliveryChannel: 'ManualLink', signingOrder: 1 },
      ],
    },
    { status: 201 },
  );
  const id = created.id as string;
  const recipientId = (created.recipients as { id: string }[])[0]?.id;
  await callAs(bench.app, integrator, 'POST', `/api/v1/envelopes/${id}/send`);
  const issued = await callAs<Record<string, unknown>>(
    bench.app,
    integrator,
    'POST',
    `/api/v1/envelopes/${id}/recipients/${recipientId}/signing-link`,
  );
  const token = String(issued.url).split('/sign/')[1];
  if (!token) throw new Error(`no token in the issued link ${String(issued.url)}`);
  return `/sign/${token}`;
}

// ---- The proxy: the app as it is, or with every answer uncompressed ---------------------------------------

function startProxy(target: string, variant: Variant): Promise<{ url: string; close(): Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((request: IncomingMessage, response) => {
    const headers = { ...request.headers, host: upstream.host };
    if (variant === 'baseline') headers['accept-encoding'] = 'identity';
    const forwarded = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    forwarded.on('error', (error) => response.destroy(error));
    request.pipe(forwarded);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

// ---- Chromium with its DevTools port open, for Lighthouse ---------------------------------------------------

async function startChromium(): Promise<{ port: number; stop(): Promise<void> }> {
  const { path } = await provisionChromium({ install: false });
  const profile = await mkdtemp(join(tmpdir(), 'sigil-bench-chromium-'));
  const child: ChildProcess = spawn(
    path,
    [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--remote-debugging-address=127.0.0.1',
      '--remote-debugging-port=0',
      `--user-data-dir=${profile}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let said = '';
    const timer = setTimeout(
      () => reject(new Error(`Chromium did not open its DevTools port:\n${said}`)),
      60_000,
    );
    child.stderr?.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      const match = /DevTools listening on ws:\/\/[^:]+:(\d+)\//.exec(said);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Chromium exited (${code}) before opening its DevTools port:\n${said}`));
    });
  });
  return {
    port,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(profile, { recursive: true, force: true });
    },
  };
}

// ---- One Lighthouse load --------------------------------------------------------------------------------

interface AuditLike {
  numericValue?: number;
  details?: { overallSavingsBytes?: number; items?: Record<string, unknown>[] };
}

/** The profile Lighthouse ran with, as its first report says (printed with the figures). */
let profile = '';

async function measure(port: number, url: string, label: string): Promise<Measured> {
  const result = await lighthouse(url, {
    port,
    hostname: '127.0.0.1',
    output: 'json',
    logLevel: 'error',
    onlyCategories: ['performance'],
  });
  if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
  const { lhr } = result;
  if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
  if (REPORTS) {
    await mkdir(REPORTS, { recursive: true });
    await writeFile(join(REPORTS, `${label}.json`), JSON.stringify(lhr, null, 1));
  }
  const { formFactor, throttlingMethod, throttling } = lhr.configSettings;
  profile ||=
    `${formFactor} profile, throttling (${throttlingMethod}): ${throttling.rttMs} ms RTT, ` +
    `${((throttling.throughputKbps ?? 0) / 1024).toFixed(1)} Mbit/s, ${throttling.cpuSlowdownMultiplier}× CPU slowdown`;
  const audit = (id: string) => (lhr.audits[id] ?? {}) as AuditLike;
  const numeric = (id: string) => {
    const value = audit(id).numericValue;
    if (typeof value !== 'number') throw new Error(`Lighthouse measured no ${id} for ${url}`);
    return value;
  };
  const summary = audit('resource-summary').details?.items ?? [];
  const transferOf = (type: string) =>
    Number(summary.find((item) => item.resourceType === type)?.transferSize ?? 0);
  const requests = audit('network-requests').details?.items ?? [];
  const transferWhere = (match: (url: string, mimeType: string) => boolean) =>
    requests
      .filter((item) => match(String(item.url), String(item.mimeType ?? '')))
      .reduce((sum, item) => sum + Number(item.transferSize ?? 0), 0);
  return {
    score: lhr.categories.performance?.score ?? 0,
    fcpMs: numeric('first-contentful-paint'),
    lcpMs: numeric('largest-contentful-paint'),
    tbtMs: numeric('total-blocking-time'),
    scriptBytes: transferOf('script'),
    totalBytes: transferOf('total'),
    apiBytes: transferWhere((address) => new URL(address).pathname.startsWith('/api/')),
    pdfBytes: transferWhere((_, mimeType) => mimeType === 'application/pdf'),
    compressionSavings: audit('uses-text-compression').details?.overallSavingsBytes ?? 0,
    unusedScriptBytes: audit('unused-javascript').details?.overallSavingsBytes ?? 0,
    benchmarkIndex: lhr.environment.benchmarkIndex,
  };
}

// ---- What the largest paint is -------------------------------------------------------------------------

/**
 * Lighthouse 12.2.3 cannot name the LCP element with Debian's Chromium (its TraceElements gatherer fails on the
 * trace: "Cannot read properties of undefined (reading 'frame_sequence')"), so one more load, in the same
 * Chromium through playwright-core, with the profile's network and CPU applied for real, lists the page's LCP
 * candidates as the browser reports them (PerformanceObserver), the last one being the LCP element.
 */
async function lcpCandidates(port: number, url: string): Promise<string[]> {
  const browser = await playwrightChromium.connectOverCDP(`http://127.0.0.1:${port}`);
  try {
    const context = await browser.newContext({
      viewport: { width: 412, height: 823 },
      deviceScaleFactor: 1.75,
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 150,
      downloadThroughput: (1.6 * 1024 * 1024) / 8,
      uploadThroughput: (750 * 1024) / 8,
    });
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    // A string, run in the page (the benchmark's TypeScript has no DOM types).
    await page.addInitScript(`
      const seen = (globalThis.sigilLcp = []);
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) {
          const element = entry.element;
          const name = element
            ? '<' + element.tagName.toLowerCase() + (element.className ? ' class="' + element.className + '"' : '') +
              '> "' + (element.textContent || '').trim().slice(0, 40) + '"'
            : '(removed element)';
          seen.push(entry.startTime.toFixed(0) + ' ms: ' + name + ', ' + entry.size + ' px²');
        }
      }).observe({ type: 'largest-contentful-paint', buffered: true });
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) seen.push(entry.startTime.toFixed(0) + ' ms: ' + entry.name);
      }).observe({ type: 'paint', buffered: true });
    `);
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForTimeout(8_000);
    const seen = await page.evaluate(() => (globalThis as unknown as { sigilLcp: string[] }).sigilLcp);
    await context.close();
    return seen;
  } finally {
    await browser.close();
  }
}

// ---- Report ---------------------------------------------------------------------------------------------

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;

function medians(runs: Measured[]): Measured {
  const of = (key: keyof Measured) => median(runs.map((run) => run[key]));
  return {
    score: of('score'),
    fcpMs: of('fcpMs'),
    lcpMs: of('lcpMs'),
    tbtMs: of('tbtMs'),
    scriptBytes: of('scriptBytes'),
    totalBytes: of('totalBytes'),
    apiBytes: of('apiBytes'),
    pdfBytes: of('pdfBytes'),
    compressionSavings: of('compressionSavings'),
    unusedScriptBytes: of('unusedScriptBytes'),
    benchmarkIndex: of('benchmarkIndex'),
  };
}

// ---------------------------------------------------------------------------------------------------------

const startLoad = loadavg()[0] ?? 0;
say('the web app: building it when web/ changed since the last build…');
await ensureWebBuild((line) => say(`web: ${line}`));
const bench = await startBenchApi(say);
const chromium = await startChromium();
const proxies = new Map<Variant, { url: string; close(): Promise<void> }>();
try {
  const appUrl = await listenLocally(bench.app);
  for (const variant of VARIANTS) proxies.set(variant, await startProxy(appUrl, variant));
  const links = new Map<number, string>();
  for (const pages of DOCUMENTS) {
    say(`a ${pages}-page envelope, sent, with a signing link…`);
    links.set(pages, await signingLinkFor(bench, pages));
  }
  for (const pages of DOCUMENTS) {
    say(`the ${pages}-page document's paints and LCP candidates (real throttling, one load):`);
    const url = `${proxies.get('compressed')?.url}${links.get(pages)}`;
    for (const line of await lcpCandidates(chromium.port, url)) say(`  ${line}`);
  }
  const results = new Map<string, Measured[]>();
  const total = DOCUMENTS.length * VARIANTS.length * RUNS;
  let done = 0;
  // A warm-up load: the app's first answers (prepared statements, the first PDF render) are not measured.
  say('a warm-up load…');
  await measure(
    chromium.port,
    `${proxies.get('compressed')?.url}${links.get(DOCUMENTS[0] as number)}`,
    'warm-up',
  );
  for (const pages of DOCUMENTS) {
    for (let run = 1; run <= RUNS; run += 1) {
      for (const variant of VARIANTS) {
        done += 1;
        const url = `${proxies.get(variant)?.url}${links.get(pages)}`;
        const label = `${pages}-pages-${variant}-${run}`;
        const started = Date.now();
        const measured = await measure(chromium.port, url, label);
        const key = `${pages}:${variant}`;
        results.set(key, [...(results.get(key) ?? []), measured]);
        say(
          `  ${done}/${total} ${pages} pages, ${variant.padEnd(10)} run ${run}: LCP ${seconds(measured.lcpMs)}, ` +
            `TBT ${measured.tbtMs.toFixed(0)} ms, JS ${kib(measured.scriptBytes)}, score ` +
            `${measured.score.toFixed(2)} (${((Date.now() - started) / 1000).toFixed(0)} s)`,
        );
      }
    }
  }

  out();
  out(`The signer page, Lighthouse ${lighthousePackage.version}, ${profile}; median of ${RUNS} runs`);
  out(
    `   machine: ${cpus().length} cores, load average ${startLoad.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end`,
  );
  for (const pages of DOCUMENTS) {
    const compressed = medians(results.get(`${pages}:compressed`) ?? []);
    const baseline = medians(results.get(`${pages}:baseline`) ?? []);
    out();
    out(`${pages}-page document`);
    out('   variant            | score |   FCP   |   LCP   |   TBT   | JS transferred | total transferred');
    const row = (name: string, m: Measured) =>
      out(
        `   ${name.padEnd(18)} | ${m.score.toFixed(2).padStart(5)} | ${seconds(m.fcpMs).padStart(7)} | ` +
          `${seconds(m.lcpMs).padStart(7)} | ${`${m.tbtMs.toFixed(0)} ms`.padStart(7)} | ` +
          `${kib(m.scriptBytes).padStart(14)} | ${kib(m.totalBytes).padStart(17)}`,
      );
    row('compressed', compressed);
    row('baseline (none)', baseline);
    const ratio = (a: number, b: number) => (b === 0 ? '—' : (a / b).toFixed(2));
    out(
      `   ${'ratio'.padEnd(18)} | ${ratio(compressed.score, baseline.score).padStart(5)} | ` +
        `${ratio(compressed.fcpMs, baseline.fcpMs).padStart(7)} | ${ratio(compressed.lcpMs, baseline.lcpMs).padStart(7)} | ` +
        `${ratio(compressed.tbtMs, baseline.tbtMs).padStart(7)} | ${ratio(compressed.scriptBytes, baseline.scriptBytes).padStart(14)} | ` +
        `${ratio(compressed.totalBytes, baseline.totalBytes).padStart(17)}`,
    );
    out(
      `   compressed: Lighthouse's "enable text compression" finds ${kib(compressed.compressionSavings)} to save ` +
        `(baseline: ${kib(baseline.compressionSavings)}); unused JavaScript ${kib(compressed.unusedScriptBytes)}; ` +
        `the signer API's answers ${kib(compressed.apiBytes)} and the PDF ${kib(compressed.pdfBytes)} of the total`,
    );
    const goal = (met: boolean) => (met ? 'met' : 'not met');
    out(
      `   goals: LCP ≤ 2.5 s ${goal(compressed.lcpMs <= GOALS.lcpMs)}, TBT ≤ 200 ms ${goal(compressed.tbtMs <= GOALS.tbtMs)}, ` +
        `JavaScript ≤ 250 KB compressed ${goal(compressed.scriptBytes / 1024 <= GOALS.scriptKiB)}; ` +
        `Lighthouse's benchmark index of this machine ${compressed.benchmarkIndex.toFixed(0)}`,
    );
  }
} finally {
  for (const proxy of proxies.values()) await proxy.close();
  await chromium.stop();
  await bench.close();
}

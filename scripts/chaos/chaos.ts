// `npm run chaos`: fault injection on a stack of its own. N two-signer envelopes go through the public API and
// the signer API, driven by a client that retries the careful way, while the worker is killed with SIGKILL
// at random points, the API is killed once, and the Temporal dev server and PostgreSQL are each restarted
// once. At the end every invariant is checked; the exit code is 1 when one is violated (each is named).
// docs/development.md, "The chaos run", says what it checks and what it measured.
//
//   npm run chaos -- [--envelopes 100] [--concurrency 4] [--worker-kills N] [--seed N] [--outage-seconds 5]
//                    [--settle-seconds 300] [--keep] [--json FILE] [--forget-delivery N]
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { formatReport } from './report.ts';
import { type ChaosOptions, runChaos } from './run.ts';

const say = (line: string) => process.stdout.write(`[chaos] ${line}\n`);

const { values } = parseArgs({
  options: {
    envelopes: { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '4' },
    'worker-kills': { type: 'string' },
    'api-kills': { type: 'string', default: '1' },
    'temporal-restarts': { type: 'string', default: '1' },
    'postgres-restarts': { type: 'string', default: '1' },
    seed: { type: 'string' },
    'outage-seconds': { type: 'string', default: '5' },
    'gap-seconds': { type: 'string', default: '3' },
    'settle-seconds': { type: 'string', default: '300' },
    'refuse-share': { type: 'string', default: '0.04' },
    'drop-share': { type: 'string', default: '0.04' },
    'retry-delay-scale': { type: 'string', default: '0.02' },
    keep: { type: 'boolean', default: false },
    json: { type: 'string' },
    'forget-delivery': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
});

if (values.help) {
  process.stdout.write(
    [
      'npm run chaos -- [options]',
      '  --envelopes N           two-signer envelopes to drive (100)',
      '  --concurrency N         envelopes driven at once (4)',
      '  --worker-kills N        worker SIGKILLs (default: one per 12 envelopes, at least 2)',
      '  --api-kills N, --temporal-restarts N, --postgres-restarts N   (1 each)',
      '  --seed N                the plan: fault points, receiver misbehaviour (random, printed)',
      '  --outage-seconds S      how long Temporal and PostgreSQL stay down (5)',
      '  --gap-seconds S         least time between a part being back and the next fault (3)',
      '  --settle-seconds S      wait for finalization and webhooks after the last signature (300)',
      '  --refuse-share F        deliveries whose first attempt the receiver answers 503 (0.04)',
      '  --drop-share F          deliveries whose first attempt the receiver drops unanswered (0.04)',
      '  --retry-delay-scale F   WEBHOOK_RETRY_DELAY_SCALE of the worker (0.02: 30 s becomes 0.6 s)',
      '  --keep                  keep the temporary data directory (always kept when a check fails)',
      '  --json FILE             also write the report as JSON',
      '  --forget-delivery N     self-check: the receiver forgets its N-th acknowledged delivery',
      '',
    ].join('\n'),
  );
  process.exit(0);
}

function number(name: string, value: string | undefined, min: number, max: number): number {
  const parsed = Number(value);
  if (value === undefined || !Number.isFinite(parsed) || parsed < min || parsed > max) {
    process.stderr.write(`--${name} must be a number from ${min} to ${max}\n`);
    process.exit(64);
  }
  return parsed;
}

const envelopes = Math.floor(number('envelopes', values.envelopes, 1, 100_000));
const options: ChaosOptions = {
  envelopes,
  concurrency: Math.floor(number('concurrency', values.concurrency, 1, 64)),
  seed:
    values.seed === undefined
      ? Math.floor(Math.random() * 2 ** 31)
      : Math.floor(number('seed', values.seed, 0, 2 ** 32 - 1)),
  workerKills: Math.floor(
    number(
      'worker-kills',
      values['worker-kills'] ?? String(Math.max(2, Math.round(envelopes / 12))),
      0,
      1000,
    ),
  ),
  apiKills: Math.floor(number('api-kills', values['api-kills'], 0, 100)),
  temporalRestarts: Math.floor(number('temporal-restarts', values['temporal-restarts'], 0, 100)),
  postgresRestarts: Math.floor(number('postgres-restarts', values['postgres-restarts'], 0, 100)),
  outageMs: number('outage-seconds', values['outage-seconds'], 0, 600) * 1000,
  gapMs: number('gap-seconds', values['gap-seconds'], 0, 600) * 1000,
  settleTimeoutMs: number('settle-seconds', values['settle-seconds'], 1, 24 * 3600) * 1000,
  refuseShare: number('refuse-share', values['refuse-share'], 0, 0.5),
  dropShare: number('drop-share', values['drop-share'], 0, 0.5),
  webhookRetryDelayScale: number('retry-delay-scale', values['retry-delay-scale'], 0.001, 1),
  keep: values.keep,
  ...(values['forget-delivery']
    ? { forgetDelivery: Math.floor(number('forget-delivery', values['forget-delivery'], 1, 1_000_000)) }
    : {}),
  say,
};

say(`seed ${options.seed} (repeat the plan with --seed ${options.seed})`);
try {
  const report = await runChaos(options);
  process.stdout.write(`\n${formatReport(report)}\n`);
  if (values.json) await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`);
  process.exit(report.ok ? 0 : 1);
} catch (error) {
  process.stderr.write(
    `[chaos] the run could not complete: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(2);
}

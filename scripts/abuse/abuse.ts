// `npm run abuse` and `npm run bench:abuse` (docs/performance.md, "Abuse"): floods an API with the files built
// to exhaust it — PDF compression bombs through `POST /api/v1/files/upload` and through a signer's File upload
// field, and 40-megapixel signature images — while measuring another route (`GET /api/plans`) and a bystander
// organization's ordinary upload, first alone and then under the flood, in the same run. Then one 40-megapixel
// signature alone: how long it takes and what it does to the API process's memory. Prints the figures;
// asserts nothing.
//
// Bounded and loopback only: the target must be an address of this machine (127.0.0.0/8, ::1, or `localhost`
// resolving only to such addresses), and so must its database; every phase stops after ABUSE_SECONDS (at most
// 60) and the flood after ABUSE_MAX_REQUESTS requests (at most 2,000), from ABUSE_CLIENTS clients (at most 32).
//
// Without a target it starts its own stack (embedded PostgreSQL, the Temporal dev server, one worker, one API,
// every part a process of its own, on free ports of 127.0.0.1, as `npm run bench:scale` does), so the load
// generator (this process) never shares the API's event loop. With `--target http://127.0.0.1:3000` it uses a
// running API and seeds two organizations of its own into the database of the loaded configuration
// (DATABASE_URL, or `npm start`'s embedded cluster); `--api-pid <pid>` lets it read that API's memory.
import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import ipaddr from 'ipaddr.js';
import { loadConfig } from '../../config/config.ts';
import { Organization } from '../../db/entities/index.ts';
import { createOrm, migrateToLatest } from '../../db/orm.ts';
import { SCOPES } from '../../domain/scopes.ts';
import type { TemplateDefinition } from '../../domain/template.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { createFileObjects } from '../../storage/create-object-store.ts';
import { localChaosStack } from '../chaos/stack.ts';
import { buildDemoPdf } from '../demo/demo-pdf.ts';
import { bombPdf, drawnSignaturePng, fortyMegapixelPng } from './payloads.ts';

const LIMITS = { seconds: 60, clients: 32, maxRequests: 2000 } as const;
/** Requests of the measured route per second at most (one at a time, with this pause between). */
const PROBE_PAUSE_MS = 20;
/** The bystander's ordinary upload, one at a time, with this pause between. */
const BYSTANDER_PAUSE_MS = 250;
/** Megabytes of zeros in the bomb: about 300 KB of file, past the 100 MB the inspection decodes at most. */
const BOMB_MEGABYTES = 300;
/** A large drawn signature that is allowed (the signature box below is 200 × 60 points). */
const LARGE_SIGNATURE = { width: 3000, height: 900 };
const REQUEST_TIMEOUT_MS = 60_000;

const say = (line: string) => process.stdout.write(`[abuse] ${line}\n`);
const out = (line = '') => process.stdout.write(`${line}\n`);

export interface AbuseOptions {
  /** A running API; without it the run starts its own stack. */
  target?: string;
  apiPid?: number;
  seconds: number;
  clients: number;
  maxRequests: number;
}

/** The options of the command line and the environment, within the run's bounds. */
export function abuseOptions(argv: string[]): AbuseOptions {
  const { values } = parseArgs({
    args: argv,
    options: { target: { type: 'string' }, 'api-pid': { type: 'string' } },
  });
  const bounded = (name: string, fallback: number, max: number) => {
    const value = Number(process.env[name] ?? fallback);
    if (!Number.isInteger(value) || value < 1 || value > max) {
      throw new Error(`${name} must be a whole number from 1 to ${max}`);
    }
    return value;
  };
  const target = values.target ?? process.env.ABUSE_TARGET;
  const apiPid = values['api-pid'] ?? process.env.ABUSE_API_PID;
  return {
    ...(target ? { target } : {}),
    ...(apiPid ? { apiPid: Number(apiPid) } : {}),
    seconds: bounded('ABUSE_SECONDS', 8, LIMITS.seconds),
    clients: bounded('ABUSE_CLIENTS', 6, LIMITS.clients),
    maxRequests: bounded('ABUSE_MAX_REQUESTS', 400, LIMITS.maxRequests),
  };
}

/** Refuses any address that is not this machine's loopback: the run never sends traffic elsewhere. */
export async function requireLoopback(what: string, url: string): Promise<void> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const addresses = ipaddr.isValid(host)
    ? [host]
    : host === 'localhost'
      ? (await lookup(host, { all: true })).map((entry) => entry.address)
      : [];
  const loopback = addresses.length > 0 && addresses.every((a) => ipaddr.process(a).range() === 'loopback');
  if (!loopback) {
    throw new Error(
      `${what} ${url} is not a loopback address: the abuse run only targets this machine (127.0.0.0/8, ::1, localhost)`,
    );
  }
}

// ---- Seeding ---------------------------------------------------------------------------------------------

interface Party {
  organizationId: string;
  templateId: string;
  clientId: string;
  clientSecret: string;
}

/** A one-role template: a File upload field and a 200 × 60 point signature box. */
const ABUSE_TEMPLATE: TemplateDefinition = {
  name: 'Abuse run',
  roles: [{ name: 'Client', required: true }],
  fields: [
    { type: 'File upload', role: 'Client', label: 'Copy', page: 1, x: 40, y: 80, width: 160, height: 24 },
    { type: 'Signature', role: 'Client', label: 'Signature', page: 1, x: 40, y: 140, width: 200, height: 60 },
  ],
} as TemplateDefinition;

/** Two organizations (the attacker's and a bystander's), each with the template and an OAuth client. */
async function seed(databaseUrl: string): Promise<{ attacker: Party; bystander: Party }> {
  const orm = await createOrm({ databaseUrl });
  // The files go where the loaded configuration's API would put them (STORAGE).
  const files = createFileObjects(loadConfig().storage, orm.em);
  try {
    await migrateToLatest(orm, databaseUrl);
    const party = async (name: string): Promise<Party> => {
      const em = orm.em.fork();
      const ctx = { em, files };
      const organization = await createOrganization(ctx, { name, plan: 'Enterprise', apiEnabled: true });
      // The plan's request limits would answer 429 before the files reach the inspection measured here.
      await em.nativeUpdate(
        Organization,
        { id: organization.id },
        { ratePerMinute: 1_000_000, uploadRatePerMinute: 1_000_000 },
      );
      const template = await createTemplate(ctx, {
        organizationId: organization.id,
        pdf: await buildDemoPdf(name),
        filename: 'abuse.pdf',
        definition: ABUSE_TEMPLATE,
        publish: true,
      });
      const client = await createOAuthClient(ctx, {
        organizationId: organization.id,
        name,
        scopes: [...SCOPES],
      });
      return {
        organizationId: organization.id,
        templateId: template.id,
        clientId: client.clientId,
        clientSecret: client.clientSecret,
      };
    };
    return { attacker: await party('Abuse run: sender'), bystander: await party('Abuse run: bystander') };
  } finally {
    await orm.close();
  }
}

// ---- HTTP ------------------------------------------------------------------------------------------------

interface Answer {
  status: number;
  body: unknown;
  ms: number;
}

async function call(
  baseUrl: string,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string | Buffer | FormData } = {},
): Promise<Answer> {
  const started = performance.now();
  try {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      ...init,
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, body, ms: performance.now() - started };
  } catch {
    // A timeout or a dropped connection: status 0.
    return { status: 0, body: null, ms: performance.now() - started };
  }
}

async function bearer(baseUrl: string, party: Party): Promise<Record<string, string>> {
  const basic = Buffer.from(`${party.clientId}:${party.clientSecret}`).toString('base64');
  const answer = await call(baseUrl, 'POST', '/oauth/token', {
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  const token = (answer.body as { access_token?: string }).access_token;
  if (!token) throw new Error(`token: ${answer.status} ${JSON.stringify(answer.body)}`);
  return { authorization: `Bearer ${token}` };
}

function expectStatus(what: string, answer: Answer, status: number): void {
  if (answer.status !== status) {
    throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body).slice(0, 400)}`);
  }
}

interface SignerLink {
  envelopeId: string;
  token: string;
  fileFieldId: string;
  signatureFieldId: string;
}

/** A sent envelope of the attacker's template to one API-channel signer, and that signer's link. */
async function signerLink(baseUrl: string, auth: Record<string, string>, party: Party): Promise<SignerLink> {
  const headers = { ...auth, 'content-type': 'application/json' };
  const created = await call(baseUrl, 'POST', '/api/v1/envelopes/from-template', {
    headers,
    body: JSON.stringify({
      title: 'Abuse run',
      templateId: party.templateId,
      recipients: [
        {
          roleName: 'Client',
          fullName: 'Mallory Signer',
          email: `mallory.${randomUUID().slice(0, 8)}@abuse.example`,
          deliveryChannel: 'Api',
          signingOrder: 1,
        },
      ],
    }),
  });
  expectStatus('create', created, 201);
  const envelope = created.body as { id: string; recipients: { id: string }[] };
  expectStatus(
    'send',
    await call(baseUrl, 'POST', `/api/v1/envelopes/${envelope.id}/send`, { headers: auth }),
    200,
  );
  const link = await call(
    baseUrl,
    'POST',
    `/api/v1/envelopes/${envelope.id}/recipients/${envelope.recipients[0]?.id}/signing-link`,
    { headers: auth },
  );
  expectStatus('signing link', link, 200);
  const token = String((link.body as { url: string }).url).split('/sign/')[1] ?? '';
  const view = await call(baseUrl, 'GET', `/api/signing/${token}`);
  expectStatus('signing view', view, 200);
  const fields = (view.body as { fields: { fieldDefinitionId: string; type: string }[] }).fields;
  const id = (type: string) => fields.find((field) => field.type === type)?.fieldDefinitionId ?? '';
  return {
    envelopeId: envelope.id,
    token,
    fileFieldId: id('File upload'),
    signatureFieldId: id('Signature'),
  };
}

function upload(baseUrl: string, auth: Record<string, string>, pdf: Buffer, name: string): Promise<Answer> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), name);
  return call(baseUrl, 'POST', '/api/v1/files/upload', { headers: auth, body: form });
}

function saveFile(baseUrl: string, link: SignerLink, pdfBase64: string): Promise<Answer> {
  return call(baseUrl, 'PUT', `/api/signing/${link.token}/fields`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      values: [
        {
          fieldDefinitionId: link.fileFieldId,
          value: { fileBase64: pdfBase64, filename: 'copy.pdf', contentType: 'application/pdf' },
        },
      ],
    }),
  });
}

function saveSignature(baseUrl: string, link: SignerLink, pngBase64: string): Promise<Answer> {
  return call(baseUrl, 'PUT', `/api/signing/${link.token}/fields`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      values: [{ fieldDefinitionId: link.signatureFieldId, value: { imagePngBase64: pngBase64 } }],
    }),
  });
}

// ---- Measuring -------------------------------------------------------------------------------------------

interface Stats {
  count: number;
  p50: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
}

function stats(answers: Answer[]): Stats {
  const sorted = answers.map((a) => a.ms).sort((a, b) => a - b);
  const at = (p: number) =>
    sorted.length === 0
      ? Number.NaN
      : (sorted[
          Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))
        ] as number);
  const statuses: Record<string, number> = {};
  for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  return { count: sorted.length, p50: at(50), p99: at(99), max: sorted.at(-1) ?? Number.NaN, statuses };
}

/** Repeats `request` one at a time, `pauseMs` apart, until `stop()` says so; returns every answer. */
async function loop(request: () => Promise<Answer>, pauseMs: number, stop: () => boolean): Promise<Answer[]> {
  const answers: Answer[] = [];
  while (!stop()) {
    answers.push(await request());
    if (pauseMs > 0) await sleep(pauseMs);
  }
  return answers;
}

/** The resident memory of a process (VmRSS) and its peak so far (VmHWM), in MB; undefined without /proc. */
function memoryOf(pid: number | undefined): { rss: number; peak: number } | undefined {
  if (pid === undefined) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) =>
      Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

export interface AbuseReport {
  seconds: number;
  clients: number;
  alone: { plans: Stats; bystander: Stats };
  flood: { plans: Stats; bystander: Stats; attacks: Record<string, Stats> };
  hugeImage: { status: number; ms: number; rssBefore?: number; rssPeak?: number; message: string };
  largeImage: { status: number; ms: number; storedWidth?: number; storedHeight?: number };
}

/** Runs the phases against `baseUrl` (seeded through `databaseUrl`); `apiPid` for the API's memory. */
export async function runAbuse(
  baseUrl: string,
  databaseUrl: string,
  apiPid: number | undefined,
  options: AbuseOptions,
): Promise<AbuseReport> {
  const { attacker, bystander } = await seed(databaseUrl);
  const attackerAuth = await bearer(baseUrl, attacker);
  const bystanderAuth = await bearer(baseUrl, bystander);
  const bomb = bombPdf(BOMB_MEGABYTES);
  const bombBase64 = bomb.toString('base64');
  const huge = fortyMegapixelPng();
  const hugeBase64 = huge.toString('base64');
  const ordinary = Buffer.from(await buildDemoPdf('Bystander', 1));
  say(`bomb PDF ${(bomb.length / 1024).toFixed(0)} KB (${BOMB_MEGABYTES} MB of zeros inside)`);
  say(`40-megapixel PNG ${(huge.length / 1024).toFixed(0)} KB (6324 × 6324, 16-bit RGBA)`);

  // Each signer client signs an envelope of its own: a client of its own to the API.
  const kinds = ['upload', 'signer-file', 'signature'] as const;
  const attackers = await Promise.all(
    Array.from({ length: options.clients }, async (_, index) => {
      const kind = kinds[index % kinds.length] as (typeof kinds)[number];
      const link = kind === 'upload' ? undefined : await signerLink(baseUrl, attackerAuth, attacker);
      return { kind, link };
    }),
  );

  const plans = () => call(baseUrl, 'GET', '/api/plans');
  const bystanderUpload = () => upload(baseUrl, bystanderAuth, ordinary, 'agreement.pdf');
  const measure = async (flood: boolean) => {
    const until = Date.now() + options.seconds * 1000;
    let sent = 0;
    const running = () => Date.now() < until;
    const attacks: Record<string, Answer[]> = {};
    const floods = flood
      ? attackers.map(async ({ kind, link }) => {
          attacks[kind] ??= [];
          const answers = attacks[kind];
          while (running() && sent < options.maxRequests) {
            sent += 1;
            if (kind === 'upload') answers.push(await upload(baseUrl, attackerAuth, bomb, 'bomb.pdf'));
            else if (kind === 'signer-file')
              answers.push(await saveFile(baseUrl, link as SignerLink, bombBase64));
            else answers.push(await saveSignature(baseUrl, link as SignerLink, hugeBase64));
          }
        })
      : [];
    const [plansAnswers, bystanderAnswers] = await Promise.all([
      loop(plans, PROBE_PAUSE_MS, () => !running()),
      loop(bystanderUpload, BYSTANDER_PAUSE_MS, () => !running()),
      ...floods,
    ]);
    return {
      plans: stats(plansAnswers as Answer[]),
      bystander: stats(bystanderAnswers as Answer[]),
      attacks: Object.fromEntries(Object.entries(attacks).map(([kind, answers]) => [kind, stats(answers)])),
    };
  };

  // Warm both paths up (the first request of each loads code), then measure.
  await plans();
  await bystanderUpload();
  say(`alone: GET /api/plans and the bystander's upload for ${options.seconds} s…`);
  const alone = await measure(false);
  say(`flood: the same, while ${options.clients} clients send bombs and 40-megapixel images…`);
  const flood = await measure(true);

  // Let the flood's work drain before the single image is measured.
  await sleep(2000);
  const link = await signerLink(baseUrl, attackerAuth, attacker);
  const before = memoryOf(apiPid);
  let peak = before?.rss ?? Number.NaN;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, memoryOf(apiPid)?.rss ?? Number.NaN);
      await sleep(10);
    }
  })();
  const single = await saveSignature(baseUrl, link, hugeBase64);
  sampling = false;
  await sampler;
  const after = memoryOf(apiPid);
  const message =
    single.status === 200
      ? 'accepted'
      : String((single.body as { error?: { message?: string } })?.error?.message ?? single.status);

  const large = await saveSignature(
    baseUrl,
    link,
    drawnSignaturePng(LARGE_SIGNATURE.width, LARGE_SIGNATURE.height).toString('base64'),
  );
  const stored = large.status === 200 ? await storedSignatureSize(databaseUrl, link) : undefined;

  return {
    seconds: options.seconds,
    clients: options.clients,
    alone: { plans: alone.plans, bystander: alone.bystander },
    flood,
    hugeImage: {
      status: single.status,
      ms: single.ms,
      ...(before ? { rssBefore: before.rss } : {}),
      ...(after ? { rssPeak: Math.max(peak, after.rss) } : {}),
      message,
    },
    largeImage: { status: large.status, ms: large.ms, ...(stored ?? {}) },
  };
}

/** The pixel size of the signature image stored for the link's envelope (read from its PNG header). */
async function storedSignatureSize(
  databaseUrl: string,
  link: SignerLink,
): Promise<{ storedWidth: number; storedHeight: number } | undefined> {
  const orm = await createOrm({ databaseUrl });
  try {
    const [row] = await orm.em.getConnection().execute<{ sha256: string }[]>(
      `select f.sha256 from envelope_field_value v join stored_file f on f.id = (v.value->>'fileId')::uuid
        where v.envelope_id = ? and v.field_id = ?`,
      [link.envelopeId, link.signatureFieldId],
    );
    if (!row) return undefined;
    // The bytes through the storage port, wherever the API stored them (STORAGE).
    const files = createFileObjects(loadConfig().storage, orm.em);
    try {
      const content = await files.readAll(row.sha256);
      return { storedWidth: content.readUInt32BE(16), storedHeight: content.readUInt32BE(20) };
    } finally {
      files.close();
    }
  } finally {
    await orm.close();
  }
}

// ---- Printing --------------------------------------------------------------------------------------------

const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(value < 10 ? 1 : 0)} ms` : '—');
const ratio = (after: number, before: number) =>
  Number.isFinite(after / before) ? `×${(after / before).toFixed(1)}` : '—';
const statuses = (s: Stats) =>
  Object.entries(s.statuses)
    .map(([status, count]) => `${status === '0' ? 'no answer' : status}: ${count}`)
    .join(', ');

export function printReport(report: AbuseReport): void {
  out();
  out(
    `Latency alone and under a flood of ${report.clients} clients (${report.seconds} s each, in the same run; ` +
      'load generator in its own process)',
  );
  const rows: string[][] = [
    [
      'route',
      'alone p50 / p99 / max',
      'flood p50 / p99 / max',
      'ratio p50 / p99 / max',
      'answers under flood',
    ],
  ];
  for (const [name, alone, flood] of [
    ['GET /api/plans', report.alone.plans, report.flood.plans],
    ['bystander upload (1-page PDF)', report.alone.bystander, report.flood.bystander],
  ] as const) {
    rows.push([
      name,
      `${ms(alone.p50)} / ${ms(alone.p99)} / ${ms(alone.max)}`,
      `${ms(flood.p50)} / ${ms(flood.p99)} / ${ms(flood.max)}`,
      `${ratio(flood.p50, alone.p50)} / ${ratio(flood.p99, alone.p99)} / ${ratio(flood.max, alone.max)}`,
      `${flood.count} (${statuses(flood)})`,
    ]);
  }
  for (const [kind, s] of Object.entries(report.flood.attacks)) {
    rows.push([
      `flood: ${kind}`,
      '',
      `${ms(s.p50)} / ${ms(s.p99)} / ${ms(s.max)}`,
      '',
      `${s.count} (${statuses(s)})`,
    ]);
  }
  const widths = (rows[0] as string[]).map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  );
  for (const row of rows) out(row.map((cell, column) => cell.padEnd(widths[column] as number)).join('  '));
  out();
  const huge = report.hugeImage;
  const memory =
    huge.rssBefore !== undefined && huge.rssPeak !== undefined
      ? `; API RSS ${huge.rssBefore.toFixed(0)} MB before, ${huge.rssPeak.toFixed(0)} MB at its highest during the request`
      : '';
  out(`40-megapixel signature PNG alone: ${huge.status} after ${ms(huge.ms)} (${huge.message})${memory}`);
  const large = report.largeImage;
  out(
    `${LARGE_SIGNATURE.width} × ${LARGE_SIGNATURE.height} signature PNG: ${large.status} after ${ms(large.ms)}` +
      (large.storedWidth === undefined
        ? ''
        : `, stored as ${large.storedWidth} × ${large.storedHeight} pixels`),
  );
}

// ---- The run ---------------------------------------------------------------------------------------------

/** `npm run abuse` (and `bench:abuse`, which never takes a target). */
export async function main(options: AbuseOptions): Promise<void> {
  if (options.target) {
    await requireLoopback('the target', options.target);
    const databaseUrl = loadConfig(process.env).database.url;
    await requireLoopback('the database', databaseUrl.replace(/^postgres(ql)?:/, 'http:'));
    printReport(await runAbuse(options.target.replace(/\/$/, ''), databaseUrl, options.apiPid, options));
    return;
  }
  const { stack, dataDir } = await localChaosStack({
    run: 'the abuse run',
    dataDirPrefix: 'sigil-abuse-',
    // The load generator is one address: the signer API's per-address throttle would answer 429 first.
    env: { SIGNING_RATE_LIMIT_PER_MINUTE: '100000000', TOKEN_RATE_LIMIT_PER_MINUTE: '100000' },
    say,
  });
  try {
    await stack.prepare();
    await stack.startStores();
    await Promise.all([stack.start('worker'), stack.start('api')]);
    say(`stack ready: API ${stack.apiUrl} (pid ${stack.pid('api')})`);
    printReport(await runAbuse(stack.apiUrl, stack.databaseUrl, stack.pid('api'), options));
  } finally {
    await stack.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main(abuseOptions(process.argv.slice(2)));
}

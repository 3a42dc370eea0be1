// The cluster fault run (`npm run test:cluster`, test/integration/cluster-faults.test.ts): on `npm run cluster`'s
// deployment (cluster.ts: PostgreSQL, the Temporal Server's four services, SeaweedFS with its S3 gateway, Sigil
// workers and APIs behind HAProxy), everything through HAProxy's front as an integrator would:
//   1. the lifecycle — one envelope created from a template, sent, signed by both signers, Completed; its final
//      PDF and audit trail downloaded (PDF bytes, SHA-256 = the stored file's = the S3 object's) and each seal
//      verified by POST /api/verify; its webhooks received and signed;
//   2. the fault run — N more envelopes driven by the chaos run's careful integrator while, at seeded points of
//      their progress, one part of each kind is killed with SIGKILL and started again: a Temporal history
//      process, a matching process, a frontend, a Sigil worker, a Sigil API, the S3 gateway, PostgreSQL;
//   3. the chaos run's invariants (scripts/chaos/invariants.ts), with every stored file read through the S3 API
//      and hash-verified, plus no orphaned object (object-invariants.ts) and no request answered 500.
// It prints recovery per fault kind and the slowest request per fault kind, like `npm run chaos`.
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetObjectCommand, ListObjectsV2Command, NoSuchKey, S3Client } from '@aws-sdk/client-s3';
import pg from 'pg';
import { loadConfig } from '../../config/config.ts';
import type { FaultRecord } from '../chaos/faults.ts';
import { seconds } from '../chaos/faults.ts';
import {
  type Attempt,
  CarefulIntegrator,
  driveEnvelope,
  type EnvelopePlan,
  type EnvelopeProgress,
  RequestFailed,
} from '../chaos/integrator.ts';
import { checkInvariants, type InvariantResult, type Observation, result } from '../chaos/invariants.ts';
import { between, seededRandom, shuffled } from '../chaos/random.ts';
import { startChaosReceiver } from '../chaos/receiver.ts';
import { recoveryTable, slowestRequestLines, workflowTaskLines } from '../chaos/report.ts';
import {
  envelopeWorkflowTasks,
  observe,
  prepareOrganization,
  type RecoveryFigure,
  recoveryOf,
  settle,
  slowestAttempt,
} from '../chaos/run.ts';
import type { WorkflowTaskFigures } from '../chaos/workflow-tasks.ts';
import type { Cluster, ClusterPart, ClusterPartKind } from './cluster.ts';
import { checkObjectStorage } from './object-invariants.ts';

/** The parts the run kills, one of each kind (a random one where there are several). */
export const CLUSTER_FAULT_KINDS = [
  'temporal-history',
  'temporal-matching',
  'temporal-frontend',
  'sigil-worker',
  'sigil-api',
  's3',
  'postgres',
] as const satisfies readonly ClusterPartKind[];
export type ClusterFaultKind = (typeof CLUSTER_FAULT_KINDS)[number];

export const CLUSTER_FAULT_LABELS: Record<ClusterFaultKind, string> = {
  'temporal-history': 'Temporal history SIGKILL',
  'temporal-matching': 'Temporal matching SIGKILL',
  'temporal-frontend': 'Temporal frontend SIGKILL',
  'sigil-worker': 'Sigil worker SIGKILL',
  'sigil-api': 'Sigil API SIGKILL',
  s3: 'S3 gateway SIGKILL',
  postgres: 'PostgreSQL SIGKILL',
};

export interface ClusterFaultOptions {
  /** Envelopes driven while the faults strike (besides the lifecycle's one). */
  envelopes: number;
  concurrency: number;
  seed: number;
  kinds: readonly ClusterFaultKind[];
  /** How long a killed part stays down before it is started again. */
  outageMs: number;
  /** The least time between one part being back and the next fault. */
  gapMs: number;
  settleTimeoutMs: number;
  refuseShare: number;
  dropShare: number;
  webhookRetryDelayScale: number;
  /** Objects younger than this may be unreferenced (the orphan sweep's grace period). */
  orphanGraceMs: number;
  say: (line: string) => void;
}

export interface LifecycleResult {
  envelopeId: string;
  /** ms from create to Completed (final PDF and audit trail stored). */
  completedMs: number;
  /** Each check of the lifecycle with what it found; all must hold. */
  checks: { name: string; ok: boolean; detail: string }[];
}

export interface ClusterFaultReport {
  options: Omit<ClusterFaultOptions, 'say'>;
  runId: string;
  durationMs: number;
  lifecycle: LifecycleResult;
  /** Envelopes driven while the faults struck (at least `options.envelopes`). */
  envelopesDriven: number;
  driveMs: number;
  settleMs: number;
  unsettled: string[];
  faults: FaultRecord<ClusterFaultKind>[];
  recovery: RecoveryFigure<ClusterFaultKind>[];
  attempts: {
    total: number;
    retried: number;
    byOutcome: Record<string, number>;
    slowestMs: number;
    slowestBeforeFaultsMs: number | null;
    /** Attempts answered 500 (must be none). */
    internalErrors: number;
  };
  workflowTasks: WorkflowTaskFigures;
  invariants: InvariantResult[];
  ok: boolean;
}

const SIGNERS = [
  { roleName: 'Client', fullName: 'Dana Levi' },
  { roleName: 'Provider', fullName: 'Sam Cohen' },
];
const COMPLETED_TIMEOUT_MS = 180_000;

interface PlannedClusterFault {
  kind: ClusterFaultKind;
  /** Waited after the previous part is back and the gap has passed: where in the traffic it strikes. */
  delayMs: number;
}

/**
 * One fault of each kind in a seeded order, each at a seeded point: after the previous part is back, the gap,
 * then up to another gap more. The envelopes are driven until every fault has struck (and at least the number
 * asked for), so every fault meets traffic.
 */
export function planClusterFaults(
  random: () => number,
  kinds: readonly ClusterFaultKind[],
  gapMs: number,
): PlannedClusterFault[] {
  return shuffled(random, kinds).map((kind) => ({ kind, delayMs: Math.round(between(random, 0, gapMs)) }));
}

function pickPart(cluster: Cluster, kind: ClusterFaultKind, random: () => number): ClusterPart {
  // SeaweedFS may run as several parts of kind s3; the fault is the S3 gateway's.
  const candidates = cluster.parts.filter((part) => part.kind === kind);
  const gateway = kind === 's3' ? candidates.find((part) => part.name === 's3') : undefined;
  const part = gateway ?? candidates[Math.floor(random() * candidates.length)];
  if (!part) throw new Error(`the cluster has no part of kind ${kind}`);
  return part;
}

async function strike(
  cluster: Cluster,
  kind: ClusterFaultKind,
  random: () => number,
  options: ClusterFaultOptions,
  progress: number,
): Promise<FaultRecord<ClusterFaultKind>> {
  const part = pickPart(cluster, kind, random);
  const pids = part.pids().join(', ');
  const struckAt = Date.now();
  await part.kill('SIGKILL');
  const at = Date.now();
  await sleep(options.outageMs);
  const restartedAt = Date.now();
  await part.start();
  const readyAt = Date.now();
  options.say(
    `fault: ${part.name} (pid ${pids}) killed with SIGKILL, started again after ${seconds(restartedAt - at)}, ready ${seconds(readyAt - at)} after it died`,
  );
  return { kind, struckAt, at, restartedAt, readyAt, progress };
}

function s3Client(cluster: Cluster): S3Client {
  return new S3Client({
    endpoint: cluster.s3.endpoint,
    region: cluster.s3.region,
    forcePathStyle: true,
    credentials: { accessKeyId: cluster.s3.accessKeyId, secretAccessKey: cluster.s3.secretAccessKey },
  });
}

/** The object's bytes through the S3 API (retried while the gateway may be restarting), or null when missing. */
async function readObject(s3: S3Client, bucket: string, name: string): Promise<Buffer | null> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const answer = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: name }));
      return Buffer.from((await answer.Body?.transformToByteArray()) ?? new Uint8Array());
    } catch (error) {
      if (error instanceof NoSuchKey) return null;
      if (attempt >= 5) throw error;
      await sleep(500 * attempt);
    }
  }
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Every stored file, its bytes read through the S3 API and hashed (the observation's `files`). */
function filesInS3(
  s3: S3Client,
  bucket: string,
  prefix: string,
): (pool: pg.Pool) => Promise<Observation['files']> {
  return async (pool) => {
    const rows = (
      await pool.query<{ id: string; content_type: string; sha256: string; template: boolean }>(
        `select f.id, f.content_type, f.sha256,
                exists (select 1 from template t where t.file_id = f.id) as template
           from stored_file f where f.purged_at is null`,
      )
    ).rows;
    const files: Observation['files'] = [];
    for (const row of rows) {
      const bytes = await readObject(s3, bucket, `${prefix}${row.sha256}`);
      files.push({
        id: row.id,
        contentType: row.content_type,
        isPdf: bytes !== null && bytes.subarray(0, 5).toString('latin1') === '%PDF-',
        intact: bytes !== null && sha256(bytes) === row.sha256,
        template: row.template,
      });
    }
    return files;
  };
}

async function observeObjectStorage(
  s3: S3Client,
  bucket: string,
  prefix: string,
  pool: pg.Pool,
  graceMs: number,
): Promise<InvariantResult> {
  const objects: { key: string; storedAt: number }[] = [];
  let token: string | undefined;
  do {
    const page = await s3.send(
      new ListObjectsV2Command({
        Bucket: bucket,
        ...(prefix ? { Prefix: prefix } : {}),
        ...(token ? { ContinuationToken: token } : {}),
      }),
    );
    for (const entry of page.Contents ?? []) {
      objects.push({
        key: (entry.Key ?? '').slice(prefix.length),
        storedAt: entry.LastModified?.getTime() ?? 0,
      });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  const registry = (
    await pool.query<{ key: string; location: string; touched_at: Date }>(
      'select key, location, touched_at from file_object',
    )
  ).rows.map((row) => ({ key: row.key, location: row.location, touchedAt: row.touched_at.getTime() }));
  const referenced = (
    await pool.query<{ sha256: string }>('select distinct sha256 from stored_file where purged_at is null')
  ).rows.map((row) => row.sha256);
  return checkObjectStorage({ objects, registry, referenced, now: Date.now(), graceMs });
}

/** Polls the envelope through the API until it is Completed. */
async function waitCompleted(client: CarefulIntegrator, envelopeId: string): Promise<void> {
  const deadline = Date.now() + COMPLETED_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const answer = await client.call({
      kind: 'read',
      method: 'GET',
      path: `/api/v1/envelopes/${envelopeId}`,
      bearer: true,
    });
    if ((answer.body as { status?: string }).status === 'Completed') return;
    await sleep(250);
  }
  throw new RequestFailed(`envelope ${envelopeId} was not Completed within ${COMPLETED_TIMEOUT_MS / 1000} s`);
}

/**
 * The lifecycle through HAProxy: one envelope to Completed, its documents downloaded, hash-checked against
 * PostgreSQL and the S3 object, their seals verified by POST /api/verify, its webhooks received.
 */
async function lifecycle(
  client: CarefulIntegrator,
  plan: EnvelopePlan,
  progress: EnvelopeProgress,
  pool: pg.Pool,
  s3: S3Client,
  bucket: string,
  prefix: string,
  receipts: readonly { type: string; envelopeId: string | null; signatureValid: boolean; answer: string }[],
): Promise<LifecycleResult> {
  const started = Date.now();
  await driveEnvelope(client, plan, progress, () => {});
  const envelopeId = progress.envelopeId as string;
  await waitCompleted(client, envelopeId);
  const completedMs = Date.now() - started;
  const checks: LifecycleResult['checks'] = [];
  const row = (
    await pool.query<{ final_sha: string | null; trail_sha: string | null }>(
      `select (select sha256 from stored_file where id = e.final_pdf_file_id) as final_sha,
              (select sha256 from stored_file where id = e.audit_trail_file_id) as trail_sha
         from envelope e where e.id = $1`,
      [envelopeId],
    )
  ).rows[0];
  for (const [document, stored] of [
    ['final-pdf', row?.final_sha ?? null],
    ['audit-trail', row?.trail_sha ?? null],
  ] as const) {
    const answer = await client.call({
      kind: 'read',
      method: 'GET',
      path: `/api/v1/envelopes/${envelopeId}/documents/${document}`,
      bearer: true,
      binary: true,
    });
    const bytes = answer.body as Buffer;
    const downloaded = sha256(bytes);
    const object = stored ? await readObject(s3, bucket, `${prefix}${stored}`) : null;
    checks.push({
      name: `${document}: PDF bytes downloaded through HAProxy, SHA-256 = stored_file.sha256 = the S3 object's`,
      ok:
        bytes.subarray(0, 5).toString('latin1') === '%PDF-' &&
        downloaded === stored &&
        object !== null &&
        sha256(object) === stored,
      detail: `downloaded ${bytes.length} bytes ${downloaded.slice(0, 12)}…, stored ${stored?.slice(0, 12) ?? 'none'}…, S3 object ${object ? `${sha256(object).slice(0, 12)}…` : 'missing'}`,
    });
    const verified = await client.call({
      kind: 'read',
      method: 'POST',
      path: '/api/verify',
      bytes: { contentType: 'application/pdf', body: bytes },
    });
    const verdict = verified.body as { verdict?: string; sealedBySigil?: boolean; unmodified?: boolean };
    checks.push({
      name: `${document}: the seal verifies (POST /api/verify through HAProxy)`,
      ok: verdict.verdict === 'intact' && verdict.sealedBySigil === true && verdict.unmodified === true,
      detail: `verdict ${verdict.verdict}, sealed by Sigil ${verdict.sealedBySigil}, unmodified ${verdict.unmodified}`,
    });
  }
  // The webhooks of a completed envelope: envelope.completed and document.final_pdf_ready, signed.
  const deadline = Date.now() + 60_000;
  const wanted = ['envelope.created', 'envelope.completed', 'document.final_pdf_ready'];
  let missing = wanted;
  while (Date.now() < deadline) {
    const arrived = receipts.filter((r) => r.envelopeId === envelopeId && r.answer === 'acknowledged');
    missing = wanted.filter((type) => !arrived.some((r) => r.type === type && r.signatureValid));
    if (missing.length === 0) break;
    await sleep(250);
  }
  checks.push({
    name: 'webhooks: envelope.created, envelope.completed and document.final_pdf_ready received, signed',
    ok: missing.length === 0,
    detail: missing.length === 0 ? 'all received' : `missing ${missing.join(', ')}`,
  });
  return { envelopeId, completedMs, checks };
}

/** The run on a started cluster; the caller starts and stops the cluster. */
export async function runClusterFaults(
  cluster: Cluster,
  options: ClusterFaultOptions,
): Promise<ClusterFaultReport> {
  const { say } = options;
  const t0 = Date.now();
  const runId = randomBytes(4).toString('hex');
  const random = seededRandom(options.seed);
  const receiver = await startChaosReceiver({
    random,
    refuseShare: options.refuseShare,
    dropShare: options.dropShare,
  });
  const monitor = new pg.Pool({
    connectionString: cluster.databaseUrl,
    max: 2,
    connectionTimeoutMillis: 3000,
  });
  monitor.on('error', () => {});
  const s3 = s3Client(cluster);
  const prefix = cluster.env().S3_KEY_PREFIX ?? '';
  const bucket = cluster.s3.bucket;
  try {
    const setup = await prepareOrganization(
      cluster.databaseUrl,
      receiver.url,
      loadConfig({ ...cluster.env(), SIGIL_ENV: 'development' }).storage,
    );
    receiver.setSecret(setup.webhookSecret ?? '');
    const attempts: Attempt[] = [];
    const client = new CarefulIntegrator({
      baseUrl: cluster.url,
      clientId: setup.clientId,
      clientSecret: setup.clientSecret,
      requestTimeoutMs: 30_000,
      giveUpAfterMs: 5 * 60_000,
      onAttempt: (attempt) => attempts.push(attempt),
    });
    // The lifecycle's envelope first; the fault run's are added as they are driven.
    const plans: EnvelopePlan[] = [
      {
        index: 0,
        externalReference: `cluster-${runId}-0000`,
        templateId: setup.templateId,
        signers: SIGNERS,
      },
    ];
    const progress: EnvelopeProgress[] = [{ externalReference: `cluster-${runId}-0000`, signedAt: [] }];

    // ---- 1. The lifecycle, before any fault ------------------------------------------------------------
    say(`organization ${setup.organizationId}; the lifecycle through HAProxy on ${cluster.url}…`);
    const life = await lifecycle(
      client,
      plans[0] as EnvelopePlan,
      progress[0] as EnvelopeProgress,
      monitor,
      s3,
      bucket,
      prefix,
      receiver.receipts,
    );
    for (const check of life.checks)
      say(`lifecycle: ${check.ok ? 'ok  ' : 'FAIL'} ${check.name} (${check.detail})`);

    // ---- 2. The fault run ------------------------------------------------------------------------------
    const plan = planClusterFaults(random, options.kinds, options.gapMs);
    say(
      `driving at least ${options.envelopes} envelopes, ${options.concurrency} at a time, until every fault has struck: ${plan
        .map((p) => p.kind)
        .join(', ')}`,
    );
    let steps = 0;
    let faultsPending = true;
    const driveStarted = Date.now();
    const lane = async () => {
      while (plans.length <= options.envelopes || faultsPending) {
        const index = plans.length;
        const envelopePlan: EnvelopePlan = {
          index,
          externalReference: `cluster-${runId}-${String(index).padStart(4, '0')}`,
          templateId: setup.templateId,
          signers: SIGNERS,
        };
        const state: EnvelopeProgress = { externalReference: envelopePlan.externalReference, signedAt: [] };
        plans.push(envelopePlan);
        progress.push(state);
        try {
          await driveEnvelope(client, envelopePlan, state, () => {
            steps += 1;
          });
        } catch (error) {
          state.failure = error instanceof Error ? error.message : String(error);
          say(`envelope ${state.externalReference} failed: ${state.failure}`);
          if (!(error instanceof RequestFailed)) throw error;
        }
      }
    };
    const faults: FaultRecord<ClusterFaultKind>[] = [];
    const faultLoop = async () => {
      try {
        // The first fault once the lanes are busy (two envelopes' first steps).
        while (steps < 2 * options.concurrency) await sleep(100);
        for (const planned of plan) {
          await sleep(options.gapMs + planned.delayMs);
          // Progress: the share of the least number of envelopes' steps done when it struck.
          const share = Math.min(1, steps / (options.envelopes * (2 + SIGNERS.length)));
          faults.push(await strike(cluster, planned.kind, random, options, share));
        }
      } finally {
        faultsPending = false;
      }
    };
    const ticker = setInterval(() => {
      say(
        `${seconds(Date.now() - t0).padStart(7)}  envelopes ${plans.length - 1}, steps ${steps} | faults ${faults.length}/${plan.length} | requests ${attempts.length} (${attempts.filter((a) => !a.settled).length} to retry) | webhooks ${receiver.receipts.length}`,
      );
    }, 5000);
    try {
      await Promise.all([faultLoop(), ...Array.from({ length: options.concurrency }, lane)]);
    } finally {
      clearInterval(ticker);
    }
    const driveMs = Date.now() - driveStarted;
    say(`driven in ${seconds(driveMs)}; waiting for finalization, webhooks and workflows to end…`);

    // ---- 3. Settle, observe, check ---------------------------------------------------------------------
    const settleStarted = Date.now();
    const unsettled = await settle(
      monitor,
      cluster.temporalAddress,
      cluster.namespace,
      setup.organizationId,
      plans.length,
      receiver.receipts,
      options.settleTimeoutMs,
      say,
    );
    const settleMs = Date.now() - settleStarted;
    say(unsettled.length === 0 ? `settled in ${seconds(settleMs)}` : `not settled: ${unsettled.join(', ')}`);
    const deployment = { temporalAddress: cluster.temporalAddress, childEnv: () => cluster.env() };
    const observation = await observe(
      deployment,
      monitor,
      setup.organizationId,
      cluster.namespace,
      progress,
      receiver.receipts,
      filesInS3(s3, bucket, prefix),
    );
    const internalErrors = attempts.filter((a) => a.status === 500);
    const invariants = [
      ...checkInvariants(observation),
      await observeObjectStorage(s3, bucket, prefix, monitor, options.orphanGraceMs),
      result(
        'no request answered 500',
        `${attempts.length} attempts`,
        internalErrors.map(
          (a) => `${a.kind} answered 500 (${a.code ?? 'no code'}) at ${new Date(a.endedAt).toISOString()}`,
        ),
      ),
      result(
        'the lifecycle through HAProxy',
        `${life.checks.length} checks, Completed in ${seconds(life.completedMs)}`,
        life.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`),
      ),
    ];
    const recordedAt = (
      await monitor.query<{ recorded_at: Date }>(
        'select recorded_at from audit_event where organization_id = $1 order by recorded_at',
        [setup.organizationId],
      )
    ).rows.map((r) => r.recorded_at.getTime());
    const recovery = faults.map((fault, index) =>
      recoveryOf(
        fault,
        faults[index + 1]?.struckAt ?? Number.POSITIVE_INFINITY,
        attempts,
        recordedAt,
        receiver.receipts,
      ),
    );
    const workflowTasks = await envelopeWorkflowTasks(
      cluster.temporalAddress,
      cluster.namespace,
      observation,
    );
    const byOutcome: Record<string, number> = {};
    for (const attempt of attempts) {
      const outcome =
        attempt.status === null
          ? `${attempt.kind}: no answer (${attempt.code})`
          : `${attempt.kind}: ${attempt.status}${attempt.code ? ` ${attempt.code}` : ''}`;
      byOutcome[outcome] = (byOutcome[outcome] ?? 0) + 1;
    }
    const { say: _say, ...reported } = options;
    return {
      options: reported,
      runId,
      durationMs: Date.now() - t0,
      lifecycle: life,
      envelopesDriven: plans.length - 1,
      driveMs,
      settleMs,
      unsettled,
      faults,
      recovery,
      attempts: {
        total: attempts.length,
        retried: attempts.filter((a) => !a.settled).length,
        byOutcome,
        slowestMs: Math.max(0, ...attempts.map((a) => a.endedAt - a.startedAt)),
        slowestBeforeFaultsMs:
          slowestAttempt(attempts, driveStarted, faults[0]?.struckAt ?? Number.POSITIVE_INFINITY)?.ms ?? null,
        internalErrors: internalErrors.length,
      },
      workflowTasks,
      invariants,
      ok: invariants.every((i) => i.ok),
    };
  } finally {
    s3.destroy();
    await monitor.end().catch(() => {});
    await receiver.close();
  }
}

/** The report: what was done, recovery and the slowest request per fault kind, every invariant. */
export function formatClusterReport(report: ClusterFaultReport): string {
  const out: string[] = [];
  const { options } = report;
  out.push('════════════════════════════════════════════════════════════════════════');
  out.push(
    `Cluster fault run ${report.runId}: ${report.ok ? 'every invariant holds' : 'INVARIANTS VIOLATED'}`,
  );
  out.push('────────────────────────────────────────────────────────────────────────');
  out.push(
    `lifecycle     envelope ${report.lifecycle.envelopeId} Completed in ${seconds(report.lifecycle.completedMs)} through HAProxy; ${report.lifecycle.checks.filter((c) => c.ok).length}/${report.lifecycle.checks.length} checks (documents, hashes, seals, webhooks)`,
  );
  out.push(
    `envelopes     ${report.envelopesDriven} two-signer envelopes driven through the faults, ${options.concurrency} at a time, seed ${options.seed}`,
  );
  out.push(
    `time          ${seconds(report.durationMs)} in all: ${seconds(report.driveMs)} driving, ${seconds(report.settleMs)} settling`,
  );
  if (report.unsettled.length > 0) out.push(`              not settled: ${report.unsettled.join(', ')}`);
  out.push(
    `faults        ${report.faults.map((f) => CLUSTER_FAULT_LABELS[f.kind]).join(', ')} (down ${seconds(options.outageMs)} each)`,
  );
  out.push(
    `requests      ${report.attempts.total} attempts, ${report.attempts.retried} retried, ${report.attempts.internalErrors} answered 500; slowest ${seconds(report.attempts.slowestMs)}`,
  );
  const outcomes = Object.entries(report.attempts.byOutcome)
    .filter(([label]) => !/: 2\d\d/.test(label))
    .sort((a, b) => b[1] - a[1])
    .map(([label, n]) => `${label} ×${n}`);
  if (outcomes.length > 0) out.push(`              retried answers: ${outcomes.join(', ')}`);
  out.push('');
  out.push(
    'Recovery, seconds after the part died (median / max): back = ready again; then the first success of',
  );
  out.push(
    'each request kind, the first audit event, the first webhook; slowest = the longest request attempt that',
  );
  out.push('ended between the fault and the next one:');
  out.push(...recoveryTable(report.recovery, CLUSTER_FAULT_KINDS, CLUSTER_FAULT_LABELS));
  out.push(...slowestRequestLines(report, CLUSTER_FAULT_KINDS, CLUSTER_FAULT_LABELS));
  out.push(...workflowTaskLines(report));
  out.push('');
  out.push('Invariants:');
  for (const invariant of report.invariants) {
    out.push(`  ${invariant.ok ? 'ok  ' : 'FAIL'}  ${invariant.name} (${invariant.summary})`);
  }
  for (const invariant of report.invariants.filter((i) => !i.ok)) {
    out.push(`  ${invariant.name}:`);
    for (const problem of invariant.problems) out.push(`    - ${problem}`);
  }
  out.push('════════════════════════════════════════════════════════════════════════');
  return out.join('\n');
}

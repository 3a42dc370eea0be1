// One chaos run: its own stack (stack.ts) in a temporary DATA_DIR, an Enterprise organization with raised
// rate limits, a template, an OAuth client and a webhook endpoint subscribed to every event on the run's
// receiver (receiver.ts); then N two-signer envelopes driven by the careful integrator (integrator.ts) while
// the faults of the plan (faults.ts) strike; then a wait until everything has settled, and the checks
// (invariants.ts) against PostgreSQL, the workflows, `sigil envelope stuck` and the receiver.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { loadConfig } from '../../config/config.ts';
import type { StorageConfig } from '../../config/storage.ts';
import { Organization } from '../../db/entities/index.ts';
import { createOrm, migrateToLatest } from '../../db/orm.ts';
import { SCOPES } from '../../domain/scopes.ts';
import { WEBHOOK_EVENT_TYPES } from '../../domain/vocabulary.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { createFileObjects } from '../../storage/create-object-store.ts';
import { connectClient } from '../../temporal/connection.ts';
import { envelopeWorkflowId, projectionStatusQuery } from '../../workflows/contracts.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../demo/demo-pdf.ts';
import { type FaultRecord, inject, planFaults, seconds } from './faults.ts';
import {
  type Attempt,
  CarefulIntegrator,
  driveEnvelope,
  type EnvelopePlan,
  type EnvelopeProgress,
  RequestFailed,
} from './integrator.ts';
import { checkInvariants, type InvariantResult, type Observation } from './invariants.ts';
import { seededRandom } from './random.ts';
import { startChaosReceiver } from './receiver.ts';
import { type ChaosStack, localChaosStack, type PartEvent } from './stack.ts';
import { type WorkflowTaskFigures, workflowTaskFigures } from './workflow-tasks.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ChaosOptions {
  envelopes: number;
  /** Envelopes driven at once. */
  concurrency: number;
  seed: number;
  workerKills: number;
  apiKills: number;
  temporalRestarts: number;
  postgresRestarts: number;
  /** How long PostgreSQL and Temporal stay down. */
  outageMs: number;
  /** The least time between one part being back and the next fault. */
  gapMs: number;
  /** How long to wait, after the last signature, for every envelope and delivery to settle. */
  settleTimeoutMs: number;
  /** Shares of deliveries whose first attempt the receiver refuses (503) or drops unanswered. */
  refuseShare: number;
  dropShare: number;
  /** WEBHOOK_RETRY_DELAY_SCALE of the worker: the documented retry schedule, shortened. */
  webhookRetryDelayScale: number;
  /** Keep the temporary DATA_DIR (logs, PostgreSQL, Temporal's db) after a run that passed. */
  keep: boolean;
  /** Self-check: the receiver forgets the n-th acknowledged delivery; the webhook checks must then fail. */
  forgetDelivery?: number;
  say: (line: string) => void;
}

export interface RecoveryFigure<Kind extends string = FaultRecord['kind']> {
  fault: FaultRecord<Kind>;
  /** ms from the fault to the part being ready again. */
  back: number;
  /** ms from the fault to the first successful request of each kind that ended after it. */
  firstSuccess: Partial<Record<Attempt['kind'], number>>;
  /** ms from the fault to the first audit event recorded after it (the workflows moving again). */
  workflowProgress: number | null;
  /** ms from the fault to the first webhook delivery received after it. */
  webhook: number | null;
  /**
   * The slowest request attempt that ended between this fault striking and the next one (or the end of the
   * run): what a caller waited longest while this fault's effects lasted. Null when no attempt ended then.
   */
  slowestRequest: { ms: number; kind: Attempt['kind']; status: number | null } | null;
}

export interface ChaosReport {
  options: Omit<ChaosOptions, 'say'>;
  runId: string;
  dataDir: string;
  kept: boolean;
  durationMs: number;
  driveMs: number;
  settleMs: number;
  /** What the run still waited for when the settle time ran out (empty: everything settled). */
  unsettled: string[];
  faults: FaultRecord[];
  recovery: RecoveryFigure[];
  /** Parts that exited without being killed by the run (restarted by the stack). */
  unplannedExits: PartEvent[];
  attempts: {
    total: number;
    retried: number;
    byOutcome: Record<string, number>;
    slowestMs: number;
    /** The slowest attempt that ended before the first fault struck (the run without faults), null: none. */
    slowestBeforeFaultsMs: number | null;
  };
  workflowTasks: WorkflowTaskFigures;
  webhooks: {
    requests: number;
    deliveries: number;
    events: number;
    refused: number;
    dropped: number;
    repeats: number;
  };
  invariants: InvariantResult[];
  ok: boolean;
}

const SIGNERS = [
  { roleName: 'Client', fullName: 'Dana Levi' },
  { roleName: 'Provider', fullName: 'Sam Cohen' },
];
/** Create, send and one per signer: the client's progress, which the faults are planned against. */
const STEPS_PER_ENVELOPE = 2 + SIGNERS.length;

let activeStack: ChaosStack | undefined;

/** Ctrl-C or SIGTERM: stop the stack in order, then exit. */
function stopOnSignal(say: (line: string) => void): void {
  const stop = async (signal: string) => {
    say(`${signal}: stopping the chaos stack…`);
    await activeStack?.stop().catch(() => {});
    process.exit(130);
  };
  process.once('SIGINT', () => void stop('Ctrl-C'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { say } = options;
  const t0 = Date.now();
  stopOnSignal(say);
  const runId = randomBytes(4).toString('hex');
  const random = seededRandom(options.seed);
  const receiver = await startChaosReceiver({
    random,
    refuseShare: options.refuseShare,
    dropShare: options.dropShare,
    ...(options.forgetDelivery ? { forgetAcknowledged: options.forgetDelivery } : {}),
  });
  const namespace = 'default';
  const { stack, dataDir } = await localChaosStack({
    run: 'the chaos run',
    dataDirPrefix: 'sigil-chaos-',
    env: {
      // The integrator's signer requests and token fetches all come from 127.0.0.1.
      SIGNING_RATE_LIMIT_PER_MINUTE: '1000000',
      TOKEN_RATE_LIMIT_PER_MINUTE: '10000',
      WEBHOOK_RETRY_DELAY_SCALE: String(options.webhookRetryDelayScale),
    },
    say,
  });
  activeStack = stack;
  const monitor = new pg.Pool({ connectionString: stack.databaseUrl, max: 2, connectionTimeoutMillis: 3000 });
  // PostgreSQL goes away on purpose: idle clients then report errors, which must not end the process.
  monitor.on('error', () => {});
  let ok = false;
  try {
    await stack.prepare();
    say(
      `data in ${dataDir}; API on ${stack.apiUrl}, PostgreSQL on ${stack.databaseUrl.split('@')[1]}, Temporal on ${stack.temporalAddress}`,
    );
    await stack.startStores();
    const setup = await prepareOrganization(stack.databaseUrl, receiver.url);
    receiver.setSecret(setup.webhookSecret ?? '');
    say(
      `organization ${setup.organizationId} (Enterprise, rate limits raised), webhook endpoint on ${receiver.url}`,
    );
    await Promise.all([stack.start('worker'), stack.start('api')]);
    say(
      `stack ready in ${seconds(Date.now() - t0)}; worker pid ${stack.pid('worker')}, API pid ${stack.pid('api')}`,
    );

    // ---- Drive the envelopes while the faults strike ---------------------------------------------------
    const attempts: Attempt[] = [];
    const client = new CarefulIntegrator({
      baseUrl: stack.apiUrl,
      clientId: setup.clientId,
      clientSecret: setup.clientSecret,
      requestTimeoutMs: 30_000,
      giveUpAfterMs: 5 * 60_000,
      onAttempt: (attempt) => attempts.push(attempt),
    });
    const plans: EnvelopePlan[] = Array.from({ length: options.envelopes }, (_, index) => ({
      index,
      externalReference: `chaos-${runId}-${String(index + 1).padStart(4, '0')}`,
      templateId: setup.templateId,
      signers: SIGNERS,
    }));
    const progress: EnvelopeProgress[] = plans.map((plan) => ({
      externalReference: plan.externalReference,
      signedAt: [],
    }));
    const totalSteps = options.envelopes * STEPS_PER_ENVELOPE;
    let steps = 0;
    let driving = true;
    const plan = planFaults(random, options);
    say(
      `driving ${options.envelopes} envelopes, ${options.concurrency} at a time; faults planned at ${plan
        .map((p) => `${p.kind} ${Math.round(p.atProgress * 100)} %`)
        .join(', ')}`,
    );
    const driveStarted = Date.now();
    let next = 0;
    const lane = async () => {
      while (next < plans.length) {
        const index = next;
        next += 1;
        const envelopePlan = plans[index] as EnvelopePlan;
        const state = progress[index] as EnvelopeProgress;
        try {
          await driveEnvelope(client, envelopePlan, state, () => {
            steps += 1;
          });
        } catch (error) {
          state.failure = error instanceof Error ? error.message : String(error);
          say(`envelope ${envelopePlan.externalReference} failed: ${state.failure}`);
          if (!(error instanceof RequestFailed)) throw error;
        }
      }
    };
    const faults: FaultRecord[] = [];
    const faultLoop = async () => {
      let lastReady = 0;
      for (const planned of plan) {
        while (driving && steps / totalSteps < planned.atProgress) await sleep(100);
        const wait = lastReady + options.gapMs - Date.now();
        if (wait > 0) await sleep(wait);
        const record = await inject(
          planned.kind,
          { stack, outageMs: options.outageMs, gapMs: options.gapMs, say },
          steps / totalSteps,
        );
        faults.push(record);
        lastReady = record.readyAt;
      }
    };
    const reportProgress = async () => {
      const completed = await countCompleted(monitor, setup.organizationId);
      const sent = progress.filter((p) => p.sentAt).length;
      const signed = progress.filter((p) => p.signedAt.length === SIGNERS.length).length;
      const retried = attempts.filter((a) => !a.settled).length;
      say(
        `${seconds(Date.now() - t0).padStart(7)}  envelopes ${next}/${options.envelopes} started, ${sent} sent, ${signed} signed, ${completed ?? '?'} Completed | faults ${faults.length}/${plan.length} | requests ${attempts.length} (${retried} to retry) | webhooks ${receiver.receipts.length}`,
      );
    };
    const ticker = setInterval(() => {
      void reportProgress();
    }, 5000);
    const faultsDone = faultLoop();
    try {
      await Promise.all(Array.from({ length: Math.min(options.concurrency, plans.length) }, lane));
      driving = false;
      await faultsDone;
    } finally {
      driving = false;
    }
    const driveMs = Date.now() - driveStarted;
    say(
      `every envelope driven to its last signature in ${seconds(driveMs)}; waiting for finalization, webhooks and workflows to end…`,
    );

    // ---- Settle ------------------------------------------------------------------------------------------
    const settleStarted = Date.now();
    const unsettled = await settle(
      monitor,
      stack.temporalAddress,
      namespace,
      setup.organizationId,
      options.envelopes,
      receiver.receipts,
      options.settleTimeoutMs,
      say,
    );
    clearInterval(ticker);
    const settleMs = Date.now() - settleStarted;
    say(
      unsettled.length === 0
        ? `settled in ${seconds(settleMs)}`
        : `not settled after ${seconds(settleMs)} (still waiting for ${unsettled.join(', ')}); checking what there is`,
    );

    // ---- Observe and check ---------------------------------------------------------------------------
    say('checking the invariants…');
    const observation = await observe(
      stack,
      monitor,
      setup.organizationId,
      namespace,
      progress,
      receiver.receipts,
    );
    const invariants = checkInvariants(observation);
    const recordedAt = await auditRecordTimes(monitor, setup.organizationId);
    const recovery = faults.map((fault, index) =>
      recoveryOf(
        fault,
        faults[index + 1]?.struckAt ?? Number.POSITIVE_INFINITY,
        attempts,
        recordedAt,
        receiver.receipts,
      ),
    );
    const workflowTasks = await envelopeWorkflowTasks(stack.temporalAddress, namespace, observation);
    ok = invariants.every((i) => i.ok);
    const byOutcome: Record<string, number> = {};
    for (const attempt of attempts) {
      const outcome =
        attempt.status === null
          ? `${attempt.kind}: no answer (${attempt.code})`
          : `${attempt.kind}: ${attempt.status}${attempt.code ? ` ${attempt.code}` : ''}`;
      byOutcome[outcome] = (byOutcome[outcome] ?? 0) + 1;
    }
    const receipts = receiver.receipts;
    const { say: _say, ...reported } = options;
    return {
      options: reported,
      runId,
      dataDir,
      kept: options.keep || !ok,
      durationMs: Date.now() - t0,
      driveMs,
      settleMs,
      unsettled,
      faults,
      recovery,
      unplannedExits: stack.events.filter((e) => e.kind === 'exited'),
      attempts: {
        total: attempts.length,
        retried: attempts.filter((a) => !a.settled).length,
        byOutcome,
        slowestMs: Math.max(0, ...attempts.map((a) => a.endedAt - a.startedAt)),
        slowestBeforeFaultsMs:
          slowestAttempt(attempts, 0, faults[0]?.struckAt ?? Number.POSITIVE_INFINITY)?.ms ?? null,
      },
      workflowTasks,
      webhooks: {
        requests: receipts.length,
        deliveries: new Set(receipts.map((r) => r.deliveryId)).size,
        events: new Set(receipts.map((r) => r.eventId)).size,
        refused: receipts.filter((r) => r.answer === 'refused').length,
        dropped: receipts.filter((r) => r.answer === 'dropped').length,
        repeats: receipts.length - new Set(receipts.map((r) => r.deliveryId)).size,
      },
      invariants,
      ok,
    };
  } finally {
    await monitor.end().catch(() => {});
    await stack.stop();
    activeStack = undefined;
    await receiver.close();
    if (ok && !options.keep) await rm(dataDir, { recursive: true, force: true });
  }
}

export interface Setup {
  organizationId: string;
  templateId: string;
  clientId: string;
  clientSecret: string;
  /** Null without a webhook endpoint. */
  webhookSecret: string | null;
}

/**
 * The schema, then the run's organization, template, OAuth client and (given a receiver) webhook endpoint,
 * through the services. Shared with bench/scale.ts, which runs without webhooks. The template's PDF goes where
 * `storage` says, as the deployment's own processes would put it (the cluster's: S3); by default where this
 * process's configuration says.
 */
export async function prepareOrganization(
  databaseUrl: string,
  receiverUrl: string | null,
  storage: StorageConfig = loadConfig({ ...process.env, SIGIL_ENV: 'development' }).storage,
): Promise<Setup> {
  const orm = await createOrm({ databaseUrl });
  try {
    await migrateToLatest(orm, databaseUrl);
    const em = orm.em.fork();
    const ctx = { em, files: createFileObjects(storage, orm.em) };
    const organization = await createOrganization(ctx, {
      name: 'Chaos run',
      plan: 'Enterprise',
      apiEnabled: true,
    });
    // Far above what the run sends: a 429 would only slow it down.
    await em.nativeUpdate(
      Organization,
      { id: organization.id },
      { ratePerMinute: 1_000_000, uploadRatePerMinute: 1_000_000 },
    );
    const template = await createTemplate(ctx, {
      organizationId: organization.id,
      pdf: await buildDemoPdf('Chaos agreement'),
      filename: 'chaos-agreement.pdf',
      definition: DEMO_TEMPLATE_DEFINITION,
      publish: true,
    });
    const client = await createOAuthClient(ctx, {
      organizationId: organization.id,
      name: 'Chaos integrator',
      scopes: [...SCOPES],
    });
    const endpoint =
      receiverUrl === null
        ? null
        : await createWebhookEndpoint(
            { em, config: { env: 'development' } },
            // Every event type, named one by one (an empty list would mean the same).
            { organizationId: organization.id, url: receiverUrl, eventTypes: [...WEBHOOK_EVENT_TYPES] },
          );
    return {
      organizationId: organization.id,
      templateId: template.id,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      webhookSecret: endpoint?.secret ?? null,
    };
  } finally {
    await orm.close();
  }
}

async function query<T>(pool: pg.Pool, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await pool.query(sql, params)).rows as T[];
}

async function countCompleted(pool: pg.Pool, organizationId: string): Promise<number | undefined> {
  try {
    const [row] = await query<{ count: string }>(
      pool,
      `select count(*) as count from envelope where organization_id = $1 and status = 'Completed'`,
      [organizationId],
    );
    return Number(row?.count ?? 0);
  } catch {
    return undefined;
  }
}

/**
 * Waits until every envelope is Completed, no delivery is pending, every webhook event the audit log implies
 * has been acknowledged by the receiver and no workflow runs any more (an envelope's workflow ends after its
 * last messages); resolves with what it still waits for after `timeoutMs` (empty: settled).
 */
export async function settle(
  pool: pg.Pool,
  temporalAddress: string,
  namespace: string,
  organizationId: string,
  envelopes: number,
  receipts: readonly { eventId: string; answer: string }[],
  timeoutMs: number,
  say: (line: string) => void,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  let toldAt = Date.now();
  const temporal = await connectClient({ address: temporalAddress, namespace });
  let waitingFor = ['a first look'];
  try {
    while (Date.now() < deadline) {
      try {
        const [row] = await query<{ completed: string; pending: string }>(
          pool,
          `select (select count(*) from envelope where organization_id = $1 and status = 'Completed') as completed,
                  (select count(*) from webhook_delivery where organization_id = $1 and status = 'pending') as pending`,
          [organizationId],
        );
        const events = await query<{ id: string }>(
          pool,
          'select id from audit_event where organization_id = $1 and type = any($2)',
          [organizationId, [...WEBHOOK_EVENT_TYPES]],
        );
        const acknowledged = new Set(
          receipts.filter((r) => r.answer === 'acknowledged').map((r) => r.eventId),
        );
        const unacknowledged = events.filter((event) => !acknowledged.has(event.id)).length;
        const running = (await temporal.client.workflow.count("ExecutionStatus = 'Running'")).count;
        const completed = Number(row?.completed ?? 0);
        const pending = Number(row?.pending ?? 0);
        waitingFor = [
          ...(completed < envelopes ? [`${envelopes - completed} envelopes to complete`] : []),
          ...(pending > 0 ? [`${pending} pending deliveries`] : []),
          ...(unacknowledged > 0 ? [`${unacknowledged} events to be acknowledged`] : []),
          ...(running > 0 ? [`${running} running workflows`] : []),
        ];
        if (waitingFor.length === 0) return [];
        // What settling still waits for, every 5 s, so a slow settle says why.
        if (Date.now() - toldAt >= 5000) {
          toldAt = Date.now();
          const names: string[] = [];
          if (running > 0) {
            for await (const workflow of temporal.client.workflow.list({
              query: "ExecutionStatus = 'Running'",
            })) {
              names.push(`${workflow.type} ${workflow.workflowId}`);
              if (names.length === 3) break;
            }
          }
          say(
            `settling: still waiting for ${waitingFor.join(', ')}${names.length ? ` (${names.join('; ')})` : ''}`,
          );
        }
      } catch (error) {
        waitingFor = [`an answer (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`];
      }
      await sleep(1000);
    }
    return waitingFor;
  } finally {
    await temporal.close();
  }
}

/** What the checks need of the deployment: Temporal's address and the environment of the operator CLI. */
export type ObservedDeployment = Pick<ChaosStack, 'temporalAddress' | 'childEnv'>;

/**
 * Reads the deployment's state for the checks. `readFiles` reads every stored file's bytes where they are
 * (the cluster fault run reads them through the S3 API); by default from PostgreSQL.
 */
export async function observe(
  stack: ObservedDeployment,
  pool: pg.Pool,
  organizationId: string,
  namespace: string,
  progress: EnvelopeProgress[],
  receipts: Observation['receipts'],
  readFiles: (pool: pg.Pool) => Promise<Observation['files']> = storedFilesInPostgres,
): Promise<Observation> {
  const envelopes = (
    await query<{
      id: string;
      external_reference: string | null;
      status: string;
      projected_sequence: number;
      projection_error: string | null;
      final_pdf_file_id: string | null;
      audit_trail_file_id: string | null;
    }>(
      pool,
      `select id, external_reference, status, projected_sequence, projection_error, final_pdf_file_id,
              audit_trail_file_id
         from envelope where organization_id = $1`,
      [organizationId],
    )
  ).map((row) => ({
    id: row.id,
    externalReference: row.external_reference,
    status: row.status,
    projectedSequence: row.projected_sequence,
    projectionError: row.projection_error,
    finalPdfFileId: row.final_pdf_file_id,
    auditTrailFileId: row.audit_trail_file_id,
  }));
  const auditEvents = (
    await query<{ id: string; envelope_id: string; sequence: number; type: string }>(
      pool,
      'select id, envelope_id, sequence, type from audit_event where organization_id = $1',
      [organizationId],
    )
  ).map((row) => ({ id: row.id, envelopeId: row.envelope_id, sequence: row.sequence, type: row.type }));
  const files = await readFiles(pool);
  const orphanFileIds = (
    await query<{ id: string }>(
      pool,
      `select f.id from stored_file f
        where not exists (select 1 from envelope e where e.final_pdf_file_id = f.id or e.audit_trail_file_id = f.id)
          and not exists (select 1 from template t where t.file_id = f.id)
          and not exists (select 1 from envelope_field_value v where v.value ->> 'fileId' = f.id::text)`,
    )
  ).map((row) => row.id);
  const deliveries = (
    await query<{
      id: string;
      event_id: string;
      event_type: string;
      status: string;
      replay_of: string | null;
    }>(
      pool,
      'select id, event_id, event_type, status, replay_of from webhook_delivery where organization_id = $1',
      [organizationId],
    )
  ).map((row) => ({
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    replayOf: row.replay_of,
  }));

  const temporal = await connectClient({ address: stack.temporalAddress, namespace });
  const workflows: Observation['workflows'] = [];
  try {
    let index = 0;
    const lane = async () => {
      while (index < envelopes.length) {
        const envelope = envelopes[index] as (typeof envelopes)[number];
        index += 1;
        const handle = temporal.client.workflow.getHandle(envelopeWorkflowId(envelope.id));
        try {
          const description = await handle.describe();
          const status = await handle.query(projectionStatusQuery);
          workflows.push({
            envelopeId: envelope.id,
            executionStatus: description.status.name,
            projectedSequence: status.projectedSequence,
            decidedSequence: status.decidedSequence,
            parked: status.parked !== null,
          });
        } catch (error) {
          workflows.push({
            envelopeId: envelope.id,
            executionStatus: `unknown (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
            projectedSequence: null,
            decidedSequence: null,
            parked: false,
          });
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, lane));
  } finally {
    await temporal.close();
  }

  return {
    plannedReferences: progress.map((p) => p.externalReference),
    clientFailures: progress.flatMap((p) =>
      p.failure ? [{ externalReference: p.externalReference, failure: p.failure }] : [],
    ),
    envelopes,
    auditEvents,
    files,
    orphanFileIds,
    workflows,
    deliveries,
    stuck: await stuckEnvelopes(stack, organizationId),
    receipts: [...receipts],
  };
}

/**
 * Every stored file of the stack (the run's organization is the only one), its bytes read in PostgreSQL's object
 * store (its chunks, in order, by the file's key; a file whose object is missing there reads as not intact).
 */
async function storedFilesInPostgres(pool: pg.Pool): Promise<Observation['files']> {
  return (
    await query<{ id: string; content_type: string; is_pdf: boolean; intact: boolean; template: boolean }>(
      pool,
      `select f.id, f.content_type,
              coalesce(substring(b.bytes from 1 for 5) = '\\x255044462d'::bytea, false) as is_pdf,
              coalesce(encode(sha256(b.bytes), 'hex') = f.sha256, false) as intact,
              exists (select 1 from template t where t.file_id = f.id) as template
         from stored_file f
         left join lateral (
           select string_agg(c.data, ''::bytea order by c.seq) as bytes
             from stored_object o join stored_object_chunk c on c.object_id = o.object_id
            where o.key = f.sha256) b on true`,
    )
  ).map((row) => ({
    id: row.id,
    contentType: row.content_type,
    isPdf: row.is_pdf,
    intact: row.intact,
    template: row.template,
  }));
}

/** The operator's own command: `sigil envelope stuck --json --older-than 0` against the run's stack. */
function stuckEnvelopes(stack: ObservedDeployment, organizationId: string): Promise<Observation['stuck']> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        join(ROOT, 'api/cli/sigil.ts'),
        'envelope',
        'stuck',
        '--org',
        organizationId,
        '--older-than',
        '0',
        '--json',
      ],
      { env: stack.childEnv(), timeout: 120_000 },
      (error, stdout, stderr) => {
        try {
          const parsed = JSON.parse(stdout) as {
            envelopes?: { envelopeId: string; kind: string; reason: string }[];
          };
          if (parsed.envelopes) {
            resolve(parsed.envelopes.map(({ envelopeId, kind, reason }) => ({ envelopeId, kind, reason })));
            return;
          }
        } catch {
          // Reported below.
        }
        resolve(`${error ? `${error.message}: ` : ''}${stderr || stdout}`.trim().slice(0, 500));
      },
    );
  });
}

async function auditRecordTimes(pool: pg.Pool, organizationId: string): Promise<number[]> {
  const rows = await query<{ recorded_at: Date }>(
    pool,
    'select recorded_at from audit_event where organization_id = $1 order by recorded_at',
    [organizationId],
  );
  return rows.map((row) => row.recorded_at.getTime());
}

/** The slowest attempt that ended in [from, until), or null. */
export function slowestAttempt(
  attempts: readonly Attempt[],
  from: number,
  until: number,
): RecoveryFigure['slowestRequest'] {
  let slowest: RecoveryFigure['slowestRequest'] = null;
  for (const attempt of attempts) {
    if (attempt.endedAt < from || attempt.endedAt >= until) continue;
    const ms = attempt.endedAt - attempt.startedAt;
    if (slowest === null || ms > slowest.ms) slowest = { ms, kind: attempt.kind, status: attempt.status };
  }
  return slowest;
}

/** The workflow tasks of the run's envelope workflows (their histories), the ground of the task timeout. */
export async function envelopeWorkflowTasks(
  temporalAddress: string,
  namespace: string,
  observation: Observation,
): Promise<WorkflowTaskFigures> {
  const temporal = await connectClient({ address: temporalAddress, namespace });
  try {
    return await workflowTaskFigures(
      temporal.client,
      observation.envelopes.map((envelope) => envelopeWorkflowId(envelope.id)),
    );
  } finally {
    await temporal.close();
  }
}

export function recoveryOf<Kind extends string>(
  fault: FaultRecord<Kind>,
  nextFaultAt: number,
  attempts: readonly Attempt[],
  auditRecordedAt: readonly number[],
  receipts: readonly { receivedAt: number }[],
): RecoveryFigure<Kind> {
  const firstSuccess: RecoveryFigure['firstSuccess'] = {};
  for (const attempt of attempts) {
    const succeeded = attempt.settled && attempt.status !== null && attempt.status < 300;
    if (!succeeded || attempt.endedAt < fault.at) continue;
    const after = attempt.endedAt - fault.at;
    const known = firstSuccess[attempt.kind];
    if (known === undefined || after < known) firstSuccess[attempt.kind] = after;
  }
  const progress = auditRecordedAt.find((at) => at >= fault.at);
  const webhook = receipts.map((r) => r.receivedAt).filter((at) => at >= fault.at);
  return {
    fault,
    back: fault.readyAt - fault.at,
    firstSuccess,
    workflowProgress: progress === undefined ? null : progress - fault.at,
    webhook: webhook.length === 0 ? null : Math.min(...webhook) - fault.at,
    slowestRequest: slowestAttempt(attempts, fault.struckAt, nextFaultAt),
  };
}

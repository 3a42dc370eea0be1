// `npm run test:cluster` (and part of `npm test`): `npm run cluster`'s deployment — PostgreSQL, the Temporal
// Server's frontend, history, matching and worker services, SeaweedFS with its S3 gateway, two Sigil workers and
// two APIs behind HAProxy — started in a temporary directory; the lifecycle through HAProxy (create from a
// template, send, sign, Completed, documents hash-checked in S3, seals verified, webhooks), then a fault run
// that kills with SIGKILL and starts again, at seeded points, a history process, a matching process, a frontend,
// a Sigil worker, a Sigil API, the S3 gateway and PostgreSQL. Every invariant of the chaos run must hold, with
// the stored files read through the S3 API, no object orphaned and no request answered 500.
// scripts/cluster/fault-run.ts holds the run; docs/deployment.md "Faults the cluster survives" its figures.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, startCluster } from '../../scripts/cluster/cluster.ts';
import {
  CLUSTER_FAULT_KINDS,
  type ClusterFaultReport,
  formatClusterReport,
  runClusterFaults,
} from '../../scripts/cluster/fault-run.ts';

/** A fixed plan, so a failure can be repeated; SIGIL_CLUSTER_SEED for another. */
const SEED = Number(process.env.SIGIL_CLUSTER_SEED ?? '20261205');
/** Sized for CI's two cores: at least these envelopes, driven until every fault has struck. */
const ENVELOPES = Number(process.env.SIGIL_CLUSTER_ENVELOPES ?? '12');
/** The faults, one each by default; SIGIL_CLUSTER_FAULTS=sigil-worker,sigil-worker,… for a measurement. */
const KINDS = (process.env.SIGIL_CLUSTER_FAULTS?.split(',') ?? [...CLUSTER_FAULT_KINDS]).map((kind) => {
  const known = CLUSTER_FAULT_KINDS.find((k) => k === kind.trim());
  if (!known)
    throw new Error(`SIGIL_CLUSTER_FAULTS: unknown fault ${kind} (known: ${CLUSTER_FAULT_KINDS.join(', ')})`);
  return known;
});

const say = (line: string) => process.stdout.write(`[cluster-faults] ${line}\n`);
let dataDir: string;
let cluster: Cluster | undefined;
let report: ClusterFaultReport | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sigil-cluster-faults-'));
  cluster = await startCluster({
    dataDir,
    sigilWorkers: 2,
    apis: 2,
    webUi: false,
    env: {
      // Every signer request and token fetch of the run comes from one address.
      SIGNING_RATE_LIMIT_PER_MINUTE: '1000000',
      TOKEN_RATE_LIMIT_PER_MINUTE: '10000',
      // The documented webhook retry schedule, shortened (30 s becomes 0.6 s), so retries happen within the run.
      WEBHOOK_RETRY_DELAY_SCALE: '0.02',
    },
    say,
  });
});

afterAll(async () => {
  await cluster?.stop();
  // Kept for the logs when the run failed.
  if (report?.ok) await rm(dataDir, { recursive: true, force: true });
  else say(`data and logs kept in ${dataDir}`);
});

describe('the cluster', () => {
  it('completes the lifecycle through HAProxy and keeps every invariant while each kind of part is killed and restarted', async () => {
    if (!cluster) throw new Error('the cluster did not start');
    report = await runClusterFaults(cluster, {
      envelopes: ENVELOPES,
      concurrency: 3,
      seed: SEED,
      kinds: KINDS,
      outageMs: 2_000,
      gapMs: 2_000,
      settleTimeoutMs: 180_000,
      refuseShare: 0.05,
      dropShare: 0.05,
      webhookRetryDelayScale: 0.02,
      orphanGraceMs: 60 * 60_000,
      say,
    });
    process.stdout.write(`${formatClusterReport(report)}\n`);
    expect(report.lifecycle.checks.filter((check) => !check.ok)).toEqual([]);
    expect(report.faults.map((fault) => fault.kind).sort()).toEqual([...KINDS].sort());
    // Every invariant, by name, so a failure says which.
    expect(report.invariants.filter((invariant) => !invariant.ok)).toEqual([]);
    expect(report.invariants.map((invariant) => invariant.name)).toEqual(
      expect.arrayContaining([
        'no orphaned object',
        'no request answered 500',
        'the lifecycle through HAProxy',
      ]),
    );
    expect(report.attempts.internalErrors).toBe(0);
    expect(report.unsettled).toEqual([]);
  });
});

// The production Temporal Server (provisioning/temporal-server.ts, scripts/cluster/temporal-server.ts) on the
// suite's PostgreSQL, in two databases of its own: its four services as four processes, a Sigil envelope worker
// and client pointed at its frontend, an envelope taken from send to Completed with its final PDF; then the
// history process is killed (SIGKILL) and started again, and a second envelope completes. Prints how long the
// first start and the restart took to serve.
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities, finalizeSealingSettings } from '../../activities/index.ts';
import { webhookDeliverySettings } from '../../activities/webhooks.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { provisionTemporalServer, type TemporalServerFiles } from '../../provisioning/temporal-server.ts';
import {
  applyTemporalSchema,
  startTemporalCluster,
  type TemporalCluster,
} from '../../scripts/cluster/temporal-server.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { createFileObjects } from '../../storage/create-object-store.ts';
import { connectClient } from '../../temporal/connection.ts';
import { createEnvelopeWorker, createWebhookWorker } from '../../temporal/worker/worker.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { createOrganizationWithTemplate, type TestContext, testConfig } from '../support/context.ts';
import { installQuietRuntime } from '../support/infrastructure.ts';
import { completeSealedEnvelope } from '../support/sealed-envelope.ts';

const suffix = randomBytes(4).toString('hex');
const databases = { temporal: `temporal_${suffix}`, visibility: `temporal_visibility_${suffix}` };
const NAMESPACE = 'sigil-cluster';
const say = (line: string) => process.stdout.write(`[temporal-server-cluster] ${line}\n`);

let files: TemporalServerFiles;
let dir: string;
let cluster: TemporalCluster | undefined;
let orm: Orm;
let ctx: TestContext;
const cleanups: Array<() => Promise<unknown>> = [];

async function onSuiteServer(sql: string): Promise<void> {
  const url = new URL(inject('databaseUrl'));
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

beforeAll(async () => {
  const config = testConfig();
  // `npm test`'s pretest built it; a run without it builds it here once (about 4 minutes).
  files = await provisionTemporalServer({
    serverDir: process.env.TEMPORAL_SERVER_DIR,
    cacheDir: config.cacheDir,
    log: say,
  });
  dir = await mkdtemp(join(tmpdir(), 'sigil-temporal-server-'));
  await chmod(dir, 0o755);
  const started = Date.now();
  cluster = await startTemporalCluster({
    files,
    postgresUrl: inject('databaseUrl'),
    databases,
    dir,
    namespace: NAMESPACE,
    log: say,
  });
  say(`first start served after ${Date.now() - started} ms (schemas included)`);

  orm = await createOrm({ databaseUrl: inject('databaseUrl'), poolMax: 4 });
  cleanups.push(() => orm.close());
  const temporal = await connectClient({ address: cluster.address, namespace: NAMESPACE });
  cleanups.push(() => temporal.close());
  ctx = {
    orm,
    get em() {
      return orm.em.fork();
    },
    temporal: temporal.client,
    config: { env: 'test', publicBaseUrl: 'http://localhost:3000' },
    files: createFileObjects({ kind: 'postgres' }, orm.em),
    close: async () => {},
  };

  installQuietRuntime();
  const connection = await NativeConnection.connect({ address: cluster.address });
  cleanups.push(() => connection.close());
  const workerOptions = {
    connection,
    namespace: NAMESPACE,
    activities: createActivities({
      orm,
      webhooks: webhookDeliverySettings('test'),
      notifications: { env: 'test', publicBaseUrl: config.publicBaseUrl },
      sealing: finalizeSealingSettings(config),
    }),
    workflowBundle: { codePath: inject('workflowBundlePath') },
  };
  for (const worker of [
    await createEnvelopeWorker(workerOptions),
    await createWebhookWorker(workerOptions),
  ]) {
    const running = worker.run();
    cleanups.push(async () => {
      worker.shutdown();
      await running;
    });
  }
}, 600_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  await cluster?.stop();
  await onSuiteServer(`drop database if exists ${databases.temporal} with (force)`).catch(() => {});
  await onSuiteServer(`drop database if exists ${databases.visibility} with (force)`).catch(() => {});
  if (dir) await rm(dir, { recursive: true, force: true });
}, 120_000);

async function expectCompleted(organizationId: string) {
  const sealed = await completeSealedEnvelope(ctx, organizationId);
  const view = await findEnvelope(ctx, organizationId, sealed.envelopeId);
  expect(view.envelope.status).toBe('Completed');
  expect(Buffer.from(sealed.finalPdf.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
  expect(Buffer.from(sealed.auditTrail.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
  // The workflow ran on this cluster, not on the suite's dev server.
  const description = await ctx.temporal.workflow.getHandle(envelopeWorkflowId(sealed.envelopeId)).describe();
  expect(description.status.name).toBe('COMPLETED');
  return sealed;
}

describe('the production Temporal Server, its services as four processes on PostgreSQL', () => {
  it('applying the schemas again changes nothing', async () => {
    const lines: string[] = [];
    for (const [database, schemaDir] of [
      [databases.temporal, files.temporalSchemaDir],
      [databases.visibility, files.visibilitySchemaDir],
    ] as const) {
      await applyTemporalSchema({
        files,
        postgresUrl: inject('databaseUrl'),
        database,
        schemaDir,
        log: (line) => lines.push(line),
      });
    }
    expect(lines.filter((line) => line.startsWith('created database'))).toEqual([]);
    expect(lines.filter((line) => line.includes('schema set up'))).toEqual([]);
    expect(lines.filter((line) => /schema at version \d+\.\d+/.test(line))).toHaveLength(2);
  }, 120_000);

  it('completes an envelope, loses the history process to SIGKILL, and completes another after its restart', async () => {
    if (!cluster) throw new Error('no cluster');
    const { organization } = await createOrganizationWithTemplate(ctx);
    const first = await expectCompleted(organization.id);
    say(`envelope ${first.envelopeId} Completed with its final PDF (${first.finalPdf.length} bytes)`);

    const historyPid = cluster.pid('history');
    await cluster.kill('history', 'SIGKILL');
    const killed = Date.now();
    await cluster.restart('history');
    expect(cluster.pid('history')).not.toBe(historyPid);
    const serving = await cluster.waitUntilServing();
    say(`history: SIGKILL → restarted → serving again in ${Date.now() - killed} ms (probe ${serving} ms)`);

    const second = await expectCompleted(organization.id);
    expect(second.envelopeId).not.toBe(first.envelopeId);
    say(`envelope ${second.envelopeId} Completed after the restart`);
  }, 180_000);
});

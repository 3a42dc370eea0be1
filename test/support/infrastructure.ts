// Real infrastructure for tests and the history recorder: embedded PostgreSQL with the schema applied, the
// Temporal dev server (Temporal CLI) through @temporalio/testing, and the envelope and webhook workers running
// the real activities. Nothing is faked.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime } from '@temporalio/worker';
import { createActivities, finalizeSealingSettings } from '../../activities/index.ts';
import { webhookDeliverySettings } from '../../activities/webhooks.ts';
import { loadConfig } from '../../config/config.ts';
import { spawnEmbeddedPostgres } from '../../db/embedded-postgres-process.ts';
import { createOrm, migrateToLatest, type Orm } from '../../db/orm.ts';
import { freePort } from '../../scripts/ports.ts';
import { explainProvisioningFailure } from '../../temporal/provisioning/failures.ts';
import { provisionDevServer } from '../../temporal/provisioning/temporal-cli.ts';
import { ensureSearchAttributes } from '../../temporal/search-attributes.ts';
import { createEnvelopeWorker, createWebhookWorker, WORKFLOWS_PATH } from '../../temporal/worker/worker.ts';

export interface TestInfrastructure {
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  /** Path of the pre-built workflow bundle, for workers that tests start themselves. */
  workflowBundlePath: string;
  env: TestWorkflowEnvironment;
  orm: Orm;
  stop(): Promise<void>;
}

let runtimeInstalled = false;

/** Keeps the SDK's own logging to warnings, so test output stays readable. */
export function installQuietRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  Runtime.install({ logger: new DefaultLogger('WARN') });
}

export { freePort };

export async function startTestInfrastructure(log: (line: string) => void): Promise<TestInfrastructure> {
  installQuietRuntime();
  const config = loadConfig({ ...process.env, SIGIL_ENV: 'test' });
  const dir = await mkdtemp(join(tmpdir(), 'sigil-test-'));
  // Run as root, PostgreSQL runs as the `postgres` user, which must be able to enter this directory.
  await chmod(dir, 0o755);
  const cleanups: Array<() => Promise<unknown>> = [() => rm(dir, { recursive: true, force: true })];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  try {
    const started = Date.now();
    const postgres = await spawnEmbeddedPostgres({ dataDir: join(dir, 'postgres'), port: await freePort() });
    cleanups.push(() => postgres.stop());
    const orm = await createOrm({ databaseUrl: postgres.url, poolMax: config.database.poolMax });
    cleanups.push(() => orm.close());
    await migrateToLatest(orm, postgres.url);
    log(`PostgreSQL ready in ${Date.now() - started} ms`);

    const devServer = await provisionDevServer({
      cliPath: config.temporal.cliPath,
      cacheDir: config.cacheDir,
      log,
    });
    let env: TestWorkflowEnvironment;
    try {
      env = await TestWorkflowEnvironment.createLocal({
        server: { executable: devServer.executable, ip: '127.0.0.1' },
      });
    } catch (error) {
      throw explainProvisioningFailure('dev-server', error, { cacheDir: config.cacheDir });
    }
    cleanups.push(() => env.teardown());
    await ensureSearchAttributes(env.connection, env.namespace ?? 'default');
    log(`Temporal dev server ready at ${env.connection.options.address}`);

    const bundle = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      logger: new DefaultLogger('WARN'),
    });
    const workflowBundlePath = join(dir, 'workflow-bundle.js');
    await writeFile(workflowBundlePath, bundle.code);

    const workerOptions = {
      connection: env.nativeConnection,
      namespace: env.namespace ?? 'default',
      // Test receivers listen on 127.0.0.1, as in development.
      // Notifications: no providers, so every message is captured (GET /api/dev/notifications).
      activities: createActivities({
        orm,
        webhooks: webhookDeliverySettings('test'),
        notifications: { env: 'test', publicBaseUrl: config.publicBaseUrl },
        sealing: finalizeSealingSettings(config),
      }),
      workflowBundle: { codePath: workflowBundlePath },
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
    log(`envelope and webhook workers running (${Date.now() - started} ms since start)`);

    return {
      databaseUrl: postgres.url,
      temporalAddress: env.connection.options.address,
      namespace: env.namespace ?? 'default',
      workflowBundlePath,
      env,
      orm,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

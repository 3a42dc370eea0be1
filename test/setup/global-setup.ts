// Vitest global setup: the web app's build (when stale), one PostgreSQL, one Temporal dev server and one
// envelope worker for the whole run; the time-skipping test server is resolved here and started by the tests
// that need it.
import type { TestProject } from 'vitest/node';
import { loadConfig } from '../../config/config.ts';
import { ensureWebBuild } from '../../scripts/ensure-web-build.ts';
import { explainProvisioningFailure } from '../../temporal/provisioning/failures.ts';
import { provisionTimeSkippingServer } from '../../temporal/provisioning/test-server.ts';
import { startTestInfrastructure } from '../support/infrastructure.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    namespace: string;
    workflowBundlePath: string;
    timeSkippingServerPath: string;
  }
}

export default async function setup(project: TestProject) {
  const log = (line: string) => process.stdout.write(`[test setup] ${line}\n`);
  // The browser tests and the web app's routes need web/build; built here when missing or stale.
  await ensureWebBuild(log);
  const infrastructure = await startTestInfrastructure(log);
  const config = loadConfig({ ...process.env, SIGIL_ENV: 'test' });
  const timeSkipping = await provisionTimeSkippingServer({
    testServerPath: config.temporal.testServerPath,
    cacheDir: config.cacheDir,
    log,
  }).catch((error: unknown) => {
    throw explainProvisioningFailure('test-server', error, { cacheDir: config.cacheDir });
  });
  if (!timeSkipping.path) {
    throw explainProvisioningFailure(
      'test-server',
      new Error('no time-skipping test server binary available'),
    );
  }
  project.provide('databaseUrl', infrastructure.databaseUrl);
  project.provide('temporalAddress', infrastructure.temporalAddress);
  project.provide('namespace', infrastructure.namespace);
  project.provide('workflowBundlePath', infrastructure.workflowBundlePath);
  project.provide('timeSkippingServerPath', timeSkipping.path);
  return () => infrastructure.stop();
}

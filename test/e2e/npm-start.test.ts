// `npm start` as a newcomer runs it: everything comes up, an envelope sent with the CLI runs as a workflow,
// Ctrl-C stops every part, and a second start finds the same data and the same running workflow.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedPostgresUrl } from '../../config/config.ts';
import { connectClient } from '../../temporal/connection.ts';
import { freePort } from '../support/infrastructure.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const READY = /Sigil is running/;

interface Started {
  child: ChildProcess;
  output: () => string;
}

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
});

function start(env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn(process.execPath, [join(ROOT, 'scripts/start.ts')], { env, cwd: ROOT });
  children.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm start did not become ready:\n${output}`)), 120_000);
    child.stdout.on('data', () => {
      if (READY.test(output)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output}`));
    });
  });
}

function stop(started: Started): Promise<number | null> {
  return new Promise((resolve) => {
    started.child.once('exit', (code) => resolve(code));
    started.child.kill('SIGINT');
  });
}

function sigil(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [join(ROOT, 'api/cli/sigil.ts'), ...args], { env }, (error, stdout, stderr) =>
      error ? reject(new Error(`${stderr}${stdout}`)) : resolve(stdout),
    );
  });
}

describe('npm start', () => {
  it('starts everything, survives a restart with its data and workflows, and stops cleanly', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'sigil-start-'));
    await chmod(dataDir, 0o755);
    const ports = {
      PORT: await freePort(),
      TEMPORAL_PORT: await freePort(),
      TEMPORAL_UI_PORT: await freePort(),
      EMBEDDED_POSTGRES_PORT: await freePort(),
    };
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SIGIL_ENV: 'development',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'info',
      ...Object.fromEntries(Object.entries(ports).map(([key, value]) => [key, String(value)])),
    };
    delete env.DATABASE_URL;
    delete env.TEMPORAL_ADDRESS;
    try {
      const first = await start(env);
      expect(first.output()).toContain(`http://localhost:${ports.PORT}`);
      expect(first.output()).toContain(`Temporal Web UI     http://localhost:${ports.TEMPORAL_UI_PORT}`);
      expect(first.output()).toMatch(/OAuth client_secret \S{43}/);

      const health = await fetch(`http://127.0.0.1:${ports.PORT}/api/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({
        status: 'ok',
        db: 'ok',
        temporal: 'ok',
        projection: { stuck: 0 },
      });
      const webUi = await fetch(`http://127.0.0.1:${ports.TEMPORAL_UI_PORT}/`);
      expect(webUi.status).toBe(200);

      const demo = JSON.parse(await readFile(join(dataDir, 'demo.json'), 'utf8'));
      const recipients = join(dataDir, 'recipients.json');
      await writeFile(
        recipients,
        JSON.stringify([
          { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
          { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
        ]),
      );
      const cliEnv = {
        ...env,
        DATABASE_URL: embeddedPostgresUrl(ports.EMBEDDED_POSTGRES_PORT),
        TEMPORAL_ADDRESS: `127.0.0.1:${ports.TEMPORAL_PORT}`,
      };
      const sent = JSON.parse(
        await sigil(
          [
            'envelope',
            'send',
            '--org',
            demo.organizationId,
            '--template',
            demo.templateId,
            '--recipients',
            recipients,
            '--external-reference',
            'E2E-1',
            '--json',
          ],
          cliEnv,
        ),
      );
      expect(sent.state.status).toBe('Sent');

      expect(await stop(first)).toBe(0);
      for (const part of ['api', 'worker', 'Temporal dev server', 'PostgreSQL']) {
        expect(first.output()).toContain(`stopped ${part}`);
      }
      await expect(fetch(`http://127.0.0.1:${ports.PORT}/api/health`)).rejects.toThrow();

      const second = await start(env);
      expect(second.output()).toContain(`OAuth client_id     ${demo.clientId}`);
      expect(second.output()).toContain('database schema is up to date');
      const temporal = await connectClient({ address: cliEnv.TEMPORAL_ADDRESS, namespace: 'default' });
      try {
        const found = [];
        for await (const execution of temporal.client.workflow.list({
          query: `SigilExternalReference = 'E2E-1' AND SigilOrganizationId = '${demo.organizationId}'`,
        })) {
          found.push(execution);
        }
        expect(found.map((execution) => [execution.workflowId, execution.status.name])).toEqual([
          [sent.workflowId, 'RUNNING'],
        ]);
      } finally {
        await temporal.close();
      }
      expect(await stop(second)).toBe(0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

// `npm run migrate` (db/migrate-cli.ts) as an operator runs it: against the test database it lists every
// migration as applied and finds nothing to apply; against an unreachable server it fails with exit 1 and
// says where it tried, without the password.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, inject, it } from 'vitest';
import { migrations } from '../../db/migrations/index.ts';
import { freePort } from '../support/infrastructure.ts';

const CLI = fileURLToPath(new URL('../../db/migrate-cli.ts', import.meta.url));

function migrate(args: string[], databaseUrl: string) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...process.env, SIGIL_ENV: 'test', DATABASE_URL: databaseUrl }, timeout: 300_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

it('lists the applied migrations and finds nothing pending on a migrated database', async () => {
  const listed = await migrate(['--list'], inject('databaseUrl'));
  expect(listed.code, listed.stderr).toBe(0);
  for (const migration of migrations) expect(listed.stdout).toContain(`applied  ${migration.name}`);
  expect(listed.stdout).not.toContain('pending');
  const applied = await migrate([], inject('databaseUrl'));
  expect(applied.code, applied.stderr).toBe(0);
  expect(applied.stdout).toMatch(/is up to date/);
});

it('fails with exit 1 naming the server, without its password, when PostgreSQL cannot be reached', async () => {
  const url = `postgresql://sigil:hunter2-secret@127.0.0.1:${await freePort()}/sigil`;
  const failed = await migrate([], url);
  expect(failed.code).toBe(1);
  expect(failed.stderr).toMatch(/Could not migrate postgresql:\/\/sigil:.*@127\.0\.0\.1/);
  expect(failed.stderr).not.toContain('hunter2-secret');
  expect((await migrate(['--bogus'], url)).code).toBe(64);
});

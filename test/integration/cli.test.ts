// The operator CLI, run as a real process against the test PostgreSQL and Temporal.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OAuthClientSecret } from '../../db/entities/index.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { connectClient, type TemporalClientHandle } from '../../temporal/connection.ts';
import { freePort } from '../support/infrastructure.ts';

const CLI = fileURLToPath(new URL('../../api/cli/sigil.ts', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function sigil(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: {
          ...process.env,
          DATABASE_URL: inject('databaseUrl'),
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          TEMPORAL_NAMESPACE: inject('namespace'),
          ...env,
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function sigilJson<T = Record<string, unknown>>(args: string[]): Promise<T> {
  const run = await sigil([...args, '--json']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as T;
}

let dir: string;
let orm: Orm;
let temporal: TemporalClientHandle;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sigil-cli-'));
  orm = await createOrm({ databaseUrl: inject('databaseUrl'), poolMax: 2 });
  temporal = await connectClient({ address: inject('temporalAddress'), namespace: inject('namespace') });
});
afterAll(async () => {
  await temporal.close();
  await orm.close();
  await rm(dir, { recursive: true, force: true });
});

describe('sigil CLI', () => {
  it('creates an organization, a client, a template and sends an envelope', async () => {
    const org = await sigilJson<{ id: string; plan: string; apiEnabled: boolean }>([
      'org',
      'create',
      '--name',
      'CLI Org',
      '--plan',
      'Premium',
      '--api-enabled',
    ]);
    expect(org).toMatchObject({ plan: 'Premium', apiEnabled: true });

    const client = await sigilJson<{ client_id: string; client_secret: string; ip_allowlist: string[] }>([
      'client',
      'create',
      '--org',
      org.id,
      '--name',
      'ERP',
      '--scopes',
      'envelopes.read envelopes.write',
      '--allowlist',
      '10.0.0.0/8, 2001:db8::/32',
    ]);
    expect(client.client_secret).toMatch(/^[\w-]{43}$/);
    expect(client.ip_allowlist).toEqual(['10.0.0.0/8', '2001:db8::/32']);
    const secrets = await orm.em.fork().find(OAuthClientSecret, {});
    expect(secrets.some((s) => s.secretHash.includes(client.client_secret))).toBe(false);

    const pdf = join(dir, 'agreement.pdf');
    const definition = join(dir, 'definition.json');
    await writeFile(pdf, await buildDemoPdf());
    await writeFile(definition, JSON.stringify(DEMO_TEMPLATE_DEFINITION));
    const template = await sigilJson<{ id: string; status: string }>([
      'template',
      'create',
      '--org',
      org.id,
      '--pdf',
      pdf,
      '--definition',
      definition,
      '--publish',
    ]);
    expect(template.status).toBe('Published');

    const recipients = join(dir, 'recipients.json');
    await writeFile(
      recipients,
      JSON.stringify([
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
      ]),
    );
    const sent = await sigilJson<{ envelopeId: string; workflowId: string; state: { status: string } }>([
      'envelope',
      'send',
      '--org',
      org.id,
      '--template',
      template.id,
      '--recipients',
      recipients,
      '--external-reference',
      'CLI-42',
    ]);
    expect(sent.state.status).toBe('Sent');
    const retry = await sigil([
      'envelope',
      'retry-final-pdf',
      '--org',
      org.id,
      '--envelope',
      sent.envelopeId,
    ]);
    expect(retry.code).toBe(1);
    expect(retry.stderr).toMatch(/is Sent; only a FinalPdfFailed envelope is finalized again/);
    expect(sent.workflowId).toBe(`envelope/${sent.envelopeId}`);
    const description = await temporal.client.workflow.getHandle(sent.workflowId).describe();
    expect(description.status.name).toBe('RUNNING');

    // Its reminder and deadline settings: the organization's defaults, shown and changed while it is open.
    const shown = await sigilJson<{ deadlineSettings: Record<string, unknown> }>([
      'envelope',
      'settings',
      '--org',
      org.id,
      '--envelope',
      sent.envelopeId,
    ]);
    expect(shown.deadlineSettings).toEqual({
      reminderIntervalDays: null,
      maxAutomaticReminders: 3,
      expiringSoonDays: 0,
      expiredExtensionGraceDays: 30,
    });
    const changed = await sigilJson<{ deadlineSettings: Record<string, unknown> }>([
      'envelope',
      'settings',
      '--org',
      org.id,
      '--envelope',
      sent.envelopeId,
      '--reminder-interval-days',
      '2',
      '--expiring-soon-days',
      '3',
    ]);
    expect(changed.deadlineSettings).toMatchObject({ reminderIntervalDays: 2, expiringSoonDays: 3 });
    const text = await sigil(['envelope', 'settings', '--org', org.id, '--envelope', sent.envelopeId]);
    expect(text.stdout).toContain('automatic reminders   every 2 day(s), at most 3');
    expect(text.stdout).toContain('expiring-soon warning 3 day(s) before the deadline');
    const refused = await sigil([
      'envelope',
      'settings',
      '--org',
      org.id,
      '--envelope',
      sent.envelopeId,
      '--expiring-soon-days',
      'soon',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/expiringSoonDays/);
  });

  it('prints a clear error and exits non-zero on bad input', async () => {
    const badPlan = await sigil(['org', 'create', '--name', 'X', '--plan', 'Gold']);
    expect(badPlan.code).toBe(1);
    expect(badPlan.stderr).toMatch(
      /plan must be one of Starter, Professional, Business, Premium, Enterprise/,
    );

    const missing = await sigil(['client', 'create', '--name', 'X', '--scopes', 'envelopes.read', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toEqual({
      error: { code: 'invalid_request', message: '--org is required.', details: [] },
    });

    const unknown = await sigil(['envelope', 'explode']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/Unknown command "envelope explode"/);

    const noFile = await sigil([
      'template',
      'create',
      '--org',
      'x',
      '--pdf',
      join(dir, 'nope.pdf'),
      '--definition',
      'x',
    ]);
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toMatch(/Cannot read the PDF file .*nope\.pdf: ENOENT/);
  });

  it('says which database it cannot reach, without the password', async () => {
    const port = await freePort();
    const run = await sigil(['org', 'create', '--name', 'X', '--plan', 'Business'], {
      DATABASE_URL: `postgresql://sigil:very-secret@127.0.0.1:${port}/sigil`,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      new RegExp(`Cannot reach PostgreSQL at postgresql://sigil:\\*\\*\\*@127.0.0.1:${port}/sigil`),
    );
    expect(run.stderr).not.toMatch(/very-secret/);
  });
});

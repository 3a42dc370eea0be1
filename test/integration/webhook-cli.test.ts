// `sigil webhook …`, run as a real process against the test PostgreSQL and Temporal, delivering through the
// shared worker to a receiver on 127.0.0.1 that checks the signatures itself.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startWebhookReceiver, verifies, type WebhookReceiver } from '../support/webhook-receiver.ts';

const CLI = fileURLToPath(new URL('../../api/cli/sigil.ts', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function sigil(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: {
          ...process.env,
          SIGIL_ENV: 'development',
          DATABASE_URL: inject('databaseUrl'),
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          TEMPORAL_NAMESPACE: inject('namespace'),
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

interface Endpoint {
  id: string;
  url: string;
  eventTypes: string[];
  enabled: boolean;
  secret?: string;
  secretHint: string;
  previousSecretExpiresAt: string | null;
}

interface Delivery {
  id: string;
  status: string;
  attemptCount: number;
  lastStatusCode: number | null;
  eventId: string;
  replayOf: string | null;
  kind: string;
}

let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(() => receiver?.close());

describe('sigil webhook', () => {
  it('creates, tests, rotates, updates, lists deliveries, replays and deletes an endpoint', async () => {
    const org = await sigilJson<{ id: string }>([
      'org',
      'create',
      '--name',
      'Hooks CLI',
      '--plan',
      'Business',
    ]);
    const path = `/cli/${randomUUID()}`;
    const ours = (request: { path: string }) => request.path === path;

    const created = await sigilJson<Endpoint>([
      'webhook',
      'create',
      '--org',
      org.id,
      '--url',
      `${receiver.url}${path}`,
      '--events',
      'envelope.completed recipient.completed',
    ]);
    expect(created).toMatchObject({
      url: `${receiver.url}${path}`,
      eventTypes: ['envelope.completed', 'recipient.completed'],
      enabled: true,
    });
    const secret = created.secret as string;
    expect(secret).toMatch(/^whsec_/);

    const listed = await sigil(['webhook', 'list', '--org', org.id]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(created.id);
    expect(listed.stdout).toContain(`…${secret.slice(-4)}`);
    expect(listed.stdout).not.toContain(secret);

    const tested = await sigilJson<Delivery>([
      'webhook',
      'test',
      '--org',
      org.id,
      '--endpoint',
      created.id,
      '--wait',
    ]);
    expect(tested).toMatchObject({ kind: 'test', status: 'succeeded', attemptCount: 1, lastStatusCode: 200 });
    const [first] = await receiver.waitFor(1, ours);
    if (!first) throw new Error('no request');
    expect(verifies(first, secret)).toBe(true);

    const rotated = await sigilJson<Endpoint>([
      'webhook',
      'rotate-secret',
      '--org',
      org.id,
      '--endpoint',
      created.id,
    ]);
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.previousSecretExpiresAt).not.toBeNull();
    await sigilJson<Delivery>(['webhook', 'test', '--org', org.id, '--endpoint', created.id, '--wait']);
    const [, second] = await receiver.waitFor(2, ours);
    if (!second) throw new Error('no request');
    expect(verifies(second, rotated.secret as string)).toBe(true);
    expect(verifies(second, secret, true)).toBe(true);

    const updated = await sigilJson<Endpoint>([
      'webhook',
      'update',
      '--org',
      org.id,
      '--endpoint',
      created.id,
      '--events',
      'all',
      '--disable',
    ]);
    expect(updated).toMatchObject({ eventTypes: [], enabled: false });
    expect(updated).not.toHaveProperty('secret');

    const deliveries = await sigilJson<Delivery[]>([
      'webhook',
      'deliveries',
      '--org',
      org.id,
      '--endpoint',
      created.id,
    ]);
    expect(deliveries.map((delivery) => delivery.id)).toEqual([expect.any(String), tested.id]);

    // Test deliveries and replays are explicit: delivered even while the endpoint is disabled.
    const replayed = await sigilJson<Delivery>([
      'webhook',
      'replay',
      '--org',
      org.id,
      '--delivery',
      tested.id,
      '--wait',
    ]);
    expect(replayed).toMatchObject({ replayOf: tested.id, eventId: tested.eventId, status: 'succeeded' });
    expect(replayed.id).not.toBe(tested.id);
    const [, , third] = await receiver.waitFor(3, ours);
    expect(third?.rawBody).toBe(first.rawBody);

    const text = await sigil(['webhook', 'deliveries', '--org', org.id]);
    expect(text.stdout).toContain(`replay of ${tested.id}`);
    expect(text.stdout).toContain('succeeded');

    expect(await sigilJson(['webhook', 'delete', '--org', org.id, '--endpoint', created.id])).toEqual({
      id: created.id,
      deleted: true,
    });
    expect(await sigilJson(['webhook', 'list', '--org', org.id])).toEqual([]);
  });

  it('prints the secret once in text, and fails clearly', async () => {
    const org = await sigilJson<{ id: string }>([
      'org',
      'create',
      '--name',
      'Hooks CLI 2',
      '--plan',
      'Professional',
    ]);
    const created = await sigil(['webhook', 'create', '--org', org.id, '--url', `${receiver.url}/text`]);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/signing secret whsec_[\w-]{43}/);
    expect(created.stdout).toContain('shown only now');

    const missing = await sigil(['webhook', 'create', '--org', org.id]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('--url is required');

    const starter = await sigilJson<{ id: string }>([
      'org',
      'create',
      '--name',
      'Small',
      '--plan',
      'Starter',
    ]);
    const refused = await sigil([
      'webhook',
      'create',
      '--org',
      starter.id,
      '--url',
      `${receiver.url}/x`,
      '--json',
    ]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('Webhooks are not included in the Starter plan'),
    });

    const foreign = await sigil([
      'webhook',
      'test',
      '--org',
      starter.id,
      '--endpoint',
      randomUUID(),
      '--json',
    ]);
    expect(foreign.code).toBe(1);
    expect(JSON.parse(foreign.stdout).error.code).toBe('forbidden');
    const unknown = await sigil([
      'webhook',
      'rotate-secret',
      '--org',
      org.id,
      '--endpoint',
      randomUUID(),
      '--json',
    ]);
    expect(JSON.parse(unknown.stdout).error.code).toBe('not_found');

    const ftp = await sigil(['webhook', 'create', '--org', org.id, '--url', 'ftp://example.com/x']);
    expect(ftp.code).toBe(1);
    expect(ftp.stderr).toContain('Invalid webhook URL');

    const help = await sigil(['--help']);
    expect(help.stdout).toContain('webhook rotate-secret --org ORG_ID --endpoint ENDPOINT_ID');
  });
});

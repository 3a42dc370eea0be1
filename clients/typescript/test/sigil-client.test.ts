// The TypeScript client (clients/typescript) against the live server: the API on a real port with the shared test
// PostgreSQL, Temporal and worker, an OAuth client of a test organization. A create-send-get-list-download round
// trip, the token renewed after the server expired it, a retry after a lost answer reusing the call's
// Idempotency-Key (the server made one envelope), a 400 as a SigilError naming the field, cursor iteration over
// several pages, verifyWebhook on a real delivery (and refusing a tampered body, an old timestamp, a wrong
// secret, and during a rotation accepting either secret), the committed schema.d.ts matching the served
// document, and docs/clients.md's TypeScript example executed as written.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OPENAPI_PATH } from '../../../api/http/openapi.ts';
import { OAuthAccessToken, Organization, StoredFile } from '../../../db/entities/index.ts';
import { buildDemoPdf } from '../../../scripts/demo/demo-pdf.ts';
import { CLIENT_TYPES, clientTypesFrom } from '../../../scripts/generate-client-types.ts';
import {
  type ApiHarness,
  type Integrator,
  listenLocally,
  newIntegrator,
  openApiHarness,
} from '../../../test/support/api.ts';
import { TWO_SIGNERS } from '../../../test/support/context.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import {
  type CreateEnvelopeRequest,
  SigilClient,
  type SigilClientOptions,
  SigilError,
  verifyWebhook,
  WebhookVerificationError,
} from '../src/index.ts';

let harness: ApiHarness;
let baseUrl: string;
let integrator: Integrator;
let receiver: WebhookReceiver;

beforeAll(async () => {
  harness = await openApiHarness();
  baseUrl = await listenLocally(harness.app);
  integrator = await newIntegrator(harness);
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await harness?.close();
});

/** What the client sent, attempt by attempt (method, path, status or 'network error', Idempotency-Key). */
interface Sent {
  method: string;
  path: string;
  status: number | 'lost';
  idempotencyKey: string | null;
}

/**
 * A client of the test organization whose requests go to the live server through a recording fetch;
 * `loseAnswer(request)` returning true makes that attempt's answer get lost after the server handled it.
 */
function clientOf(
  options: Partial<SigilClientOptions> & { loseAnswer?: (request: Request) => boolean } = {},
) {
  const sent: Sent[] = [];
  const { loseAnswer, ...rest } = options;
  const client = new SigilClient({
    baseUrl,
    clientId: integrator.clientId,
    clientSecret: integrator.clientSecret,
    retry: { baseDelayMs: 20 },
    ...rest,
    fetch: async (request) => {
      const record: Sent = {
        method: request.method,
        path: new URL(request.url).pathname,
        status: 'lost',
        idempotencyKey: request.headers.get('idempotency-key'),
      };
      sent.push(record);
      const lose = loseAnswer?.(request) ?? false;
      const response = await fetch(request);
      if (lose) {
        await response.arrayBuffer();
        throw new TypeError('fetch failed: the connection was reset');
      }
      record.status = response.status;
      return response;
    },
  });
  return { client, sent };
}

const createRequest = (extra: Partial<CreateEnvelopeRequest> = {}): CreateEnvelopeRequest => ({
  title: 'Services agreement',
  templateId: integrator.templateId,
  recipients: TWO_SIGNERS,
  ...extra,
});

describe('SigilClient against the live server', () => {
  it('creates, sends, gets, lists and downloads an envelope', async () => {
    const { client } = clientOf();
    const templates = await client.templates.list();
    expect(templates.map((t) => t.id)).toContain(integrator.templateId);

    const reference = `RT-${randomUUID()}`;
    const created = await client.envelopes.create(createRequest({ externalReference: reference }));
    expect(created.status).toBe('Draft');
    const sent = await client.envelopes.send(created.id);
    expect(sent.status).not.toBe('Draft');

    const got = await client.envelopes.get(created.id);
    expect(got.externalReference).toBe(reference);
    expect(got.recipients.map((r) => r.roleName)).toEqual(['Client', 'Provider']);

    const listed = [];
    for await (const envelope of client.envelopes.list({
      status: [got.status, 'Draft'],
      externalReference: reference,
    })) {
      listed.push(envelope.id);
    }
    expect(listed).toEqual([created.id]);

    const original = await client.envelopes.documents.original(created.id);
    expect(original).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(original.subarray(0, 5)).toString('latin1')).toBe('%PDF-');
    // The final PDF does not exist before everyone signed: the 404 arrives as a SigilError.
    const missing = await client.envelopes.documents.finalPdf(created.id).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(SigilError);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });

    const cancelled = await client.envelopes.cancel(created.id, { reason: 'Signed on paper' });
    expect(cancelled.status).toBe('Cancelled');
  });

  it('uploads a PDF (retried after a lost answer with its key: one file), creates from it and downloads it back', async () => {
    let lost = 0;
    const { client, sent } = clientOf({
      loseAnswer: (request) => request.url.endsWith('/files/upload') && lost++ === 0,
    });
    const pdf = await buildDemoPdf('Client upload');
    const file = await client.files.upload(pdf, 'contract.pdf');
    expect(file).toMatchObject({ name: 'contract.pdf', pageCount: 1, size: pdf.length });
    const uploads = sent.filter((s) => s.path === '/api/v1/files/upload');
    expect(uploads.map((s) => s.status)).toEqual(['lost', 201]);
    expect(uploads[1]?.idempotencyKey).toBe(uploads[0]?.idempotencyKey);
    const stored = await harness.ctx.orm.em
      .fork()
      .count(StoredFile, { organizationId: integrator.organizationId, sha256: file.sha256 });
    expect(stored).toBe(1);

    const envelope = await client.envelopes.createFromFile({
      title: 'Uploaded contract',
      fileId: file.id,
      fields: [
        {
          type: 'Signature',
          role: 'Client',
          label: 'Sign here',
          page: 1,
          x: 72,
          y: 600,
          width: 180,
          height: 40,
        },
      ],
      recipients: [{ roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' }],
    });
    expect(envelope.status).toBe('Draft');
    expect(Buffer.from(await client.envelopes.documents.original(envelope.id)).equals(Buffer.from(pdf))).toBe(
      true,
    );
  });

  it('renews a token the server no longer accepts, once, and goes on', async () => {
    const { client, sent } = clientOf();
    await client.templates.list();
    expect(sent.filter((s) => s.path === '/oauth/token')).toHaveLength(1);

    // The server expires every token of the organization; the client still holds its own as valid.
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(
        OAuthAccessToken,
        { organizationId: integrator.organizationId },
        { expiresAt: new Date(Date.now() - 1000) },
      );
    const templates = await client.templates.list();
    expect(templates.length).toBeGreaterThan(0);
    expect(sent.map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([
      'POST /oauth/token 200',
      'GET /api/v1/templates 200',
      'GET /api/v1/templates 401',
      'POST /oauth/token 200',
      'GET /api/v1/templates 200',
    ]);
  });

  it('renews its token shortly before it expires, without waiting for a 401', async () => {
    const { client, sent } = clientOf();
    await client.templates.list();
    // 3,550 s later (the tokens live 3,600 s): inside the 60-second margin, but the old token is still valid, so
    // only the client's own renewal can explain a second token request.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 3_550_000);
      await client.templates.list();
    } finally {
      vi.useRealTimers();
    }
    expect(sent.map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([
      'POST /oauth/token 200',
      'GET /api/v1/templates 200',
      'POST /oauth/token 200',
      'GET /api/v1/templates 200',
    ]);
  });

  it('waits for the Retry-After of a 503 and repeats the send with its Idempotency-Key', async () => {
    const { client } = clientOf();
    const created = await client.envelopes.create(createRequest());
    // The first attempt gets the answer the server gives while PostgreSQL or Temporal is down (docs/api.md, "When
    // a dependency is down"), made here at the edge; the retry reaches the live server.
    const started = Date.now();
    const times: number[] = [];
    const keys: (string | null)[] = [];
    const probe = new SigilClient({
      baseUrl,
      clientId: integrator.clientId,
      clientSecret: integrator.clientSecret,
      fetch: async (request) => {
        if (request.url.endsWith('/send')) {
          times.push(Date.now() - started);
          keys.push(request.headers.get('idempotency-key'));
        }
        if (request.url.endsWith('/send') && keys.length === 1) {
          return new Response(
            '{"error":{"code":"service_unavailable","message":"down","details":[],"request_id":"r"}}',
            {
              status: 503,
              headers: { 'retry-after': '1', 'content-type': 'application/json' },
            },
          );
        }
        return fetch(request);
      },
    });
    const sentEnvelope = await probe.envelopes.send(created.id, { idempotencyKey: `send-${created.id}` });
    expect(sentEnvelope.sentAt).not.toBeNull();
    expect(keys).toEqual([`send-${created.id}`, `send-${created.id}`]);
    expect((times[1] as number) - (times[0] as number)).toBeGreaterThanOrEqual(950);
  });

  it('retries a 429 and, still refused after its retries, throws rate_limited', async () => {
    // An organization on Enterprise with its own limit of one request a minute.
    const limited = await newIntegrator(harness);
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(
        Organization,
        { id: limited.organizationId },
        { planName: 'Enterprise', ratePerMinute: 1 },
      );
    const { client, sent } = clientOf({
      clientId: limited.clientId,
      clientSecret: limited.clientSecret,
      retry: { maxRetries: 2, baseDelayMs: 10, maxDelayMs: 50 },
    });
    const outcomes: unknown[] = [];
    // Three calls: even if a minute's window turns during them, one of them meets the limit.
    for (let i = 0; i < 3; i++) outcomes.push(await client.templates.list().catch((error: unknown) => error));
    const refused = outcomes.find((outcome) => outcome instanceof SigilError);
    expect(refused).toMatchObject({ status: 429, code: 'rate_limited' });
    const statuses = sent.filter((s) => s.path === '/api/v1/templates').map((s) => s.status);
    // The refused call was tried three times (one attempt and two retries), each answered 429.
    expect(statuses.join(',')).toContain('429,429,429');
  });

  it('retries a create whose answer was lost with the same Idempotency-Key: one envelope', async () => {
    let lost = 0;
    const { client, sent } = clientOf({
      loseAnswer: (request) => request.url.endsWith('/from-template') && lost++ === 0,
    });
    const reference = `RETRY-${randomUUID()}`;
    const envelope = await client.envelopes.create(createRequest({ externalReference: reference }));

    const creates = sent.filter((s) => s.path === '/api/v1/envelopes/from-template');
    expect(creates.map((s) => s.status)).toEqual(['lost', 201]);
    expect(creates[0]?.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(creates[1]?.idempotencyKey).toBe(creates[0]?.idempotencyKey);

    const withReference = [];
    for await (const e of client.envelopes.list({ externalReference: reference })) withReference.push(e.id);
    expect(withReference).toEqual([envelope.id]);
  });

  it('does not repeat a webhook endpoint create (no Idempotency-Key on the server) whose answer was lost', async () => {
    const path = `/hooks/${randomUUID()}`;
    const { client, sent } = clientOf({
      loseAnswer: (request) =>
        request.method === 'POST' && new URL(request.url).pathname === '/api/v1/webhooks',
    });
    await expect(client.webhooks.create({ url: `${receiver.url}${path}` })).rejects.toMatchObject({
      name: 'SigilConnectionError',
    });
    expect(sent.filter((s) => s.method === 'POST' && s.path === '/api/v1/webhooks')).toHaveLength(1);
    const endpoints = (await client.webhooks.list()).endpoints.filter((e) => e.url.endsWith(path));
    expect(endpoints).toHaveLength(1);
    await client.webhooks.delete(endpoints[0]?.id as string);
  });

  it('throws a SigilError naming the field of a 400', async () => {
    const { client } = clientOf();
    const error = await client.envelopes
      .create(
        createRequest({
          recipients: [{ roleName: 'Landlord', fullName: 'Dana Levi', email: 'dana@example.com' }],
        }),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SigilError);
    const sigilError = error as SigilError;
    expect(sigilError.status).toBe(400);
    expect(sigilError.code).toBe('invalid_request');
    expect(sigilError.field).toBe('recipients.0.roleName');
    expect(sigilError.message).toMatch(/./);
    expect(sigilError.requestId).toMatch(/./);
  });

  it('iterates a list over several pages by its cursor', async () => {
    const { client, sent } = clientOf();
    const reference = `PAGES-${randomUUID()}`;
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(
        (await client.envelopes.create(createRequest({ title: `Page ${i}`, externalReference: reference })))
          .id,
      );
    }
    const seen: string[] = [];
    for await (const envelope of client.envelopes.list({
      externalReference: reference,
      limit: 2,
      order: 'asc',
    })) {
      seen.push(envelope.id);
    }
    expect(seen).toEqual(made);
    const listCalls = sent.filter((s) => s.method === 'GET' && s.path === '/api/v1/envelopes');
    expect(listCalls).toHaveLength(3);

    const pageSizes = [];
    for await (const page of client.envelopes.list({ externalReference: reference, limit: 2 }).pages()) {
      pageSizes.push(page.items.length);
    }
    expect(pageSizes).toEqual([2, 2, 1]);
  });
});

describe('verifyWebhook on a real delivery', () => {
  it('verifies a test delivery the server signed, refuses a tampered body, an old timestamp and a wrong secret', async () => {
    const { client } = clientOf();
    const path = `/hooks/${randomUUID()}`;
    const endpoint = await client.webhooks.create({
      url: `${receiver.url}${path}`,
      eventTypes: ['envelope.completed'],
    });
    expect(endpoint.secret).toMatch(/./);
    try {
      const queued = await client.webhooks.test(endpoint.id);
      expect(queued.status).toBe('pending');
      const [request] = await receiver.waitFor(1, (r) => r.path === path);
      if (!request) throw new Error('no delivery');

      const event = verifyWebhook({
        secret: endpoint.secret,
        headers: request.headers,
        body: request.rawBody,
      });
      expect(event.type).toBe('envelope.completed');
      if (event.type !== 'envelope.completed') throw new Error('narrowed above');
      expect(event.data).toMatchObject({ status: 'Completed', test: true });
      expect(event.id).toMatch(/./);

      const refused = (options: Partial<Parameters<typeof verifyWebhook>[0]>) => {
        try {
          verifyWebhook({
            secret: endpoint.secret,
            headers: request.headers,
            body: request.rawBody,
            ...options,
          });
        } catch (error) {
          expect(error).toBeInstanceOf(WebhookVerificationError);
          return (error as WebhookVerificationError).reason;
        }
        return 'accepted';
      };
      expect(refused({ body: request.rawBody.replace('"Completed"', '"Declined"') })).toBe(
        'signature_mismatch',
      );
      expect(refused({ now: Date.now() + 301_000 })).toBe('timestamp_outside_tolerance');
      expect(refused({ now: Date.now() + 301_000, toleranceSeconds: 600 })).toBe('accepted');
      expect(refused({ secret: 'not-the-secret' })).toBe('signature_mismatch');
      expect(refused({ body: Buffer.from(request.rawBody, 'utf8') })).toBe('accepted');

      // After a rotation the delivery carries both signatures: the old secret alone, the new alone, or both verify.
      const rotated = await client.webhooks.rotateSecret(endpoint.id);
      await client.webhooks.test(endpoint.id);
      const [, second] = await receiver.waitFor(2, (r) => r.path === path);
      if (!second) throw new Error('no second delivery');
      for (const secret of [endpoint.secret, rotated.secret, [rotated.secret, endpoint.secret]]) {
        expect(verifyWebhook({ secret, headers: second.headers, body: second.rawBody }).type).toBe(
          'envelope.completed',
        );
      }
      expect(() =>
        verifyWebhook({
          secret: endpoint.secret,
          headers: { ...second.headers, 'x-service-signature-previous': undefined },
          body: second.rawBody,
        }),
      ).toThrow(WebhookVerificationError);

      // The delivery records, a replay of the first (same event id) and a change of the endpoint.
      const records = await client.webhooks.deliveries.list({ endpointId: endpoint.id });
      expect(records.total).toBe(2);
      const firstRecord = await client.webhooks.deliveries.get(queued.id);
      expect(firstRecord).toMatchObject({ id: queued.id, eventId: event.id, status: 'succeeded' });
      const replay = await client.webhooks.deliveries.replay(queued.id);
      expect(replay.id).not.toBe(queued.id);
      const [, , third] = await receiver.waitFor(3, (r) => r.path === path);
      if (!third) throw new Error('no replay');
      expect(verifyWebhook({ secret: rotated.secret, headers: third.headers, body: third.rawBody }).id).toBe(
        event.id,
      );
      expect((await client.webhooks.update(endpoint.id, { enabled: false })).enabled).toBe(false);
    } finally {
      await client.webhooks.delete(endpoint.id);
    }
  });
});

describe('the package stays with the server', () => {
  it('has a schema.d.ts generated from the live OpenAPI document (`npm run generate` in clients/typescript)', async () => {
    const document = (await (await fetch(`${baseUrl}${OPENAPI_PATH}`)).json()) as Record<string, unknown>;
    expect(await readFile(CLIENT_TYPES, 'utf8')).toBe(await clientTypesFrom(document));
  });

  it('imports nothing of the server: only its own files, openapi-fetch and node:crypto', async () => {
    const source = new URL('../src/', import.meta.url);
    const imported = new Set<string>();
    for (const name of await readdir(source)) {
      const text = await readFile(new URL(name, source), 'utf8');
      for (const match of text.matchAll(/^(?:import|export)[^;]*?from '([^']+)'/gms))
        imported.add(match[1] as string);
    }
    const outside = [...imported].filter((specifier) => !/^\.\/[a-z.-]+\.ts$/.test(specifier)).sort();
    expect(outside).toEqual(['node:crypto', 'openapi-fetch']);
  });

  it('runs the TypeScript example of docs/clients.md as written', async () => {
    const markdown = await readFile(new URL('../../../docs/clients.md', import.meta.url), 'utf8');
    const section = markdown.split(/^## /m).find((s) => s.startsWith('TypeScript'));
    const code = section && /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    if (!code) throw new Error('docs/clients.md has no ```ts block under "## TypeScript"');
    expect(code.trim().split('\n')).toHaveLength(5);
    expect(code).toContain("from '@sigil/client'");
    const dir = await mkdtemp(join(tmpdir(), 'sigil-client-example-'));
    try {
      const file = join(dir, 'example.mts');
      const entry = new URL('../src/index.ts', import.meta.url).href;
      await writeFile(file, code.replace("'@sigil/client'", `'${entry}'`));
      const { stdout } = await promisify(execFile)(process.execPath, [file], {
        env: {
          ...process.env,
          SIGIL_BASE_URL: baseUrl,
          SIGIL_CLIENT_ID: integrator.clientId,
          SIGIL_CLIENT_SECRET: integrator.clientSecret,
          SIGIL_TEMPLATE_ID: integrator.templateId,
        },
      });
      const [id, status] = stdout.trim().split(' ');
      expect(['Sending', 'Sent', 'InProgress', 'WaitingForNextSigner']).toContain(status);
      const { client } = clientOf();
      const envelope = await client.envelopes.get(id as string);
      expect(envelope).toMatchObject({ title: 'Lease', templateId: integrator.templateId });
      expect(envelope.sentAt).not.toBeNull();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

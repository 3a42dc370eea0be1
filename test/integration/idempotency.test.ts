// Idempotency-Key handling against the real schema: replay, conflicts, normalization, organization scope,
// concurrency, failures, expiry, malformed keys, multipart uploads, and claims as leases (a live request keeps
// its key, a dead one's is taken over within seconds, and a retry sees what the earlier attempt committed).
// The whole app under real crashes: idempotency-crash.test.ts.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import multipart from '@fastify/multipart';
import { RequestContext } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { createServer } from '../../api/http/server.ts';
import { digestOf, registerIdempotency, setRequestDigest } from '../../api/plugins/idempotency.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { NotFound } from '../../services/errors.ts';
import { type IdempotencyScope, recordIdempotentResult } from '../../services/idempotency.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { asUser } from '../support/app-requests.ts';
import { servicesOn } from '../support/context.ts';

const logger = pino({ level: 'silent' });

let orm: Orm;
let app: FastifyInstance;
let organizationId: string;
let otherOrganizationId: string;
/** Handler invocations per route. */
const calls = new Map<string, number>();

function count(route: string): number {
  const next = (calls.get(route) ?? 0) + 1;
  calls.set(route, next);
  return next;
}

const uploads = new WeakMap<FastifyRequest, { filename: string; size: number }>();

const v1: FastifyPluginAsyncZod = async (scope) => {
  // Stands in for the bearer-token check: the principal comes from test headers.
  scope.addHook('preHandler', async (request) => {
    const organization = request.headers['x-test-organization'];
    if (typeof organization === 'string') {
      request.principal = {
        organizationId: organization,
        oauthClientId: randomUUID(),
        clientId: 'test_client',
        scopes: [],
      };
    }
  });
  registerIdempotency(scope, { orm });

  const idempotent = { config: { idempotent: true } };
  scope.post('/things', idempotent, async (request, reply) =>
    reply.code(201).send({ id: randomUUID(), call: count('things'), received: request.body ?? null }),
  );
  scope.post('/other', idempotent, async () => ({ call: count('other') }));
  scope.post('/slow', idempotent, async (_request, reply) => {
    const call = count('slow');
    await sleep(300);
    return reply.code(201).send({ call });
  });
  scope.post('/flaky', idempotent, async () => {
    const call = count('flaky');
    if (call === 1) throw new Error('the first attempt fails');
    return { call };
  });
  scope.post('/text', idempotent, async (_request, reply) =>
    reply
      .code(202)
      .type('text/plain; charset=utf-8')
      .send(`accepted ${count('text')}`),
  );
  scope.post('/missing', idempotent, async () => {
    throw new NotFound(`Nothing here (call ${count('missing')}).`);
  });
  scope.post('/plain', async () => ({ call: count('plain') }));

  // An upload route that streams its file: it reads the upload in its own preValidation hook and hands
  // the digest to the idempotency plugin.
  await scope.register(async (streaming) => {
    await streaming.register(multipart);
    streaming.post(
      '/stream-upload',
      {
        config: { idempotent: true },
        preValidation: async (request) => {
          const file = await request.file();
          if (!file) return;
          const data = await file.toBuffer();
          const fields = Object.fromEntries(
            Object.values(file.fields).flatMap((part) =>
              part && !Array.isArray(part) && part.type === 'field' ? [[part.fieldname, part.value]] : [],
            ),
          );
          uploads.set(request, { filename: file.filename, size: data.length });
          setRequestDigest(request, digestOf({ fields, file: { filename: file.filename, data } }));
        },
      },
      async (request, reply) =>
        reply.code(201).send({ call: count('stream-upload'), ...uploads.get(request) }),
    );
    streaming.post('/forgetful-upload', { config: { idempotent: true } }, async (request) => {
      await request.file();
      return { call: count('forgetful-upload') };
    });
  });

  // An upload route whose multipart parts are buffered into request.body.
  await scope.register(async (buffered) => {
    await buffered.register(multipart, { attachFieldsToBody: true });
    buffered.post('/buffered-upload', { config: { idempotent: true } }, async (_request, reply) =>
      reply.code(201).send({ call: count('buffered-upload') }),
    );
  });
};

/** The claim lease of the `/api/leased` routes, short so the tests can wait it out. */
const LEASE_MS = 800;
/** Set by a test: the next `/api/leased/create` fails after its commit, as if its database went away. */
let loseNextAnswer = false;
/** Set by a test: `/api/leased/fenced` waits for it before writing its result. */
let proceed: Promise<void> = Promise.resolve();

/** Routes behind a short lease, with a unit of work per request as in the app; the claim is the request's. */
const leased: FastifyPluginAsyncZod = async (scope) => {
  scope.addHook('onRequest', (_request, _reply, done) => RequestContext.create(orm.em, done));
  scope.addHook('preHandler', async (request) => {
    request.principal = {
      organizationId,
      oauthClientId: randomUUID(),
      clientId: 'test_client',
      scopes: [],
    };
  });
  registerIdempotency(scope, { orm }, { leaseMs: LEASE_MS, renewEveryMs: 100 });
  const idempotent = { config: { idempotent: true } };
  const em = () => {
    const current = RequestContext.getEntityManager();
    if (!current) throw new Error('no request context');
    return current as EntityManager;
  };
  scope.post('/slow', idempotent, async (_request, reply) => {
    const call = count('leased-slow');
    await sleep(LEASE_MS * 3);
    return reply.code(201).send({ call });
  });
  scope.post('/plain', idempotent, async () => ({ call: count('leased-plain') }));
  // Stands in for a create: what it makes is recorded in its own transaction, and a retry answers with it.
  scope.post('/create', idempotent, async (request, reply) => {
    const claim = request.idempotency as IdempotencyScope;
    if (claim.resultId) return reply.code(201).send({ id: claim.resultId, attempt: claim.attempt });
    const id = randomUUID();
    await em().transactional((tx) => recordIdempotentResult(tx, claim, id));
    count('leased-create');
    if (loseNextAnswer) {
      loseNextAnswer = false;
      throw new Error('the database went away after the commit');
    }
    return reply.code(201).send({ id, attempt: claim.attempt });
  });
  scope.post('/fenced', idempotent, async (request, reply) => {
    const claim = request.idempotency as IdempotencyScope;
    await proceed;
    await em().transactional((tx) => recordIdempotentResult(tx, claim, randomUUID()));
    return reply.code(201).send({ call: count('leased-fenced') });
  });
};

function postLeased(path: string, key: string, body: unknown = {}) {
  return app.inject({
    method: 'POST',
    url: `/api/leased${path}`,
    headers: { 'idempotency-key': key },
    payload: body as object,
  });
}

async function recordOf(key: string) {
  const [row] = await orm.em.getConnection().execute<
    {
      state: string;
      attempts: number;
      claim_id: string | null;
      result_id: string | null;
      response_status: number | null;
    }[]
  >(
    `select state, attempts, claim_id, result_id, response_status
       from idempotency_record where organization_id = ? and idempotency_key = ?`,
    [organizationId, key],
  );
  return row;
}

/** POST /api/v1<path> as the test organization (or `organization`), with an Idempotency-Key when given. */
function post(
  path: string,
  options: { key?: string; body?: unknown; organization?: string; headers?: Record<string, string> } = {},
) {
  const caller = { headers: { 'x-test-organization': options.organization ?? organizationId } };
  return asUser(app, caller, 'POST', `/api/v1${path}`, options.body, {
    ...(options.key === undefined ? {} : { idempotencyKey: options.key }),
    ...(options.headers ? { headers: options.headers } : {}),
  });
}

function multipartPayload(fields: Record<string, string>, file: { filename: string; content: string }) {
  const boundary = `sigil-test-${randomUUID()}`;
  const chunks: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  }
  chunks.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.filename}"\r\n` +
      `Content-Type: application/pdf\r\n\r\n${file.content}\r\n--${boundary}--\r\n`,
  );
  return { payload: chunks.join(''), contentType: `multipart/form-data; boundary=${boundary}` };
}

function upload(path: string, key: string, form: ReturnType<typeof multipartPayload>) {
  return app.inject({
    method: 'POST',
    url: `/api/v1${path}`,
    headers: {
      'x-test-organization': organizationId,
      'idempotency-key': key,
      'content-type': form.contentType,
    },
    payload: form.payload,
  });
}

beforeAll(async () => {
  orm = await createOrm({ databaseUrl: inject('databaseUrl'), poolMax: 4 });
  organizationId = (
    await createOrganization(servicesOn(orm), { name: 'Idempotency A', plan: 'Business', apiEnabled: true })
  ).id;
  otherOrganizationId = (
    await createOrganization(servicesOn(orm), { name: 'Idempotency B', plan: 'Business', apiEnabled: true })
  ).id;
  app = createServer({ logger });
  await app.register(v1, { prefix: '/api/v1' });
  await app.register(leased, { prefix: '/api/leased' });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await orm.close();
});
beforeEach(() => calls.clear());

describe('Idempotency-Key', () => {
  it('replays the stored status, body and content type without executing again', async () => {
    const key = randomUUID();
    const first = await post('/things', { key, body: { title: 'Contract' } });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    const again = await post('/things', { key, body: { title: 'Contract' } });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toBe(first.body);
    expect(calls.get('things')).toBe(1);

    const [record] = await orm.em.getConnection().execute<{ state: string; hours: number }[]>(
      `select state, extract(epoch from expires_at - created_at) / 3600 as hours
           from idempotency_record where organization_id = ? and idempotency_key = ?`,
      [organizationId, key],
    );
    expect(record?.state).toBe('completed');
    expect(Number(record?.hours)).toBe(24);
  });

  it('replays a non-JSON response with its own status and content type', async () => {
    const key = randomUUID();
    const first = await post('/text', { key });
    expect(first.statusCode).toBe(202);
    expect(first.body).toBe('accepted 1');
    const again = await post('/text', { key });
    expect(again.statusCode).toBe(202);
    expect(again.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(again.body).toBe('accepted 1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(calls.get('text')).toBe(1);
  });

  it('stores and replays a client error as well', async () => {
    const key = randomUUID();
    const first = await post('/missing', { key, body: {} });
    expect(first.statusCode).toBe(404);
    const again = await post('/missing', { key, body: {} });
    expect(again.statusCode).toBe(404);
    expect(again.body).toBe(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(calls.get('missing')).toBe(1);
  });

  it('refuses the same key with a different body, method or path with 409 idempotency_key_reused', async () => {
    const key = randomUUID();
    expect((await post('/things', { key, body: { title: 'Contract' } })).statusCode).toBe(201);

    const otherBody = await post('/things', { key, body: { title: 'Another contract' } });
    expect(otherBody.statusCode).toBe(409);
    expect(otherBody.json()).toEqual({
      error: {
        code: 'idempotency_key_reused',
        message: expect.stringMatching(/already used with a different request/),
        details: [],
        request_id: otherBody.headers['x-request-id'],
      },
    });
    const otherPath = await post('/other', { key, body: { title: 'Contract' } });
    expect(otherPath.statusCode).toBe(409);
    expect(otherPath.json().error.code).toBe('idempotency_key_reused');
    expect(calls.get('things')).toBe(1);
    expect(calls.get('other')).toBeUndefined();
  });

  it('compares normalized bodies: key order does not matter, array order does', async () => {
    const key = randomUUID();
    const first = await post('/things', {
      key,
      body: {
        title: 'Contract',
        recipients: [{ name: 'Dana', email: 'dana@example.com' }],
        meta: { a: 1, b: 2 },
      },
    });
    expect(first.statusCode).toBe(201);
    const reordered = await post('/things', {
      key,
      body: {
        meta: { b: 2, a: 1 },
        recipients: [{ email: 'dana@example.com', name: 'Dana' }],
        title: 'Contract',
      },
    });
    expect(reordered.statusCode).toBe(201);
    expect(reordered.headers['idempotent-replayed']).toBe('true');
    expect(reordered.body).toBe(first.body);

    const keyA = randomUUID();
    await post('/things', { key: keyA, body: { list: [1, 2] } });
    const swapped = await post('/things', { key: keyA, body: { list: [2, 1] } });
    expect(swapped.statusCode).toBe(409);
    expect(calls.get('things')).toBe(2);
  });

  it('scopes keys to the organization', async () => {
    const key = randomUUID();
    const mine = await post('/things', { key, body: { title: 'Mine' } });
    const theirs = await post('/things', {
      key,
      body: { title: 'Theirs' },
      organization: otherOrganizationId,
    });
    expect(theirs.statusCode).toBe(201);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(theirs.json().received).toEqual({ title: 'Theirs' });
    expect(calls.get('things')).toBe(2);

    const mineAgain = await post('/things', { key, body: { title: 'Mine' } });
    expect(mineAgain.body).toBe(mine.body);
    expect(mineAgain.headers['idempotent-replayed']).toBe('true');
  });

  it('never executes two concurrent requests with one key', async () => {
    const key = randomUUID();
    const responses = await Promise.all([
      post('/slow', { key, body: { n: 1 } }),
      post('/slow', { key, body: { n: 1 } }),
    ]);
    expect(calls.get('slow')).toBe(1);
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([201, 409]);
    const refused = responses.find((response) => response.statusCode === 409);
    expect(refused?.json().error).toMatchObject({
      code: 'idempotency_request_in_progress',
      message: expect.stringMatching(/retry later/),
    });
    expect(refused?.headers['retry-after']).toBe('1');

    const later = await post('/slow', { key, body: { n: 1 } });
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(calls.get('slow')).toBe(1);
  });

  it('lets a key be retried after a server error', async () => {
    const key = randomUUID();
    const failed = await post('/flaky', { key, body: {} });
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error.code).toBe('internal_error');

    const retried = await post('/flaky', { key, body: {} });
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toEqual({ call: 2 });
    expect(retried.headers['idempotent-replayed']).toBeUndefined();

    const replayed = await post('/flaky', { key, body: {} });
    expect(replayed.json()).toEqual({ call: 2 });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(calls.get('flaky')).toBe(2);
  });

  it('treats an expired record as absent', async () => {
    const key = randomUUID();
    const first = await post('/things', { key, body: { title: 'Contract' } });
    await orm.em
      .getConnection()
      .execute(
        "update idempotency_record set expires_at = now() - interval '1 minute' where organization_id = ? and idempotency_key = ?",
        [organizationId, key],
      );
    // Even another body is fine once the old record has expired.
    const fresh = await post('/things', { key, body: { title: 'Another contract' } });
    expect(fresh.statusCode).toBe(201);
    expect(fresh.headers['idempotent-replayed']).toBeUndefined();
    expect(fresh.body).not.toBe(first.body);
    expect(calls.get('things')).toBe(2);

    const replayed = await post('/things', { key, body: { title: 'Another contract' } });
    expect(replayed.body).toBe(fresh.body);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
  });

  it('answers 400 naming the header for a malformed key', async () => {
    for (const key of ['', 'x'.repeat(256), 'tab\there']) {
      const response = await post('/things', { key, body: { title: 'Contract' } });
      expect(response.statusCode, JSON.stringify(key)).toBe(400);
      expect(response.json().error).toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(/Idempotency-Key/),
      });
    }
    expect(calls.get('things')).toBeUndefined();
    expect((await post('/things', { key: 'x'.repeat(255), body: {} })).statusCode).toBe(201);
    expect(
      (await post('/things', { key: ' ~!"#$%&\'()*+,-./09:;<=>?@AZ[\\]^_`az{|}', body: {} })).statusCode,
    ).toBe(201);
  });

  it('executes every time without the header, and ignores the header on other routes', async () => {
    const a = await post('/things', { body: { title: 'Contract' } });
    const b = await post('/things', { body: { title: 'Contract' } });
    expect(a.body).not.toBe(b.body);
    expect(calls.get('things')).toBe(2);

    const key = randomUUID();
    await post('/plain', { key, body: {} });
    await post('/plain', { key, body: { other: true } });
    expect(calls.get('plain')).toBe(2);
  });

  it('gives X-Request-Id no part in idempotency', async () => {
    const headers = { 'x-request-id': `same-request-${randomUUID()}` };
    const first = await post('/things', { body: { title: 'One' }, headers });
    const second = await post('/things', { body: { title: 'Two' }, headers });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json().received).toEqual({ title: 'Two' });
    expect(calls.get('things')).toBe(2);

    const third = await post('/things', { key: randomUUID(), body: { title: 'Three' }, headers });
    const fourth = await post('/things', { key: randomUUID(), body: { title: 'Three' }, headers });
    expect(fourth.headers['idempotent-replayed']).toBeUndefined();
    expect(fourth.body).not.toBe(third.body);
    expect(calls.get('things')).toBe(4);
  });
});

describe('Idempotency-Key on multipart uploads', () => {
  it('uses the digest a streaming upload route sets', async () => {
    const key = randomUUID();
    const form = multipartPayload({ purpose: 'contract' }, { filename: 'a.pdf', content: '%PDF-1.7 one' });
    const first = await upload('/stream-upload', key, form);
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ call: 1, filename: 'a.pdf', size: 12 });

    // The same upload in another multipart encoding (another boundary) is the same request.
    const again = await upload(
      '/stream-upload',
      key,
      multipartPayload({ purpose: 'contract' }, { filename: 'a.pdf', content: '%PDF-1.7 one' }),
    );
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);

    const otherBytes = await upload(
      '/stream-upload',
      key,
      multipartPayload({ purpose: 'contract' }, { filename: 'a.pdf', content: '%PDF-1.7 two' }),
    );
    expect(otherBytes.statusCode).toBe(409);
    const otherField = await upload(
      '/stream-upload',
      key,
      multipartPayload({ purpose: 'invoice' }, { filename: 'a.pdf', content: '%PDF-1.7 one' }),
    );
    expect(otherField.statusCode).toBe(409);
    expect(calls.get('stream-upload')).toBe(1);
  });

  it('hashes the buffered parts of an attachFieldsToBody route', async () => {
    const key = randomUUID();
    const form = () =>
      multipartPayload({ purpose: 'contract' }, { filename: 'b.pdf', content: '%PDF-1.7 b' });
    const first = await upload('/buffered-upload', key, form());
    expect(first.statusCode).toBe(201);
    const again = await upload('/buffered-upload', key, form());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    const otherBytes = await upload(
      '/buffered-upload',
      key,
      multipartPayload({ purpose: 'contract' }, { filename: 'b.pdf', content: '%PDF-1.7 B' }),
    );
    expect(otherBytes.statusCode).toBe(409);
    expect(otherBytes.json().error.code).toBe('idempotency_key_reused');
    expect(calls.get('buffered-upload')).toBe(1);
  });

  it('refuses to guess when a multipart route gives no digest', async () => {
    const key = randomUUID();
    const form = multipartPayload({}, { filename: 'c.pdf', content: '%PDF-1.7 c' });
    const response = await upload('/forgetful-upload', key, form);
    expect(response.statusCode).toBe(500);
    expect(calls.get('forgetful-upload')).toBeUndefined();
    const [row] = await orm.em
      .getConnection()
      .execute<{ n: number }[]>(
        'select count(*)::int as n from idempotency_record where organization_id = ? and idempotency_key = ?',
        [organizationId, key],
      );
    expect(row?.n).toBe(0);
  });
});

describe('Idempotency-Key claims as leases', () => {
  it('keeps the claim of a live request that runs longer than the lease', async () => {
    const key = randomUUID();
    const first = postLeased('/slow', key);
    await sleep(LEASE_MS * 2);
    const meanwhile = await postLeased('/slow', key);
    expect(meanwhile.statusCode).toBe(409);
    expect(meanwhile.json().error.code).toBe('idempotency_request_in_progress');
    expect(meanwhile.headers['retry-after']).toBe('1');
    expect((await first).statusCode).toBe(201);
    const later = await postLeased('/slow', key);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(calls.get('leased-slow')).toBe(1);
  });

  it("takes over a dead process's claim once its lease has run out, for the same request only", async () => {
    const key = randomUUID();
    // What a process that died while running the request leaves behind: a claim nobody renews.
    await orm.em.getConnection().execute(
      `insert into idempotency_record
              (organization_id, idempotency_key, request_hash, method, path, state, claim_id, lease_expires_at,
               created_at, expires_at)
       values (?, ?, ?, 'POST', '/api/leased/plain', 'processing', gen_random_uuid(),
               clock_timestamp() + ?::interval, now(), now() + interval '24 hours')`,
      [organizationId, key, digestOf({ n: 1 }), `${LEASE_MS} milliseconds`],
    );
    const held = await postLeased('/plain', key, { n: 1 });
    expect(held.statusCode).toBe(409);
    expect(held.json().error.code).toBe('idempotency_request_in_progress');

    await sleep(LEASE_MS + 100);
    const otherBody = await postLeased('/plain', key, { n: 2 });
    expect(otherBody.statusCode).toBe(409);
    expect(otherBody.json().error.code).toBe('idempotency_key_reused');
    const taken = await postLeased('/plain', key, { n: 1 });
    expect(taken.statusCode).toBe(200);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    expect(await recordOf(key)).toMatchObject({ state: 'completed', attempts: 2, response_status: 200 });
    expect(calls.get('leased-plain')).toBe(1);
  });

  it('answers a retry with what the earlier attempt committed before its answer was lost', async () => {
    const key = randomUUID();
    loseNextAnswer = true;
    const failed = await postLeased('/create', key);
    expect(failed.statusCode).toBe(500);
    const committed = await recordOf(key);
    expect(committed).toMatchObject({ state: 'processing', attempts: 1 });
    expect(committed?.result_id).toMatch(/^[0-9a-f-]{36}$/);

    // A 5xx ends the lease at once: the retry runs now, and finds the result instead of making another.
    const retried = await postLeased('/create', key);
    expect(retried.statusCode).toBe(201);
    expect(retried.json()).toEqual({ id: committed?.result_id, attempt: 2 });
    expect(calls.get('leased-create')).toBe(1);
    expect((await postLeased('/create', key)).headers['idempotent-replayed']).toBe('true');
  });

  it('lets an attempt whose claim was taken over neither commit its result nor store its answer', async () => {
    const key = randomUUID();
    let release = () => {};
    proceed = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = postLeased('/fenced', key);
    await expect.poll(async () => (await recordOf(key))?.state).toBe('processing');
    // A retry took the key over (the first attempt looked dead): the claim is no longer the first's.
    await orm.em
      .getConnection()
      .execute(
        'update idempotency_record set claim_id = gen_random_uuid() where organization_id = ? and idempotency_key = ?',
        [organizationId, key],
      );
    release();
    const answer = await first;
    expect(answer.statusCode).toBe(409);
    expect(answer.json().error.code).toBe('idempotency_request_in_progress');
    expect(await recordOf(key)).toMatchObject({ state: 'processing', result_id: null });
    expect(calls.get('leased-fenced')).toBeUndefined();
    proceed = Promise.resolve();
  });
});

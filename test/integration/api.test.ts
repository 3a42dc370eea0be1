// The API process's HTTP behaviour that every route shares: health, request ids and the error body.
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { testConfig } from '../support/context.ts';
import { freePort } from '../support/infrastructure.ts';

const logger = pino({ level: 'silent' });
const config = testConfig();

let orm: Orm;
let connection: Connection;
let app: FastifyInstance;

beforeAll(async () => {
  orm = await createOrm({ databaseUrl: inject('databaseUrl'), poolMax: 2 });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  app = await buildApp({
    config,
    orm,
    temporal: {
      connection,
      client: new Client({ connection, namespace: inject('namespace') }),
      namespace: inject('namespace'),
    },
    logger,
  });
});
afterAll(async () => {
  await app.close();
  await connection.close();
  await orm.close();
});

describe('GET /api/health', () => {
  it('answers 200 when PostgreSQL and Temporal are reachable', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/health' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ status: 'ok', db: 'ok', temporal: 'ok' });
    // Envelopes with a parked projection (other test files may park some meanwhile): reported, not a failure.
    expect(Object.keys(body).sort()).toEqual(['db', 'projection', 'status', 'temporal']);
    expect(body.projection.stuck).toBeGreaterThanOrEqual(0);
  });

  it('answers 503 naming Temporal when Temporal is unreachable', async () => {
    const unreachable = await Connection.lazy({
      address: `127.0.0.1:${await freePort()}`,
      connectTimeout: 500,
    });
    const broken = await buildApp({
      config,
      orm,
      temporal: {
        connection: unreachable,
        client: new Client({ connection: unreachable }),
        namespace: 'default',
      },
      logger,
    });
    const response = await broken.inject({ method: 'GET', url: '/api/health' });
    expect(response.statusCode).toBe(503);
    const body = response.json();
    expect(body).toMatchObject({ status: 'unavailable', db: 'ok', temporal: 'unavailable' });
    expect(body.message).toMatch(/Temporal/);
    expect(body.message).not.toMatch(/PostgreSQL/);
    await broken.close();
  });

  it('answers 503 naming PostgreSQL when the database is unreachable', async () => {
    const closedOrm = await createOrm({
      databaseUrl: `postgresql://sigil:wrong@127.0.0.1:${await freePort()}/sigil`,
      poolMax: 1,
    });
    const broken = await buildApp({
      config,
      orm: closedOrm,
      temporal: {
        connection,
        client: new Client({ connection, namespace: inject('namespace') }),
        namespace: inject('namespace'),
      },
      logger,
    });
    const response = await broken.inject({ method: 'GET', url: '/api/health' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ status: 'unavailable', db: 'unavailable', temporal: 'ok' });
    expect(response.json().message).toMatch(/PostgreSQL/);
    await broken.close();
    await closedOrm.close();
  });
});

describe('request ids and errors', () => {
  it('echoes a caller’s X-Request-Id', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { 'x-request-id': 'caller-id-123' },
    });
    expect(response.headers['x-request-id']).toBe('caller-id-123');
  });

  it('generates a request id when none (or a malformed one) is given', async () => {
    const plain = await app.inject({ method: 'GET', url: '/api/health' });
    expect(plain.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const malformed = await app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { 'x-request-id': 'has spaces and\ttabs' },
    });
    expect(malformed.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route with the specification’s error body carrying the request id', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/api/v1/nothing-here?x=1',
      headers: { 'x-request-id': 'req-404' },
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      error: {
        code: 'not_found',
        message: 'No route GET /api/v1/nothing-here.',
        details: [],
        request_id: 'req-404',
      },
    });
  });
});

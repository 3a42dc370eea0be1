// How many SQL statements the API sends for a signer's requests, counted with the ORM's query log. A signer
// request loads its session with its fields once and hands the loaded objects down; these bounds keep it so.
import type { Connection } from '@temporalio/client';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import { issueSigningLinks } from '../../api/services/signing/issue-signing-links.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { testConfig } from '../support/context.ts';
import { encodePng } from '../support/png.ts';

const SIGNATURE = encodePng(60, 20, (_x, y) => (y === 10 ? [20, 30, 120, 255] : [0, 0, 0, 0]));

let harness: ApiHarness;
let acme: Integrator;
let counted: { app: FastifyInstance; orm: Orm };
const statements: string[] = [];

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  const orm = await createOrm({
    databaseUrl: inject('databaseUrl'),
    poolMax: 4,
    onQuery: (sql) => statements.push(sql),
  });
  const app = await buildApp({
    config: testConfig(),
    orm,
    temporal: {
      connection: harness.ctx.temporal.connection as Connection,
      client: harness.ctx.temporal,
      namespace: inject('namespace'),
    },
    logger: pino({ level: 'silent' }),
  });
  counted = { app, orm };
});
afterAll(async () => {
  await counted.app.close();
  await counted.orm.close();
  await harness.close();
});

/** The statements one request sends (BEGIN and COMMIT count: each is a round trip). */
async function queriesOf(request: InjectOptions) {
  statements.length = 0;
  const response = await counted.app.inject(request);
  expect(response.statusCode, response.body).toBe(200);
  return { count: statements.length, response };
}

it('a signer saves fields and completes with a bounded number of SQL statements', async () => {
  const headers = await acme.auth();
  const created = await harness.app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-template',
    headers,
    payload: {
      title: 'Counted',
      workflowType: 'Sequential',
      templateId: acme.templateId,
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'Api' },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', deliveryChannel: 'Api' },
      ],
    },
  });
  expect(created.statusCode, created.body).toBe(201);
  const envelopeId = created.json().id as string;
  const sent = await harness.app.inject({
    method: 'POST',
    url: `/api/v1/envelopes/${envelopeId}/send`,
    headers,
  });
  expect(sent.statusCode, sent.body).toBe(200);
  const links = await issueSigningLinks(harness.ctx, acme.organizationId, envelopeId);
  const token = links.find((link) => link.fullName === 'Dana Levi')?.url.split('/sign/')[1] as string;

  const view = await queriesOf({ method: 'GET', url: `/api/signing/${token}` });
  const fields = view.response.json().fields as { fieldDefinitionId: string; type: string }[];
  const values = fields.map((field) => ({
    fieldDefinitionId: field.fieldDefinitionId,
    value:
      field.type === 'Signature'
        ? { imagePngBase64: SIGNATURE.toString('base64'), typedName: 'Dana Levi' }
        : field.type === 'Date'
          ? '2026-03-01'
          : 'Dana Levi',
  }));
  const save = await queriesOf({ method: 'PUT', url: `/api/signing/${token}/fields`, payload: { values } });
  const complete = await queriesOf({
    method: 'POST',
    url: `/api/signing/${token}/complete`,
    payload: { consent: true },
  });
  expect(complete.response.json().state).toBe('completed');
  process.stdout.write(
    `[signing-queries] SQL statements: GET view ${view.count}, PUT fields ${save.count}, POST complete ${complete.count}\n`,
  );
  // The per-address throttle's counter, the session (link, envelope, recipient, organization and signer
  // session in one statement), the fields with their values; a save adds its transaction (begin, the two
  // row locks, the stored images, the values in one upsert, commit). Before the redesign: 7, 21 and 9.
  expect(view.count).toBeLessThanOrEqual(3);
  expect(save.count).toBeLessThanOrEqual(9);
  expect(complete.count).toBeLessThanOrEqual(3);
});

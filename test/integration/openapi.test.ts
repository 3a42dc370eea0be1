// The OpenAPI document is valid, complete and current, and a client generated from it (openapi-typescript
// types + openapi-fetch) runs the integrator flow against a real server: token → templates → upload →
// create → get.
import { readFile } from 'node:fs/promises';
import SwaggerParser from '@apidevtools/swagger-parser';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '../../api/http/openapi.ts';
import { buildOpenApiDocument } from '../../api/http/openapi-document.ts';
import type { paths } from '../../clients/typescript/src/schema.d.ts';
import { SCOPES } from '../../domain/scopes.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { CLIENT_TYPES, clientTypesFrom } from '../../scripts/generate-client-types.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';

let harness: ApiHarness;
let baseUrl: string;
let integrator: Integrator;

beforeAll(async () => {
  harness = await openApiHarness();
  baseUrl = await harness.app.listen({ host: '127.0.0.1', port: 0 });
  integrator = await newIntegrator(harness);
});
afterAll(() => harness.close());

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document titled as version v1', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: OPENAPI_PATH })).json();
    await SwaggerParser.validate(structuredClone(document));
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.info.version).toBe('v1');
    expect(
      Object.keys(document.components.securitySchemes.oauth2.flows.clientCredentials.scopes).sort(),
    ).toEqual([...SCOPES].sort());
  });

  it('describes the token endpoint and every /api/v1 route with the error statuses and the error body', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: OPENAPI_PATH })).json();
    const routes = Object.entries(
      document.paths as Record<string, Record<string, { responses: object; security?: unknown }>>,
    ).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({ path, method, operation })),
    );
    const expected = [
      'post /oauth/token',
      'get /api/v1/organization',
      'get /api/v1/usage',
      'get /api/v1/diagnostics',
      'get /api/v1/templates',
      'get /api/v1/templates/{id}',
      'post /api/v1/files/upload',
      'post /api/v1/envelopes/from-template',
      'post /api/v1/envelopes/from-file',
      'get /api/v1/envelopes/{id}',
      'get /api/v1/envelopes/by-external-reference/{externalReference}',
      'get /api/v1/envelopes/{id}/recipients',
      'post /api/v1/envelopes/{id}/send',
      'post /api/v1/envelopes/{id}/remind',
      'post /api/v1/envelopes/{id}/cancel',
      'post /api/v1/envelopes/{id}/extend',
      'get /api/v1/envelopes/{id}/documents/final-pdf',
      'get /api/v1/envelopes/{id}/documents/audit-trail',
      'get /api/v1/envelopes/{id}/documents/original',
      'get /api/v1/webhooks',
      'post /api/v1/webhooks',
      'put /api/v1/webhooks/{id}',
      'delete /api/v1/webhooks/{id}',
      'post /api/v1/webhooks/{id}/secret/rotate',
      'get /api/v1/webhooks/deliveries',
      'get /api/v1/webhooks/deliveries/{id}',
      'post /api/v1/webhooks/{id}/test',
      'post /api/v1/webhooks/deliveries/{id}/replay',
      'post /api/v1/envelopes/{id}/recipients/{recipientId}/signing-link',
      'patch /api/v1/envelopes/{id}/recipients/{recipientId}',
      'post /api/v1/envelopes/{id}/recipients/{recipientId}/remind',
    ];
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(
      expect.arrayContaining(expected.sort()),
    );
    for (const { path, method, operation } of routes) {
      for (const status of ['400', '401', '403', '404', '409', '429', '500']) {
        expect(operation.responses, `${method} ${path} ${status}`).toHaveProperty(status);
      }
      if (path.startsWith('/api/v1/')) {
        expect(operation.security, `${method} ${path}`).toEqual([{ oauth2: [expect.any(String)] }]);
      }
    }
    // The error body's inner object is a named schema of its own (ErrorInfo), as generators want it.
    expect(document.components.schemas.Error.properties.error).toEqual({
      $ref: '#/components/schemas/ErrorInfo',
    });
    expect(document.components.schemas.Error.required).toEqual(['error']);
    expect(document.components.schemas.ErrorInfo.required).toEqual(
      expect.arrayContaining(['code', 'message', 'details', 'request_id']),
    );
  });

  it('names every operation with its own operationId, a verb and what it acts on (generated clients name their methods by it)', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: OPENAPI_PATH })).json();
    const named = Object.entries(
      document.paths as Record<string, Record<string, { operationId?: string }>>,
    ).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => ({
        route: `${method} ${path}`,
        operationId: operation.operationId,
      })),
    );
    expect(named.filter((entry) => !entry.operationId)).toEqual([]);
    const ids = named.map((entry) => entry.operationId as string);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    const verbs =
      /^(get|list|create|update|delete|send|remind|cancel|extend|correct|download|upload|rotate|replay|simulate|request|revoke)[A-Z][A-Za-z]*$/;
    expect(ids.filter((id) => !verbs.test(id))).toEqual([]);
    // The ones the generated clients' round trips call, by name.
    expect(Object.fromEntries(named.map((entry) => [entry.route, entry.operationId]))).toMatchObject({
      'post /api/v1/envelopes/from-template': 'createEnvelopeFromTemplate',
      'post /api/v1/envelopes/{id}/send': 'sendEnvelope',
      'get /api/v1/envelopes/{id}': 'getEnvelope',
      'get /api/v1/envelopes/{id}/documents/original': 'downloadOriginalDocument',
      'get /api/v1/envelopes': 'listEnvelopes',
      'post /oauth/token': 'requestAccessToken',
    });
  });

  it('declares Idempotency-Key on every route that honours it, and nowhere else', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: OPENAPI_PATH })).json();
    const withKey: string[] = [];
    for (const [path, operations] of Object.entries(
      document.paths as Record<string, Record<string, Operation>>,
    )) {
      for (const [method, operation] of Object.entries(operations)) {
        const names = (operation.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
        if (names.includes('idempotency-key')) withKey.push(`${method.toUpperCase()} ${path}`);
      }
    }
    // The specification's eight, the create from a file, a Draft's edit, a recipient's correction and the
    // one-recipient reminder and the reminder and deadline settings (additions), and the sandbox simulations.
    expect(withKey.sort()).toEqual(
      [
        'POST /api/v1/files/upload',
        'POST /api/v1/envelopes/from-template',
        'POST /api/v1/envelopes/from-file',
        'POST /api/v1/envelopes/{id}/send',
        'PATCH /api/v1/envelopes/{id}',
        'POST /api/v1/envelopes/{id}/cancel',
        'POST /api/v1/envelopes/{id}/remind',
        'POST /api/v1/envelopes/{id}/extend',
        'PUT /api/v1/envelopes/{id}/settings',
        'PATCH /api/v1/envelopes/{id}/recipients/{recipientId}',
        'POST /api/v1/envelopes/{id}/recipients/{recipientId}/remind',
        'POST /api/v1/webhooks/{id}/test',
        'POST /api/v1/webhooks/deliveries/{id}/replay',
        ...['Completed', 'Declined', 'Expired', 'Cancelled'].map(
          (s) => `POST /api/v1/sandbox/envelopes/{id}/${s}`,
        ),
      ].sort(),
    );
  });

  it('documents the errors of the PDF downloads as the JSON error body', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: OPENAPI_PATH })).json();
    for (const which of ['final-pdf', 'audit-trail', 'original']) {
      const responses = (document.paths[`/api/v1/envelopes/{id}/documents/${which}`].get as Operation)
        .responses;
      expect(Object.keys(responses['200']?.content ?? {})).toEqual(['application/pdf']);
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400)
          expect(Object.keys(response.content ?? {}), status).toEqual(['application/json']);
      }
    }
  });

  it('declares the webhook management routes with named schemas of domain/webhook.ts and the scope', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: OPENAPI_PATH })).json();
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const json = (operation: Operation, status: string) =>
      operation.responses[status]?.content?.['application/json'];
    const webhooks = document.paths['/api/v1/webhooks'];
    expect(json(webhooks.get, '200')).toEqual({ schema: ref('WebhookEndpointList') });
    expect(json(webhooks.post, '201')).toEqual({ schema: ref('WebhookEndpointWithSecret') });
    // One schema per shape: a request body keeps its plain name (api/http/openapi-for-generators.ts).
    const bodyRef = ref;
    expect(webhooks.post.requestBody.content['application/json'].schema).toEqual(
      bodyRef('CreateWebhookEndpointRequest'),
    );
    const one = document.paths['/api/v1/webhooks/{id}'];
    expect(one.put.requestBody.content['application/json'].schema).toEqual(
      bodyRef('UpdateWebhookEndpointRequest'),
    );
    expect(json(one.put, '200')).toEqual({ schema: ref('WebhookEndpoint') });
    expect(json(one.delete, '200')).toEqual({ schema: ref('DeletedWebhookEndpoint') });
    expect(json(document.paths['/api/v1/webhooks/{id}/secret/rotate'].post, '200')).toEqual({
      schema: ref('WebhookEndpointWithSecret'),
    });
    const deliveries = document.paths['/api/v1/webhooks/deliveries'].get;
    expect(json(deliveries, '200')).toEqual({ schema: ref('WebhookDeliveryList') });
    expect((deliveries.parameters as { in: string; name: string }[]).map((p) => `${p.in} ${p.name}`)).toEqual(
      expect.arrayContaining([
        'query endpointId',
        'query eventType',
        'query status',
        'query from',
        'query to',
      ]),
    );
    for (const name of ['CreateWebhookEndpointRequest', 'WebhookEndpoint', 'WebhookEndpointWithSecret']) {
      expect(document.components.schemas[name], name).toHaveProperty('example');
    }
    for (const path of ['/api/v1/webhooks', '/api/v1/webhooks/{id}', '/api/v1/webhooks/deliveries']) {
      for (const operation of Object.values(document.paths[path]) as { security: unknown }[]) {
        expect(operation.security, path).toEqual([{ oauth2: ['webhooks.manage'] }]);
      }
    }
  });

  it('says that a recipient correction and a settings change name at least one field (minProperties), as the server refuses an empty body', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: OPENAPI_PATH })).json();
    const body = (path: string, method: string) => {
      const schema = document.paths[path][method].requestBody.content['application/json'].schema;
      return schema.$ref ? document.components.schemas[schema.$ref.split('/').at(-1)] : schema;
    };
    expect(body('/api/v1/envelopes/{id}/recipients/{recipientId}', 'patch')).toMatchObject({
      minProperties: 1,
      additionalProperties: false,
    });
    expect(body('/api/v1/envelopes/{id}/settings', 'put')).toMatchObject({
      minProperties: 1,
      additionalProperties: false,
    });
  });

  it('is shaped for client generators: one named schema per shape, simple nullable types, no deep inline objects, nothing unused', async () => {
    const document = (await harness.app.inject({ method: 'GET', url: OPENAPI_PATH })).json();
    const schemas = document.components.schemas as Record<string, Record<string, unknown>>;
    const names = Object.keys(schemas);
    // zod's input/output twins are merged: no `…Input` names, and the ones generators and clients use exist.
    expect(names.filter((name) => name.endsWith('Input'))).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining([
        'Error',
        'ErrorInfo',
        'Envelope',
        'EnvelopeList',
        'Recipient',
        'CreateEnvelopeRequest',
        'NewRecipient',
        'CorrectRecipientRequest',
        'Diagnostics',
        'OauthClientSecret',
        'CredentialChanger',
      ]),
    );
    // Every named schema is used by an operation (openapi-generator's "unused model").
    const text = JSON.stringify({ ...document, components: { ...document.components, schemas: {} } });
    const used = new Set<string>();
    const queue = [...text.matchAll(/#\/components\/schemas\/(\w+)/g)].map((match) => match[1] as string);
    while (queue.length > 0) {
      const name = queue.pop() as string;
      if (used.has(name)) continue;
      used.add(name);
      for (const match of JSON.stringify(schemas[name]).matchAll(/#\/components\/schemas\/(\w+)/g)) {
        queue.push(match[1] as string);
      }
    }
    expect(names.filter((name) => !used.has(name))).toEqual([]);
    // No union nested in a union, no empty-string constant, no object with properties below a named schema's
    // own properties, and no string with both a format and a pattern.
    const problems: string[] = [];
    const walk = (value: unknown, path: string, depth: number): void => {
      if (Array.isArray(value)) {
        value.forEach((item, index) => {
          walk(item, `${path}/${index}`, depth);
        });
        return;
      }
      if (typeof value !== 'object' || value === null) return;
      const schema = value as Record<string, unknown>;
      const anyOf = schema.anyOf as unknown[] | undefined;
      if (anyOf?.some((branch) => typeof branch === 'object' && branch !== null && 'anyOf' in branch)) {
        problems.push(`${path}: nested anyOf`);
      }
      if (schema.const === '') problems.push(`${path}: const ""`);
      if (depth > 0 && schema.type === 'object' && schema.properties) problems.push(`${path}: inline object`);
      if (typeof schema.format === 'string' && typeof schema.pattern === 'string') {
        problems.push(`${path}: format and pattern`);
      }
      for (const [key, child] of Object.entries(schema)) {
        if (key === 'example' || key === 'examples') continue;
        const deeper = key === 'properties' || key === 'items' || key === 'anyOf' ? 1 : 0;
        walk(child, `${path}/${key}`, depth + deeper);
      }
    };
    for (const [name, schema] of Object.entries(schemas)) walk(schema, name, 0);
    expect(problems).toEqual([]);
    // A field where "" means "not set": one nullable string whose pattern admits "".
    const correction = schemas.CorrectRecipientRequest as {
      properties: Record<string, Record<string, unknown>>;
    };
    const language = correction.properties.language;
    expect(language).toMatchObject({ type: ['string', 'null'] });
    expect(new RegExp(language?.pattern as string).test('')).toBe(true);
    expect(new RegExp(language?.pattern as string).test('he')).toBe(true);
    expect(new RegExp(language?.pattern as string).test('hebrew')).toBe(false);
  });

  it('matches the committed client types, clients/typescript/src/schema.d.ts (run `npm run clients:generate` after changing routes)', async () => {
    expect(await readFile(CLIENT_TYPES, 'utf8')).toBe(await clientTypesFrom(await buildOpenApiDocument()));
  });

  it('serves the interactive viewer at /swagger', async () => {
    const response = await fetch(`${baseUrl}/swagger`);
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/swagger/i);
  });
});

describe('a client generated from the OpenAPI document', () => {
  it('runs the integrator flow: token, templates, upload, create, get', async () => {
    const api = createClient<paths>({ baseUrl });

    const token = await api.POST('/oauth/token', {
      body: {
        grant_type: 'client_credentials',
        scope: 'templates.read files.write envelopes.read envelopes.write',
      },
      bodySerializer: (body) => new URLSearchParams(body as Record<string, string>).toString(),
      headers: {
        Authorization: `Basic ${Buffer.from(`${integrator.clientId}:${integrator.clientSecret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
    });
    expect(token.response.status).toBe(200);
    expect(token.data?.token_type).toBe('Bearer');
    const accessToken = token.data?.access_token as string;
    const authed = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${accessToken}` } });

    const templates = await authed.GET('/api/v1/templates');
    expect(templates.response.status).toBe(200);
    const template = templates.data?.find((t) => t.id === integrator.templateId);
    expect(template?.roles.map((r) => r.name)).toEqual(['Client', 'Provider']);

    const form = new FormData();
    form.append(
      'file',
      new Blob([await buildDemoPdf('Uploaded contract')], { type: 'application/pdf' }),
      'contract.pdf',
    );
    const upload = await authed.POST('/api/v1/files/upload', {
      // openapi-fetch sends what the serializer returns: the multipart form with the PDF bytes.
      body: { file: 'contract.pdf' },
      bodySerializer: () => form,
      headers: { 'Idempotency-Key': `upload-${Date.now()}` },
    });
    expect(upload.response.status).toBe(201);
    expect(upload.data).toMatchObject({ name: 'contract.pdf', pageCount: 1 });

    const created = await authed.POST('/api/v1/envelopes/from-template', {
      body: {
        title: 'Generated-client envelope',
        workflowType: 'Sequential',
        templateId: integrator.templateId,
        externalReference: 'GEN-1',
        recipients: [
          { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
          { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
        ],
      },
    });
    expect(created.response.status).toBe(201);
    expect(created.data?.status).toBe('Draft');

    const got = await authed.GET('/api/v1/envelopes/{id}', {
      params: { path: { id: created.data?.id as string } },
    });
    expect(got.response.status).toBe(200);
    expect(got.data?.externalReference).toBe('GEN-1');
    expect(got.data?.recipients.map((r) => r.roleName)).toEqual(['Client', 'Provider']);
  });
});

interface Operation {
  parameters?: { in: string; name: string }[];
  responses: Record<string, { content?: Record<string, unknown> }>;
}

// GET /api/v1/envelopes/{id}/documents/original (issue 34): the PDF an envelope was made from — its template's PDF
// or its uploaded file — byte for byte, at any status, under envelopes.read; another organization's envelope and
// purged files are 404; in sandbox, a synthetic envelope's original is the same real PDF.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoredFile, Template } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { uploadFile } from '../../services/files/upload-file.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { asUser, bearer, type Caller, callAs, expectError } from '../support/app-requests.ts';
import { storedBytes } from '../support/stored-files.ts';

let harness: ApiHarness;
let acme: Integrator;
let other: Integrator;
let reader: Caller;

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  other = await newIntegrator(harness);
  reader = bearer(await acme.token(['envelopes.read', 'envelopes.write']));
});
afterAll(() => harness?.close());

const RECIPIENTS = [
  { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
  { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
];

function fromTemplate(caller: Caller, options = {}) {
  return callAs(
    harness.app,
    caller,
    'POST',
    '/api/v1/envelopes/from-template',
    { title: 'Services agreement', templateId: acme.templateId, recipients: RECIPIENTS },
    { status: 201, ...options },
  );
}

async function templateBytes(): Promise<Buffer> {
  const em = harness.ctx.orm.em.fork();
  const template = await em.findOneOrFail(Template, { id: acme.templateId });
  return storedBytes(harness.ctx, template.fileId);
}

const original = (id: string, caller: Caller = reader, headers: Record<string, string> = {}) =>
  asUser(harness.app, caller, 'GET', `/api/v1/envelopes/${id}/documents/original`, undefined, { headers });

describe('GET /api/v1/envelopes/{id}/documents/original', () => {
  it('answers the template’s PDF byte for byte for a Draft, as an attachment', async () => {
    const envelope = await fromTemplate(reader);
    expect(envelope.status).toBe('Draft');
    const response = await original(envelope.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toBe(
      `attachment; filename="${envelope.id}-original.pdf"`,
    );
    expect(response.rawPayload.equals(await templateBytes())).toBe(true);
  });

  it('answers the uploaded file for an envelope made from a file, also once sent', async () => {
    const bytes = await buildDemoPdf(`Upload ${randomUUID()}`);
    const file = await uploadFile(harness.ctx, {
      organizationId: acme.organizationId,
      filename: 'supply.pdf',
      bytes,
      maxBytes: 25 * 1024 * 1024,
    });
    const box = { width: 150, height: 30 };
    const envelope = await callAs(
      harness.app,
      reader,
      'POST',
      '/api/v1/envelopes/from-file',
      {
        title: 'Supply agreement',
        fileId: file.id,
        fields: [{ type: 'Signature', role: 'Client', label: 'Signature', page: 1, x: 56, y: 160, ...box }],
        recipients: [{ roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' }],
      },
      { status: 201 },
    );
    await callAs(harness.app, reader, 'POST', `/api/v1/envelopes/${envelope.id}/send`);
    const response = await original(envelope.id);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.rawPayload.equals(Buffer.from(bytes))).toBe(true);
    expect(response.rawPayload.equals(await templateBytes())).toBe(false);

    // Once a deleted envelope's files are purged by retention, there is nothing to answer.
    await harness.ctx.orm.em.fork().nativeUpdate(StoredFile, { id: file.id }, { purgedAt: new Date() });
    const purged = expectError(await original(envelope.id), 404, 'not_found');
    expect(purged.message).toMatch(/purged/);
  });

  it('needs envelopes.read, hides other organizations’ envelopes, and checks the id', async () => {
    const envelope = await fromTemplate(reader);
    const withoutScope = bearer(await acme.token(['envelopes.write', 'webhooks.manage']));
    const error = expectError(await original(envelope.id, withoutScope), 403, 'forbidden');
    expect(error.message).toMatch(/envelopes\.read/);
    const stranger = bearer(await other.token(['envelopes.read']));
    expectError(await original(envelope.id, stranger), 404, 'not_found');
    expectError(await original(randomUUID()), 404, 'not_found');
    expectError(await original('not-a-uuid'), 400, 'invalid_request');
  });

  it('in sandbox, answers the synthetic envelope’s real original; ids never cross modes', async () => {
    const sandbox = { 'x-service-sandbox': 'true' };
    const synthetic = await fromTemplate(reader, { headers: sandbox });
    const response = await original(synthetic.id, reader, sandbox);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['x-service-sandbox']).toBe('true');
    expect(response.rawPayload.equals(await templateBytes())).toBe(true);
    expectError(await original(synthetic.id), 404, 'not_found');
    const real = await fromTemplate(reader);
    expectError(await original(real.id, reader, sandbox), 404, 'not_found');
  });
});

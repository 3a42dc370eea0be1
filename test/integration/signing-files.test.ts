// GET /api/signing/:token/files/:fileId through the whole app: a signer gets back the files their own fields
// currently hold (a drawn signature, an uploaded PDF), never another recipient's, an old value's or an unknown
// one; an OTP recipient only with a signer session; a link that can no longer act gets what the document
// route gives it. A read records nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEvent, StoredFile } from '../../db/entities/index.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { type ApiHarness, newIntegrator, openApiHarness, sentEnvelope } from '../support/api.ts';
import { encodePng } from '../support/png.ts';

let harness: ApiHarness;
let headers: { authorization: string };
let organizationId: string;
let templateId: string;

const box = { page: 1, width: 150, height: 20 };
const FILES_TEMPLATE = {
  name: 'Signer files template',
  roles: [
    { name: 'Client', required: true },
    { name: 'Provider', required: true },
    { name: 'Witness', required: false },
  ],
  fields: [
    { type: 'Signature', role: 'Client', label: 'Client signature', x: 40, y: 40, ...box, height: 40 },
    { type: 'File upload', role: 'Client', label: 'Contract copy', x: 40, y: 100, ...box },
    { type: 'Signature', role: 'Provider', label: 'Provider signature', x: 300, y: 40, ...box, height: 40 },
    { type: 'Signature', role: 'Witness', label: 'Witness signature', x: 300, y: 100, ...box, height: 40 },
  ],
};

beforeAll(async () => {
  harness = await openApiHarness();
  const acme = await newIntegrator(harness);
  organizationId = acme.organizationId;
  headers = await acme.auth();
  const template = await createTemplate(harness.ctx, {
    organizationId,
    pdf: await buildDemoPdf(),
    filename: 'files.pdf',
    definition: FILES_TEMPLATE,
    publish: true,
  });
  templateId = template.id;
});
afterAll(() => harness.close());

/** A small PNG with a horizontal stroke of the given colour. */
function png(width: number, height: number, colour = [20, 30, 120, 255]): Buffer {
  return encodePng(width, height, (_x, y) => (Math.abs(y - height / 2) < 2 ? colour : [0, 0, 0, 0]));
}

/** A Parallel envelope: Client and Provider by secure link, the Witness with an SMS one-time code. */
async function filesEnvelope() {
  const envelope = await sentEnvelope(
    harness,
    { organizationId, headers },
    {
      title: 'Signer files agreement',
      workflowType: 'Parallel',
      templateId,
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
        {
          roleName: 'Witness',
          fullName: 'Noa Witness',
          phone: '+972501234567',
          deliveryChannel: 'Sms',
          authenticationMethod: 'OtpSms',
        },
      ],
    },
  );
  const witness = envelope.linkOf('Noa Witness');
  return {
    id: envelope.id,
    client: envelope.tokenOf('Dana Levi'),
    provider: envelope.tokenOf('Sam Cohen'),
    witness: { token: witness.token, recipientId: witness.recipientId },
  };
}

function signer(method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown, session?: string) {
  return harness.app.inject({
    method,
    url,
    remoteAddress: '203.0.113.21',
    headers: { 'user-agent': 'Sigil files test', ...(session ? { 'x-signing-session': session } : {}) },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

const file = (token: string, fileId: string, session?: string) =>
  signer('GET', `/api/signing/${token}/files/${fileId}`, undefined, session);

async function fields(token: string, session?: string) {
  const response = await signer('GET', `/api/signing/${token}`, undefined, session);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().fields as { label: string; fieldDefinitionId: string; value: unknown }[];
}

async function save(token: string, values: Record<string, unknown>, session?: string) {
  const ids = Object.fromEntries((await fields(token, session)).map((f) => [f.label, f.fieldDefinitionId]));
  const saved = await signer(
    'PUT',
    `/api/signing/${token}/fields`,
    { values: Object.entries(values).map(([label, value]) => ({ fieldDefinitionId: ids[label], value })) },
    session,
  );
  expect(saved.statusCode, saved.body.slice(0, 500)).toBe(200);
}

async function savedFileId(token: string, label: string, session?: string): Promise<string> {
  const value = (await fields(token, session)).find((f) => f.label === label)?.value as { fileId?: unknown };
  expect(value?.fileId).toEqual(expect.any(String));
  return value.fileId as string;
}

function expectError(response: Awaited<ReturnType<typeof file>>, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json()).toMatchObject({
    error: { code, message: expect.any(String), details: expect.any(Array), request_id: expect.any(String) },
  });
}

const auditCount = (envelopeId: string) => harness.ctx.orm.em.fork().count(AuditEvent, { envelopeId });

describe('files saved in signer fields', () => {
  it('serves the current signature PNG inline and an uploaded PDF as an attachment, recording nothing', async () => {
    const envelope = await filesEnvelope();
    const signature = png(60, 20);
    const contract = Buffer.from(await buildDemoPdf('Contract "copy"'));
    await save(envelope.client, {
      'Client signature': { imagePngBase64: signature.toString('base64'), typedName: 'Dana Levi' },
      'Contract copy': {
        fileBase64: contract.toString('base64'),
        filename: 'חוזה "final".pdf',
        contentType: 'application/pdf',
      },
    });
    const signatureId = await savedFileId(envelope.client, 'Client signature');
    const contractId = await savedFileId(envelope.client, 'Contract copy');
    const eventsBefore = await auditCount(envelope.id);

    const image = await file(envelope.client, signatureId);
    expect(image.statusCode, image.body).toBe(200);
    expect(image.headers).toMatchObject({
      'content-type': 'image/png',
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
      'content-disposition': 'inline',
    });
    // Stored as sent: the very same bytes.
    expect(Buffer.compare(image.rawPayload, signature)).toBe(0);

    const pdf = await file(envelope.client, contractId);
    expect(pdf.statusCode, pdf.body.slice(0, 200)).toBe(200);
    expect(pdf.headers).toMatchObject({
      'content-type': 'application/pdf',
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
      'content-disposition': 'attachment; filename="____ _final_.pdf"',
    });
    expect(Buffer.compare(pdf.rawPayload, contract)).toBe(0);

    expect(await auditCount(envelope.id)).toBe(eventsBefore);
  });

  it('answers not_found for another recipient’s file, an unknown id and a replaced value, 400 for a non-uuid', async () => {
    const envelope = await filesEnvelope();
    const first = png(60, 20);
    await save(envelope.client, { 'Client signature': { imagePngBase64: first.toString('base64') } });
    const oldId = await savedFileId(envelope.client, 'Client signature');

    expectError(await file(envelope.provider, oldId), 404, 'not_found');
    expectError(await file(envelope.client, randomUUID()), 404, 'not_found');
    expectError(await file(envelope.client, 'not-a-uuid'), 400, 'invalid_request');

    const second = png(80, 30, [200, 10, 10, 255]);
    await save(envelope.client, { 'Client signature': { imagePngBase64: second.toString('base64') } });
    const newId = await savedFileId(envelope.client, 'Client signature');
    expect(newId).not.toBe(oldId);
    expectError(await file(envelope.client, oldId), 404, 'not_found');
    // The replaced image is not left behind: its stored file goes with the change.
    const stored = (id: string) => harness.ctx.orm.em.fork().count(StoredFile, { id });
    expect(await stored(oldId)).toBe(0);
    expect(await stored(newId)).toBe(1);
    const current = await file(envelope.client, newId);
    expect(current.statusCode).toBe(200);
    expect(Buffer.compare(current.rawPayload, second)).toBe(0);

    // The Provider's own saved signature is theirs to see, and still not the Client's.
    await save(envelope.provider, { 'Provider signature': { imagePngBase64: first.toString('base64') } });
    const providerId = await savedFileId(envelope.provider, 'Provider signature');
    expect((await file(envelope.provider, providerId)).statusCode).toBe(200);
    expectError(await file(envelope.client, providerId), 404, 'not_found');

    // Clearing a value removes its file too.
    await save(envelope.client, { 'Client signature': null });
    expect(await stored(newId)).toBe(0);
  });

  it('serves an OTP recipient’s file only with their signer session', async () => {
    const envelope = await filesEnvelope();
    const { token, recipientId } = envelope.witness;
    expect((await signer('POST', `/api/signing/${token}/otp`)).statusCode).toBe(200);
    const captured = await harness.app.inject({
      method: 'GET',
      url: `/api/dev/notifications?recipientId=${recipientId}&kind=otp&limit=1`,
    });
    expect(captured.statusCode, captured.body).toBe(200);
    const code = captured.json().notifications[0].otpCode as string;
    const verified = await signer('POST', `/api/signing/${token}/otp/verify`, { code });
    expect(verified.statusCode, verified.body).toBe(200);
    const session = verified.json().sessionToken as string;

    const signature = png(40, 16);
    await save(token, { 'Witness signature': { imagePngBase64: signature.toString('base64') } }, session);
    const fileId = await savedFileId(token, 'Witness signature', session);

    const refused = await file(token, fileId);
    expectError(refused, 403, 'forbidden');
    // The same answer as the document route gives without a session.
    expect(refused.json().error.details).toEqual([
      { field: 'X-Signing-Session', message: 'missing, unknown or expired signer session' },
    ]);
    expectError(await file(token, fileId, 'A'.repeat(43)), 403, 'forbidden');
    const served = await file(token, fileId, session);
    expect(served.statusCode, served.body).toBe(200);
    expect(Buffer.compare(served.rawPayload, signature)).toBe(0);
  });

  it('answers as the document route does once the link can no longer act', async () => {
    // Completed: the Client signs, the envelope still waits for the Provider.
    const completed = await filesEnvelope();
    await save(completed.client, { 'Client signature': { imagePngBase64: png(60, 20).toString('base64') } });
    const signed = await savedFileId(completed.client, 'Client signature');
    const done = await signer('POST', `/api/signing/${completed.client}/complete`, { consent: true });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json().state).toBe('completed');
    const document = await signer('GET', `/${completed.client}/document`);
    const afterCompletion = await file(completed.client, signed);
    expectError(afterCompletion, document.statusCode, document.json().error.code);
    expect(afterCompletion.statusCode).toBe(409);
    expect(afterCompletion.json().error.details).toEqual([{ field: 'state', message: 'completed' }]);

    // Cancelled.
    const cancelledEnvelope = await filesEnvelope();
    await save(cancelledEnvelope.client, {
      'Client signature': { imagePngBase64: png(60, 20).toString('base64') },
    });
    const fileId = await savedFileId(cancelledEnvelope.client, 'Client signature');
    const cancelled = await harness.app.inject({
      method: 'POST',
      url: `/api/v1/envelopes/${cancelledEnvelope.id}/cancel`,
      headers,
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    const refusedDocument = await signer('GET', `/${cancelledEnvelope.client}/document`);
    const afterCancel = await file(cancelledEnvelope.client, fileId);
    expectError(afterCancel, refusedDocument.statusCode, refusedDocument.json().error.code);
    expect(afterCancel.statusCode).toBe(409);
    expect(afterCancel.json().error.details).toEqual([{ field: 'state', message: 'cancelled' }]);

    // An unknown token is not found, as everywhere in the signer API.
    expectError(await file('A'.repeat(43), fileId), 404, 'not_found');
  });
});

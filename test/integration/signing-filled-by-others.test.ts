// Other recipients' values on a signer's page (issue 32): GET /api/signing/:token gives a recipient, beside
// their own fields, the fields of every recipient who has completed with the values they left (`filledByOthers`),
// and GET /api/signing/:token/files/:fileId serves the pictures among them; nothing of a recipient who has not
// completed, no upload that is not a picture, nothing to another envelope's link.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import {
  type ApiHarness,
  type Integrator,
  newIntegrator,
  openApiHarness,
  sentEnvelope,
} from '../support/api.ts';
import { encodePng } from '../support/png.ts';

let harness: ApiHarness;
let acme: Integrator;
let headers: { authorization: string };
let templateId: string;

const box = { page: 1, width: 150, height: 20 };
const TEMPLATE = {
  name: 'Filled by others template',
  roles: [
    { name: 'Client', required: true },
    { name: 'Provider', required: true },
    { name: 'Observer', required: true },
  ],
  fields: [
    { type: 'Text', role: 'Client', label: 'Address', x: 40, y: 40, ...box },
    { type: 'Date', role: 'Client', label: 'Start date', x: 40, y: 70, ...box },
    { type: 'Checkbox', role: 'Client', label: 'Agree', x: 40, y: 100, ...box, width: 20 },
    { type: 'Radio', role: 'Client', label: 'Plan', x: 40, y: 130, ...box, options: ['Basic', 'Pro'] },
    { type: 'Dropdown', role: 'Client', label: 'City', x: 40, y: 160, ...box, options: ['Haifa', 'Eilat'] },
    { type: 'Signature', role: 'Client', label: 'Client signature', x: 40, y: 190, ...box, height: 40 },
    { type: 'File upload', role: 'Client', label: 'Contract copy', x: 40, y: 240, ...box },
    { type: 'Text', role: 'Client', label: 'Left empty', x: 40, y: 270, ...box },
    { type: 'Full name', role: 'Provider', label: 'Provider name', x: 300, y: 40, required: true, ...box },
  ],
};

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  headers = await acme.auth();
  const template = await createTemplate(harness.ctx, {
    organizationId: acme.organizationId,
    pdf: await buildDemoPdf(),
    filename: 'others.pdf',
    definition: TEMPLATE,
    publish: true,
  });
  templateId = template.id;
});
afterAll(() => harness.close());

const SIGNATURE = encodePng(60, 20, (_x, y) => (Math.abs(y - 10) < 2 ? [20, 30, 120, 255] : [0, 0, 0, 0]));

/** Client, then Provider, then a Viewer (Sequential); or all three at once (Parallel). */
function agreement(workflowType: 'Sequential' | 'Parallel') {
  return {
    title: 'Filled by others',
    workflowType,
    templateId,
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1 },
      { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', signingOrder: 2 },
      {
        roleName: 'Observer',
        fullName: 'Vera View',
        email: 'vera@example.com',
        type: 'Viewer',
        signingOrder: 3,
      },
    ],
  };
}

const signer = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) =>
  harness.app.inject({
    method,
    url,
    remoteAddress: '203.0.113.31',
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });

async function view(token: string) {
  const response = await signer('GET', `/api/signing/${token}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

const file = (token: string, fileId: string) => signer('GET', `/api/signing/${token}/files/${fileId}`);

/** The Client fills every field but one (and does not complete). */
async function clientFills(token: string): Promise<{ signatureId: string; contractId: string }> {
  const ids = Object.fromEntries(
    ((await view(token)).fields as { label: string; fieldDefinitionId: string }[]).map((f) => [
      f.label,
      f.fieldDefinitionId,
    ]),
  );
  const values = {
    Address: '12 Herzl St., Haifa',
    'Start date': '2026-05-01',
    Agree: true,
    Plan: 'Pro',
    City: 'Eilat',
    'Client signature': { imagePngBase64: SIGNATURE.toString('base64'), typedName: 'Dana Levi' },
    'Contract copy': {
      fileBase64: Buffer.from(await buildDemoPdf('Contract')).toString('base64'),
      filename: 'contract.pdf',
      contentType: 'application/pdf',
    },
  };
  const saved = await signer('PUT', `/api/signing/${token}/fields`, {
    values: Object.entries(values).map(([label, value]) => ({ fieldDefinitionId: ids[label], value })),
  });
  expect(saved.statusCode, saved.body.slice(0, 300)).toBe(200);
  // Saving one's own values never shows them as someone else's.
  expect(saved.json().filledByOthers).toEqual([]);
  const fileIdOf = (label: string) =>
    (saved.json().fields as { label: string; value: { fileId: string } }[]).find((f) => f.label === label)
      ?.value.fileId as string;
  return { signatureId: fileIdOf('Client signature'), contractId: fileIdOf('Contract copy') };
}

/** What the Client's completed fields show another recipient. */
function clientValues(signatureId: string) {
  return [
    {
      label: 'Address',
      type: 'Text',
      filledBy: 'Client',
      value: { kind: 'text', text: '12 Herzl St., Haifa' },
    },
    { label: 'Start date', type: 'Date', value: { kind: 'text', text: '2026-05-01' } },
    { label: 'Agree', type: 'Checkbox', value: { kind: 'checkbox', checked: true } },
    { label: 'Plan', type: 'Radio', value: { kind: 'text', text: 'Pro' } },
    { label: 'City', type: 'Dropdown', value: { kind: 'text', text: 'Eilat' } },
    { label: 'Client signature', type: 'Signature', value: { kind: 'image', fileId: signatureId } },
    // An upload that is not a picture: its name, never its file.
    { label: 'Contract copy', type: 'File upload', value: { kind: 'file', filename: 'contract.pdf' } },
  ].map((expected) => expect.objectContaining({ filledBy: 'Client', page: 1, ...expected }));
}

describe("other recipients' values on a signer's page", () => {
  it('shows the next signer and a Viewer what a signer filled once they completed, never before', async () => {
    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      agreement('Sequential'),
    );
    const client = envelope.tokenOf('Dana Levi');
    const provider = envelope.tokenOf('Sam Cohen');
    const { signatureId, contractId } = await clientFills(client);

    // Before the Client completes: the Provider is not in turn and sees nothing of theirs.
    expect(await view(provider)).toMatchObject({ state: 'not_in_turn', fields: [], filledByOthers: [] });
    expect((await file(provider, signatureId)).statusCode).toBe(409);

    expect((await signer('POST', `/api/signing/${client}/complete`, { consent: true })).statusCode).toBe(200);
    const next = await view(provider);
    expect(next.state).toBe('ready');
    expect(next.filledByOthers).toEqual(clientValues(signatureId));
    expect(next.filledByOthers[0]).toMatchObject({ x: 40, y: 40, width: 150, height: 20 });
    // The field left empty shows nothing; the Provider's own fields are theirs alone.
    expect(next.filledByOthers.map((f: { label: string }) => f.label)).not.toContain('Left empty');
    expect(next.fields.map((f: { label: string }) => f.label)).toEqual(['Provider name']);

    // The Client's signature is served to the Provider; the uploaded PDF is not.
    const picture = await file(provider, signatureId);
    expect(picture.statusCode).toBe(200);
    expect(picture.headers['content-type']).toBe('image/png');
    expect(Buffer.from(picture.rawPayload).subarray(1, 4).toString()).toBe('PNG');
    expect((await file(provider, contractId)).statusCode).toBe(404);

    // Another envelope's link cannot fetch it.
    const other = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      agreement('Parallel'),
    );
    const foreign = await file(other.tokenOf('Sam Cohen'), signatureId);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('not_found');

    // A save answers the same view.
    const providerName = next.fields[0].fieldDefinitionId as string;
    const saved = await signer('PUT', `/api/signing/${provider}/fields`, {
      values: [{ fieldDefinitionId: providerName, value: 'Sam Cohen' }],
    });
    expect(saved.json().filledByOthers).toEqual(clientValues(signatureId));
    expect((await signer('POST', `/api/signing/${provider}/complete`, { consent: true })).statusCode).toBe(
      200,
    );

    // The Viewer, in turn after both: both signers' values.
    const viewer = await view(envelope.tokenOf('Vera View'));
    expect(viewer).toMatchObject({ state: 'ready', action: 'view', fields: [] });
    expect(viewer.filledByOthers).toEqual([
      ...clientValues(signatureId),
      expect.objectContaining({
        label: 'Provider name',
        filledBy: 'Provider',
        value: { kind: 'text', text: 'Sam Cohen' },
      }),
    ]);
    expect((await file(envelope.tokenOf('Vera View'), signatureId)).statusCode).toBe(200);
  });

  it('gives a parallel signer nothing of a signer who saved values but has not completed', async () => {
    const envelope = await sentEnvelope(
      harness,
      { organizationId: acme.organizationId, headers },
      agreement('Parallel'),
    );
    const { signatureId } = await clientFills(envelope.tokenOf('Dana Levi'));
    const provider = await view(envelope.tokenOf('Sam Cohen'));
    expect(provider).toMatchObject({ state: 'ready', filledByOthers: [] });
    const refused = await file(envelope.tokenOf('Sam Cohen'), signatureId);
    expect(refused.statusCode).toBe(404);
    expect(refused.json().error.code).toBe('not_found');
  });
});

// PATCH /api/v1/envelopes/{id}: editing a Draft through the whole app — every field the create accepts, the
// create's checks, another organization's envelope, the scope, Idempotency-Key, the refusal once sent, the
// sandbox, and an edit racing a send (real PostgreSQL, real workflow).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envelopeStateQuery, envelopeWorkflowId } from '../../workflows/contracts.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError } from '../support/app-requests.ts';
import { TWO_SIGNERS } from '../support/context.ts';

let harness: ApiHarness;
let acme: Integrator;
let other: Integrator;
let sender: { organizationId: string; headers: Record<string, string> };

beforeAll(async () => {
  harness = await openApiHarness();
  acme = await newIntegrator(harness);
  other = await newIntegrator(harness);
  sender = { organizationId: acme.organizationId, headers: await acme.auth() };
});
afterAll(() => harness.close());

type Envelope = {
  id: string;
  status: string;
  title: string;
  workflowType: string;
  expiresAt: string;
  externalReference: string | null;
  externalSystem: string | null;
  externalMetadataJson: string | null;
  allowDelegation: boolean;
  deadlineSettings: Record<string, number | null> | null;
  recipients: {
    id: string;
    roleName: string;
    fullName: string;
    email: string | null;
    phone: string | null;
    type: string;
    status: string;
    deliveryChannel: string;
    signingOrder: number;
    language: string | null;
  }[];
  initialValues: { fieldDefinitionId: string; value: unknown }[];
  updatedAt: string;
};

async function fieldId(label: string): Promise<string> {
  const template = await callAs(harness.app, sender, 'GET', `/api/v1/templates/${acme.templateId}`);
  const field = (template.fields as { fieldDefinitionId: string; label: string }[]).find(
    (f) => f.label === label,
  );
  if (!field) throw new Error(`the demo template has no field ${label}`);
  return field.fieldDefinitionId;
}

async function draft(body: Record<string, unknown> = {}): Promise<Envelope> {
  return callAs(
    harness.app,
    sender,
    'POST',
    '/api/v1/envelopes/from-template',
    { title: 'Services agreement', templateId: acme.templateId, recipients: TWO_SIGNERS, ...body },
    { status: 201 },
  );
}

const read = (id: string): Promise<Envelope> => callAs(harness.app, sender, 'GET', `/api/v1/envelopes/${id}`);
const patch = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  asUser(
    harness.app,
    { headers: { ...sender.headers, ...headers } },
    'PATCH',
    `/api/v1/envelopes/${id}`,
    body,
  );

/** What an envelope holds, without the ids and times an edit renews. */
function content(envelope: Envelope) {
  const { updatedAt: _, recipients, ...rest } = envelope;
  return { ...rest, recipients: recipients.map(({ id: __, ...recipient }) => recipient) };
}

describe('PATCH /api/v1/envelopes/{id}', () => {
  it('changes every field the create accepts and answers the envelope as GET reads it', async () => {
    const created = await draft({
      initialValues: [{ fieldDefinitionId: await fieldId('Client name'), value: 'Dana Levi' }],
    });
    const providerName = await fieldId('Provider name');
    const expiresAt = new Date(Date.now() + 12 * 24 * 60 * 60 * 1000).toISOString();
    const response = await patch(created.id, {
      title: 'Services agreement (corrected)',
      workflowType: 'Parallel',
      expiresAt,
      externalReference: 'ORDER-DRAFT-1',
      externalSystem: 'erp',
      externalMetadataJson: '{"order":1}',
      allowDelegation: true,
      reminderIntervalDays: 3,
      maxAutomaticReminders: 2,
      expiringSoonDays: 2,
      expiredExtensionGraceDays: 5,
      recipients: [
        { roleName: 'Client', fullName: 'Dana Cohen', email: 'dana.cohen@example.com', language: 'he' },
        { roleName: 'Provider', fullName: 'Sam Levi', phone: '+972501234567', deliveryChannel: 'Sms' },
        { roleName: 'Client', fullName: 'Avi Bar', email: 'avi@example.com', type: 'Cc' },
      ],
      initialValues: [{ fieldDefinitionId: providerName, value: 'Sam Levi' }],
    });
    expect(response.statusCode, response.body).toBe(200);
    const edited = response.json() as Envelope;
    expect(edited).toMatchObject({
      id: created.id,
      status: 'Draft',
      title: 'Services agreement (corrected)',
      workflowType: 'Parallel',
      expiresAt,
      externalReference: 'ORDER-DRAFT-1',
      externalSystem: 'erp',
      externalMetadataJson: '{"order":1}',
      allowDelegation: true,
      deadlineSettings: {
        reminderIntervalDays: 3,
        maxAutomaticReminders: 2,
        expiringSoonDays: 2,
        expiredExtensionGraceDays: 5,
      },
      initialValues: [{ fieldDefinitionId: providerName, value: 'Sam Levi' }],
    });
    expect(
      edited.recipients.map((r) => [
        r.roleName,
        r.fullName,
        r.email,
        r.phone,
        r.deliveryChannel,
        r.type,
        r.language,
      ]),
    ).toEqual([
      ['Client', 'Dana Cohen', 'dana.cohen@example.com', null, 'Email', 'Signer', 'he'],
      ['Provider', 'Sam Levi', null, '+972501234567', 'Sms', 'Signer', null],
      ['Client', 'Avi Bar', 'avi@example.com', null, 'Email', 'Cc', null],
    ]);
    expect(edited.recipients.every((r) => r.status === 'Pending')).toBe(true);
    // Every recipient is written again, with a new id.
    const oldIds = created.recipients.map((r) => r.id);
    expect(edited.recipients.some((r) => oldIds.includes(r.id))).toBe(false);
    expect(Date.parse(edited.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    expect(await read(created.id)).toEqual(edited);
  });

  it('keeps what the request leaves out', async () => {
    const clientName = await fieldId('Client name');
    const created = await draft({
      workflowType: 'Parallel',
      externalReference: 'KEEP-1',
      reminderIntervalDays: 4,
      expiringSoonDays: 3,
      initialValues: [{ fieldDefinitionId: clientName, value: 'Dana Levi' }],
    });
    const edited = await callAs<Envelope>(harness.app, sender, 'PATCH', `/api/v1/envelopes/${created.id}`, {
      title: 'Only the title',
    });
    expect(content(edited)).toEqual({ ...content(created), title: 'Only the title' });
    expect(edited.initialValues).toEqual([{ fieldDefinitionId: clientName, value: 'Dana Levi' }]);
    expect(edited.deadlineSettings).toMatchObject({ reminderIntervalDays: 4, expiringSoonDays: 3 });
    // null turns automatic reminders off; the other settings stay.
    const off = await callAs<Envelope>(harness.app, sender, 'PATCH', `/api/v1/envelopes/${created.id}`, {
      reminderIntervalDays: null,
    });
    expect(off.deadlineSettings).toEqual({ ...created.deadlineSettings, reminderIntervalDays: null });
  });

  it('refuses what the create refuses, with 400 naming the field, and changes nothing', async () => {
    const created = await draft();
    const cases: [unknown, string, RegExp][] = [
      [{ title: '' }, 'title', /title is required/],
      [{ expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt', /in the future/],
      [{ workflowType: 'Chaotic' }, 'workflowType', /./],
      [{ recipients: [] }, 'recipients', /at least one recipient/],
      [
        { recipients: [{ ...TWO_SIGNERS[0], roleName: 'Witness' }, TWO_SIGNERS[1]] },
        'recipients.0.roleName',
        /"Witness" is not a role/,
      ],
      [{ recipients: [TWO_SIGNERS[0]] }, 'recipients', /required role "Provider" has no recipient/],
      [
        { recipients: [{ ...TWO_SIGNERS[0], language: 'fr' }, TWO_SIGNERS[1]] },
        'recipients.0.language',
        /"fr" is not a language/,
      ],
      [
        { recipients: [{ ...TWO_SIGNERS[0], deliveryChannel: 'Sms' }, TWO_SIGNERS[1]] },
        'recipients.0.phone',
        /phone is required/,
      ],
      [
        {
          recipients: [
            { ...TWO_SIGNERS[0], signingOrder: 1 },
            { ...TWO_SIGNERS[1], signingOrder: 1 },
          ],
        },
        'recipients.1.signingOrder',
        /used twice/,
      ],
      [
        { initialValues: [{ fieldDefinitionId: '00000000-0000-4000-8000-000000000000', value: 'x' }] },
        'initialValues.0.fieldDefinitionId',
        /not a field of the template/,
      ],
      [
        { initialValues: [{ fieldDefinitionId: await fieldId('Client signature'), value: 'x' }] },
        'initialValues.0.value',
        /filled by the signer/,
      ],
      [{ maxAutomaticReminders: 99 }, 'maxAutomaticReminders', /at most 50/],
      [{ templateId: 'not-a-uuid' }, 'templateId', /uuid/],
      [{ templateId: '00000000-0000-4000-8000-000000000000' }, '', /Template .* was not found/],
    ];
    for (const [body, field, message] of cases) {
      const response = await patch(created.id, body);
      if (field === '') {
        expect(response.statusCode, JSON.stringify(body)).toBe(404);
      } else {
        const error = expectError(response, 400, 'invalid_request');
        // The route's schema names a body field `body.<field>`; the create's checks name it as the body does.
        expect(
          error.details.map((detail) => detail.field?.replace(/^body\./, '')),
          JSON.stringify(body),
        ).toContain(field);
        expect(`${error.message} ${JSON.stringify(error.details)}`).toMatch(message);
      }
    }
    expect(await read(created.id)).toEqual(created);
  });

  it('answers 404 for another organization’s Draft and an unknown id, and changes nothing', async () => {
    const created = await draft();
    const foreign = { headers: await other.auth() };
    const response = await asUser(harness.app, foreign, 'PATCH', `/api/v1/envelopes/${created.id}`, {
      title: 'Taken over',
    });
    expectError(response, 404, 'not_found');
    expectError(await patch('6d1f0b8e-2c4a-4f7e-9b1d-3e5a7c9f0a12', { title: 'Nobody’s' }), 404, 'not_found');
    expect(await read(created.id)).toEqual(created);
  });

  it('needs envelopes.write', async () => {
    const created = await draft();
    const readOnly = { headers: await acme.auth(['envelopes.read']) };
    const response = await asUser(harness.app, readOnly, 'PATCH', `/api/v1/envelopes/${created.id}`, {
      title: 'Read-only',
    });
    const error = expectError(response, 403, 'forbidden');
    expect(error.message).toMatch(/envelopes\.write/);
    expect(await read(created.id)).toEqual(created);
  });

  it('honours Idempotency-Key: the same request answers again, another with the key is 409', async () => {
    const created = await draft();
    const key = { 'idempotency-key': `draft-edit-${created.id}` };
    const first = await patch(created.id, { title: 'Once' }, key);
    expect(first.statusCode, first.body).toBe(200);
    // Changed meanwhile by a request without the key: a replay answers the stored answer, without editing again.
    await callAs(harness.app, sender, 'PATCH', `/api/v1/envelopes/${created.id}`, { title: 'Later' });
    const again = await patch(created.id, { title: 'Once' }, key);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect((await read(created.id)).title).toBe('Later');
    expectError(await patch(created.id, { title: 'Twice' }, key), 409, 'idempotency_key_reused');
  });

  it('is refused with 409 envelope_not_draft once the envelope is sent, and changes nothing', async () => {
    const created = await draft();
    await callAs(harness.app, sender, 'POST', `/api/v1/envelopes/${created.id}/send`);
    const sent = await read(created.id);
    const response = await patch(created.id, { title: 'Too late', recipients: TWO_SIGNERS });
    const error = expectError(response, 409, 'envelope_not_draft');
    expect(error.message).toMatch(/only a Draft can be edited/);
    expect(await read(created.id)).toEqual(sent);
  });

  it('edits a sandbox Draft the same way, and refuses it once sent', async () => {
    const sandbox = { 'x-service-sandbox': 'true' };
    const created = await callAs<Envelope>(
      harness.app,
      { headers: { ...sender.headers, ...sandbox } },
      'POST',
      '/api/v1/envelopes/from-template',
      { title: 'Sandbox agreement', templateId: acme.templateId, recipients: TWO_SIGNERS },
      { status: 201 },
    );
    const bad = await patch(created.id, { recipients: [TWO_SIGNERS[0]] }, sandbox);
    expect(expectError(bad, 400, 'invalid_request').message).toMatch(/required role "Provider"/);
    const edited = await patch(
      created.id,
      {
        title: 'Sandbox (edited)',
        recipients: [TWO_SIGNERS[0], { ...TWO_SIGNERS[1], fullName: 'Sam Levi' }],
      },
      sandbox,
    );
    expect(edited.statusCode, edited.body).toBe(200);
    expect(edited.headers['x-service-sandbox']).toBe('true');
    expect(edited.json()).toMatchObject({ title: 'Sandbox (edited)', status: 'Draft' });
    expect((edited.json() as Envelope).recipients.map((r) => r.fullName)).toEqual(['Dana Levi', 'Sam Levi']);
    // A synthetic envelope is no production one: the production route does not know it.
    expectError(await patch(created.id, { title: 'Production?' }), 404, 'not_found');
    await callAs(
      harness.app,
      { headers: { ...sender.headers, ...sandbox } },
      'POST',
      `/api/v1/envelopes/${created.id}/send`,
    );
    expectError(await patch(created.id, { title: 'Too late' }, sandbox), 409, 'envelope_not_draft');
  });
});

describe('an edit racing a send', () => {
  /** A sent envelope's workflow started with the recipients PostgreSQL holds (a Draft has no workflow). */
  async function startedWithWhatIsStored(envelope: Envelope): Promise<boolean> {
    if (envelope.status === 'Draft') return true;
    const state = await harness.ctx.temporal.workflow
      .getHandle(envelopeWorkflowId(envelope.id))
      .query(envelopeStateQuery);
    const ids = (list: { id: string }[]) => list.map((r) => r.id).sort();
    return JSON.stringify(ids(state.recipients)) === JSON.stringify(ids(envelope.recipients));
  }

  it('a send that loaded the Draft before an edit committed starts nothing and is refused with 409', async () => {
    const created = await draft();
    // Hold the organization's lock, which a send's reservation takes after it loaded the Draft: the send waits
    // there with the recipients it loaded while the edit commits.
    const holder = harness.ctx.orm.em.fork();
    await holder.begin();
    try {
      await holder.execute('select id from organization where id = ? for no key update', [
        acme.organizationId,
      ]);
      const send = asUser(harness.app, sender, 'POST', `/api/v1/envelopes/${created.id}/send`);
      await waitForLockWait(harness.ctx.orm.em.fork(), 'for no key update');
      const edit = await patch(created.id, {
        recipients: [{ ...TWO_SIGNERS[0], fullName: 'Dana Cohen' }, TWO_SIGNERS[1]],
      });
      expect(edit.statusCode, edit.body).toBe(200);
      await holder.commit();
      const refused = await send;
      expect(expectError(refused, 409, 'envelope_changed').message).toMatch(/edited while it was being sent/);
    } finally {
      if (holder.isInTransaction()) await holder.rollback();
    }
    const after = await read(created.id);
    expect(after.status).toBe('Draft');
    expect(after.recipients.map((r) => r.fullName)).toEqual(['Dana Cohen', 'Sam Cohen']);
    // Sent again, it sends the edited Draft.
    await callAs(harness.app, sender, 'POST', `/api/v1/envelopes/${created.id}/send`);
    const sent = await read(created.id);
    expect(sent.status).not.toBe('Draft');
    expect(await startedWithWhatIsStored(sent)).toBe(true);
  });

  it('concurrent edits and sends: either the edit applies before the send, or it is refused', async () => {
    for (let round = 0; round < 4; round += 1) {
      const created = await draft();
      const [edit, send] = await Promise.all([
        patch(created.id, { recipients: [{ ...TWO_SIGNERS[0], fullName: `Dana ${round}` }, TWO_SIGNERS[1]] }),
        asUser(harness.app, sender, 'POST', `/api/v1/envelopes/${created.id}/send`),
      ]);
      expect([200, 409], edit.body).toContain(edit.statusCode);
      expect([200, 409], send.body).toContain(send.statusCode);
      const after = await read(created.id);
      expect(await startedWithWhatIsStored(after), JSON.stringify(after)).toBe(true);
      if (edit.statusCode === 409) expect(edit.json().error.code).toBe('envelope_not_draft');
      if (send.statusCode === 409) expect(send.json().error.code).toBe('envelope_changed');
      expect(after.recipients[0]?.fullName).toBe(edit.statusCode === 200 ? `Dana ${round}` : 'Dana Levi');
      expect(after.status === 'Draft').toBe(send.statusCode === 409);
    }
  });
});

/** Waits until a statement of another session waits for a lock (its text containing `fragment`). */
async function waitForLockWait(
  em: { execute: (sql: string, params?: unknown[]) => Promise<unknown> },
  fragment: string,
) {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const rows = (await em.execute(
      `select count(*)::int as waiting from pg_stat_activity
        where wait_event_type = 'Lock' and query ilike ? and pid <> pg_backend_pid()`,
      [`%${fragment}%`],
    )) as { waiting: number }[];
    if ((rows[0]?.waiting ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no statement waited for a lock (${fragment})`);
}

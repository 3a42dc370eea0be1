// Bulk send (docs/bulk-send.md) through HTTP on real PostgreSQL and Temporal: the CSV header of a template, a
// file checked row by row (400 `invalid_csv` naming row and column, nothing stored), the plan's limits checked
// before anything starts (409), a run sent by its workflow `bulk-send/<id>` — one envelope per row with its
// externalReference and prefilled values, sent by the user who started it — its progress in the API, the
// workflow's Query and the Web UI's summary, cancel, Idempotency-Key, visibility by team and tenant, and
// documents:manage. The exactly-once rules of the rows (a retry after a crash between creating and sending, a
// row refused when its turn comes, a run whose start was lost) are driven through the activity's own function.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertBulkSend } from '../../db/bulk-sends.ts';
import { AppUser, Envelope, EnvelopeFieldValue, Organization } from '../../db/entities/index.ts';
import { sendBulkRows } from '../../services/bulk-sends/send-bulk-rows.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { resumeBulkSends } from '../../temporal/bulk-sends.ts';
import { bulkSendProgressQuery, bulkSendWorkflowId } from '../../workflows/bulk-send-contracts.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectJson } from '../support/app-requests.ts';
import { createOrganizationWithTemplate, testConfig } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let organizationId: string;
let templateId: string;
let sender: SignedInUser;
let teammate: SignedInUser;
let otherTeam: SignedInUser;
let member: SignedInUser;
let stranger: SignedInUser;
let strangerTemplateId: string;

const MANUAL = [
  { roleName: 'Client', deliveryChannel: 'ManualLink' },
  { roleName: 'Provider', deliveryChannel: 'ManualLink' },
];
const HEADER = 'externalReference,Client.name,Client.email,Provider.name,Provider.email,Date';

function csvOf(count: number, prefix = randomUUID().slice(0, 8)): string {
  const rows = Array.from(
    { length: count },
    (_, i) =>
      `${prefix}-${i + 1},Client ${i + 1},client${i + 1}@example.com,Provider ${i + 1},provider${i + 1}@example.com,2026-12-${String((i % 28) + 1).padStart(2, '0')}`,
  );
  return [HEADER, ...rows].join('\r\n');
}

const request = (csv: string, changes: Record<string, unknown> = {}) => ({
  templateId,
  title: 'Annual renewal',
  roles: MANUAL,
  filename: 'renewals.csv',
  csv,
  ...changes,
});

interface RunView {
  id: string;
  status: string;
  total: number;
  pending: number;
  sent: number;
  failed: number;
  skipped: number;
  workflowId: string;
  title: string;
  createdBy: { id: string } | null;
}

async function runCount(): Promise<number> {
  const [row] = await harness.ctx.orm.em
    .fork()
    .execute<{ count: number }[]>('select count(*)::int as count from bulk_send where organization_id = ?', [
      organizationId,
    ]);
  return row?.count ?? 0;
}

async function untilFinished(user: SignedInUser, id: string, timeoutMs = 90_000): Promise<RunView> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const run = await callAs<RunView>(harness.app, user, 'GET', `/api/bulk-sends/${id}`);
    if (run.status !== 'Running') return run;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`bulk send ${id} still running after ${timeoutMs} ms`);
}

beforeAll(async () => {
  harness = await openApiHarness();
  const made = await createOrganizationWithTemplate(harness.ctx);
  organizationId = made.organization.id;
  templateId = made.template.id;
  const owner = await signedInUser(harness, { role: 'owner', organizationId });
  const team = async (name: string) =>
    (await callAs<{ id: string }>(harness.app, owner, 'POST', '/api/teams', { name })).id;
  const sales = await team('Sales');
  const support = await team('Support');
  const user = async (role: string, teamId: string) => {
    const made = await signedInUser(harness, { role, organizationId });
    await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: made.user.id }, { teamId });
    return made;
  };
  sender = await user('sender', sales);
  teammate = await user('sender', sales);
  otherTeam = await user('sender', support);
  member = await user('member', sales);
  const elsewhere = await createOrganizationWithTemplate(harness.ctx);
  strangerTemplateId = elsewhere.template.id;
  stranger = await signedInUser(harness, { role: 'owner', organizationId: elsewhere.organization.id });
});

afterAll(async () => {
  await harness?.close();
});

describe('the file', () => {
  it('offers the header a template needs, which a check then reads column by column', async () => {
    const response = await asUser(
      harness.app,
      sender,
      'GET',
      `/api/bulk-sends/csv-template?templateId=${templateId}`,
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toContain('text/csv');
    const header = response.body.replace(/^\ufeff/, '').trim();
    expect(header).toBe(
      'externalReference,Client.name,Client.email,Client.phone,Provider.name,Provider.email,Provider.phone,Client name,Date,Provider name',
    );
    const check = await callAs<{ rows: number; columns: { column: string; kind: string; fields: number }[] }>(
      harness.app,
      sender,
      'POST',
      '/api/bulk-sends/check',
      request(csvOf(3)),
    );
    expect(check.rows).toBe(3);
    expect(check.columns.map((column) => `${column.column}:${column.kind}`)).toEqual([
      'externalReference:externalReference',
      'Client.name:recipient',
      'Client.email:recipient',
      'Provider.name:recipient',
      'Provider.email:recipient',
      'Date:field',
    ]);
    expect(await runCount()).toBe(0);
  });

  it('refuses a file with problems, naming each row and column, and stores nothing', async () => {
    const csv = [
      `${HEADER},Client signature,Fax`,
      'r-1,Dana,dana@example.com,Sam,sam@example.com,2026-12-01,,',
    ].join('\n');
    const header = await callAs<{
      error: { code: string; details: { row?: number; column?: string; message: string }[] };
    }>(harness.app, sender, 'POST', '/api/bulk-sends', request(csv), { status: 400 });
    expect(header.error.code).toBe('invalid_csv');
    expect(header.error.details).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          row: 1,
          column: 'Client signature',
          message: expect.stringContaining('cannot be prefilled'),
        }),
        expect.objectContaining({
          row: 1,
          column: 'Fax',
          message: expect.stringContaining('not a column of this template'),
        }),
      ]),
    );

    const rows = [
      HEADER,
      'r-1,Dana,dana@example.com,Sam,sam@example.com,2026-12-01',
      'r-2,Noa,not-an-email,Sam,sam@example.com,2026-12-01',
      'r-3,,,Sam,sam@example.com,2026-12-01',
      'r-1,Eli,eli@example.com,Sam,sam@example.com,2026-12-01',
      'r-5,Tal,tal@example.com,Sam,sam@example.com,tomorrow',
    ].join('\n');
    const body = await callAs<{
      error: { code: string; message: string; details: { row?: number; column?: string; message: string }[] };
    }>(harness.app, sender, 'POST', '/api/bulk-sends', request(rows), { status: 400 });
    expect(body.error.code).toBe('invalid_csv');
    expect(body.error.message).toMatch(
      /^The bulk send was not started \(nothing was sent\): row 3, Client\.email: /,
    );
    const where = body.error.details.map((detail) => `${detail.row}:${detail.column ?? ''}`);
    expect(where).toEqual(expect.arrayContaining(['3:Client.email', '5:externalReference', '6:Date']));
    expect(body.error.details.find((detail) => detail.row === 4)?.message).toContain('Client');
    expect(where.some((place) => place.startsWith('2:'))).toBe(false);

    const missing = await callAs<{ error: { details: { message: string }[] } }>(
      harness.app,
      sender,
      'POST',
      '/api/bulk-sends/check',
      request('externalReference,Client.name,Client.email\nx,Dana,dana@example.com'),
      { status: 400 },
    );
    expect(missing.error.details[0]?.message).toContain(
      'the required role "Provider" needs a column Provider.name',
    );
    const empty = await callAs<{ error: { details: { message: string }[] } }>(
      harness.app,
      sender,
      'POST',
      '/api/bulk-sends',
      request(HEADER),
      { status: 400 },
    );
    expect(empty.error.details[0]?.message).toContain('no rows after the header');
    const notCsv = await callAs<{ error: { code: string } }>(
      harness.app,
      sender,
      'POST',
      '/api/bulk-sends',
      request(`${HEADER}\n"r-1,Dana`),
      { status: 400 },
    );
    expect(notCsv.error.code).toBe('invalid_csv');
    const badSettings = await callAs<{ error: { details: { field: string }[] } }>(
      harness.app,
      sender,
      'POST',
      '/api/bulk-sends',
      request(csvOf(1), { roles: [{ roleName: 'Client', deliveryChannel: 'Pigeon' }] }),
      { status: 400 },
    );
    expect(badSettings.error.details[0]?.field).toBe('body.roles.0.deliveryChannel');
    expect(await runCount()).toBe(0);
  });

  it('checks the plan before it starts: too few envelopes or SMS credits left refuse the whole file', async () => {
    const small = await createOrganizationWithTemplate(harness.ctx);
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(Organization, { id: small.organization.id }, { planName: 'Starter' });
    const owner = await signedInUser(harness, { role: 'owner', organizationId: small.organization.id });
    const file = (count: number) => ({ ...request(csvOf(count)), templateId: small.template.id });
    const quota = await callAs<{ error: { code: string; message: string } }>(
      harness.app,
      owner,
      'POST',
      '/api/bulk-sends',
      file(26),
      { status: 409 },
    );
    expect(quota.error.code).toBe('document_limit_reached');
    expect(quota.error.message).toContain('needs 26 envelopes and the plan allows 25 more this month');
    const phones = [
      'externalReference,Client.name,Client.phone,Provider.name,Provider.email',
      'a,Dana,+972501234567,Sam,sam@example.com',
    ];
    const credits = await callAs<{ error: { code: string } }>(
      harness.app,
      owner,
      'POST',
      '/api/bulk-sends',
      {
        ...file(1),
        csv: phones.join('\n'),
        roles: [{ roleName: 'Client', deliveryChannel: 'Sms' }, MANUAL[1]],
      },
      { status: 409 },
    );
    expect(credits.error.code).toBe('sms_credits_exhausted');
    const [row] = await harness.ctx.orm.em
      .fork()
      .execute<{ count: number }[]>(
        'select count(*)::int as count from bulk_send where organization_id = ?',
        [small.organization.id],
      );
    expect(row?.count).toBe(0);
  });
});

describe('a run', () => {
  it('sends one envelope per row through its workflow, with progress in the API, the Query and the Web UI', async () => {
    const prefix = `run-${randomUUID().slice(0, 6)}`;
    const started = await callAs<RunView>(
      harness.app,
      sender,
      'POST',
      '/api/bulk-sends',
      request(csvOf(12, prefix)),
    );
    expect(started).toMatchObject({
      status: 'Running',
      total: 12,
      title: 'Annual renewal',
      createdBy: { id: sender.user.id },
    });
    expect(started.workflowId).toBe(bulkSendWorkflowId(started.id));
    const done = await untilFinished(sender, started.id);
    expect(done).toMatchObject({ status: 'Completed', sent: 12, failed: 0, pending: 0, skipped: 0 });

    const handle = harness.ctx.temporal.workflow.getHandle(started.workflowId);
    expect(await handle.query(bulkSendProgressQuery)).toMatchObject({ total: 12, sent: 12, failed: 0 });
    const description = await handle.describe();
    expect(await description.staticSummary()).toBe('Bulk send of 12 envelopes: Annual renewal');
    // What the Web UI shows as the workflow's current details.
    const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    expect(metadata.currentDetails).toBe('**Completed**: 12 of 12 rows done — 12 sent, 0 failed.');
    expect(await handle.result()).toMatchObject({ sent: 12, cancelled: false });

    const rows = await callAs<{
      items: { row: number; status: string; envelopeId: string; externalReference: string }[];
      total: number;
    }>(harness.app, sender, 'GET', `/api/bulk-sends/${started.id}/rows?limit=200`);
    expect(rows.total).toBe(12);
    expect(rows.items.map((row) => row.row)).toEqual(Array.from({ length: 12 }, (_, i) => i + 2));
    const em = harness.ctx.orm.em.fork();
    const envelopes = await em.find(Envelope, { id: { $in: rows.items.map((row) => row.envelopeId) } });
    expect(envelopes).toHaveLength(12);
    for (const row of rows.items) {
      const envelope = envelopes.find((e) => e.id === row.envelopeId) as Envelope;
      expect(envelope).toMatchObject({
        status: 'Sent',
        externalReference: `${prefix}-${row.row - 1}`,
        title: 'Annual renewal',
        createdByUserId: sender.user.id,
      });
    }
    const first = rows.items[0] as { envelopeId: string };
    const values = await em.find(EnvelopeFieldValue, { envelopeId: first.envelopeId, source: 'initial' });
    expect(values.map((value) => value.value)).toContain('2026-12-01');
    // The documents list shows the envelopes to the sender's team.
    const listed = await callAs<{ documents: { id: string }[] }>(
      harness.app,
      teammate,
      'GET',
      `/api/documents?limit=100&search=${prefix}`,
    );
    expect(listed.documents.map((d) => d.id).sort()).toEqual(rows.items.map((r) => r.envelopeId).sort());

    const list = await callAs<{ items: RunView[] }>(harness.app, teammate, 'GET', '/api/bulk-sends');
    expect(list.items.map((run) => run.id)).toContain(started.id);
  });

  it('is started once for one Idempotency-Key, and stops when cancelled: the rest Skipped', async () => {
    const headers = { 'idempotency-key': randomUUID() };
    const body = request(csvOf(120));
    const first = expectJson<RunView>(
      await asUser(harness.app, sender, 'POST', '/api/bulk-sends', body, { headers: headers }),
    );
    const again = expectJson<RunView>(
      await asUser(harness.app, sender, 'POST', '/api/bulk-sends', body, { headers: headers }),
    );
    expect(again.id).toBe(first.id);
    const [stored] = await harness.ctx.orm.em
      .fork()
      .execute<{ count: number }[]>(
        'select count(*)::int as count from bulk_send_row where bulk_send_id = ?',
        [first.id],
      );
    expect(stored?.count).toBe(120);
    const cancelled = await callAs<RunView>(
      harness.app,
      sender,
      'POST',
      `/api/bulk-sends/${first.id}/cancel`,
    );
    expect(cancelled.id).toBe(first.id);
    const done = await untilFinished(sender, first.id);
    expect(done.status).toBe('Cancelled');
    expect(done.skipped).toBeGreaterThan(0);
    expect(done.sent + done.failed + done.skipped).toBe(120);
    const skipped = await callAs<{ total: number }>(
      harness.app,
      sender,
      'GET',
      `/api/bulk-sends/${first.id}/rows?status=Skipped`,
    );
    expect(skipped.total).toBe(done.skipped);
    const late = await callAs<{ error: { code: string } }>(
      harness.app,
      sender,
      'POST',
      `/api/bulk-sends/${first.id}/cancel`,
      undefined,
      { status: 409 },
    );
    expect(late.error.code).toBe('conflict');
  });

  it('is seen by its sender’s team only, in its organization only, and needs documents:manage', async () => {
    const run = await callAs<RunView>(harness.app, sender, 'POST', '/api/bulk-sends', request(csvOf(1)));
    await callAs(harness.app, teammate, 'GET', `/api/bulk-sends/${run.id}`);
    for (const outsider of [otherTeam, stranger]) {
      expect((await asUser(harness.app, outsider, 'GET', `/api/bulk-sends/${run.id}`)).statusCode).toBe(404);
      expect((await asUser(harness.app, outsider, 'GET', `/api/bulk-sends/${run.id}/rows`)).statusCode).toBe(
        404,
      );
      expect(
        (await asUser(harness.app, outsider, 'POST', `/api/bulk-sends/${run.id}/cancel`)).statusCode,
      ).toBe(404);
      const listed = await callAs<{ items: RunView[] }>(harness.app, outsider, 'GET', '/api/bulk-sends');
      expect(listed.items.map((r) => r.id)).not.toContain(run.id);
    }
    expect(
      (
        await asUser(harness.app, stranger, 'POST', '/api/bulk-sends/check', {
          ...request(csvOf(1)),
          templateId,
        })
      ).statusCode,
    ).toBe(404);
    expect(
      (
        await asUser(
          harness.app,
          sender,
          'GET',
          `/api/bulk-sends/csv-template?templateId=${strangerTemplateId}`,
        )
      ).statusCode,
    ).toBe(404);
    for (const [method, url] of [
      ['GET', '/api/bulk-sends'],
      ['GET', `/api/bulk-sends/${run.id}`],
      ['GET', `/api/bulk-sends/${run.id}/rows`],
      ['GET', `/api/bulk-sends/csv-template?templateId=${templateId}`],
      ['POST', '/api/bulk-sends/check'],
      ['POST', '/api/bulk-sends'],
      ['POST', `/api/bulk-sends/${run.id}/cancel`],
    ] as const) {
      const response = await asUser(
        harness.app,
        member,
        method,
        url,
        method === 'POST' ? request(csvOf(1)) : undefined,
      );
      expect(response.statusCode, `${method} ${url}`).toBe(403);
    }
    await untilFinished(sender, run.id);
  });
});

describe('each row exactly once', () => {
  const services = () => ({
    em: harness.ctx.orm.em.fork(),
    temporal: harness.ctx.temporal,
    config: testConfig(),
    files: harness.ctx.files,
  });

  /** A run stored as a start stores it, without its workflow: the test drives the activity's function. */
  async function storedRun(count: number, changes: (index: number) => Record<string, unknown> = () => ({})) {
    const id = randomUUID();
    const rows = Array.from({ length: count }, (_, i) => ({
      row: i + 2,
      request: {
        templateId,
        title: 'Stored run',
        workflowType: 'Sequential',
        recipients: [
          {
            roleName: 'Client',
            fullName: `C ${i}`,
            email: `c${i}@example.com`,
            deliveryChannel: 'ManualLink',
          },
          {
            roleName: 'Provider',
            fullName: `P ${i}`,
            email: `p${i}@example.com`,
            deliveryChannel: 'ManualLink',
          },
        ],
        initialValues: [],
        ...changes(i),
      },
    }));
    await harness.ctx.orm.em.fork().transactional((tx) =>
      insertBulkSend(
        tx,
        {
          id,
          organizationId,
          templateId,
          createdByUserId: sender.user.id,
          teamId: null,
          filename: null,
          settings: { title: 'Stored run' },
          workflowId: bulkSendWorkflowId(id),
        },
        rows,
      ),
    );
    return id;
  }

  async function rowsOf(id: string) {
    return harness.ctx.orm.em
      .fork()
      .execute<{ row_number: number; status: string; envelope_id: string | null; error: string | null }[]>(
        'select row_number, status, envelope_id, error from bulk_send_row where bulk_send_id = ? order by row_number',
        [id],
      );
  }

  it('after a crash between creating and sending, sends the envelope it made rather than a second one', async () => {
    const id = await storedRun(3);
    // Row 2's envelope was created (and recorded) by an attempt that died before sending it.
    const em = harness.ctx.orm.em.fork();
    const [stored] = await em.execute<{ request: Record<string, unknown> }[]>(
      'select request from bulk_send_row where bulk_send_id = ? and row_number = 2',
      [id],
    );
    const input = { ...(stored?.request as object), organizationId } as Parameters<typeof createEnvelope>[1];
    const made = await createEnvelope({ em }, input, undefined, {
      inTransaction: async (tx, envelope) => {
        await tx.execute(
          `update bulk_send_row set envelope_id = ?, status = 'Created' where bulk_send_id = ? and row_number = 2`,
          [envelope.id, id],
        );
      },
    });
    const before = await harness.ctx.orm.em.fork().count(Envelope, { organizationId, title: 'Stored run' });
    let beats = 0;
    const page = await sendBulkRows(services, { bulkSendId: id, limit: 10, concurrency: 2 }, () => {
      beats += 1;
    });
    expect(page).toEqual({ sent: 3, failed: 0, remaining: 0 });
    expect(beats).toBe(3);
    const after = await harness.ctx.orm.em.fork().count(Envelope, { organizationId, title: 'Stored run' });
    expect(after - before).toBe(2);
    const rows = await rowsOf(id);
    expect(rows.map((row) => row.status)).toEqual(['Sent', 'Sent', 'Sent']);
    expect(rows[0]?.envelope_id).toBe(made.id);
    const envelope = await harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id: made.id });
    expect(envelope.status).toBe('Sent');
    // A second pass (a retry of a page that had finished) finds nothing to do.
    expect(await sendBulkRows(services, { bulkSendId: id, limit: 10, concurrency: 2 })).toEqual({
      sent: 0,
      failed: 0,
      remaining: 0,
    });
  });

  it('marks a row the service refuses when its turn comes as Failed with the reason, and goes on', async () => {
    // Row 3 names a template the organization cannot send (as one archived after the file was checked).
    const archived = await createOrganizationWithTemplate(harness.ctx);
    const id = await storedRun(3, (i) => (i === 1 ? { templateId: archived.template.id } : {}));
    const page = await sendBulkRows(services, { bulkSendId: id, limit: 10, concurrency: 1 });
    expect(page).toEqual({ sent: 2, failed: 1, remaining: 0 });
    const rows = await rowsOf(id);
    expect(rows.map((row) => row.status)).toEqual(['Sent', 'Failed', 'Sent']);
    expect(rows[1]?.error).toContain(`Template ${archived.template.id} was not found`);
    expect(rows[1]?.envelope_id).toBeNull();
  });

  it('starts the workflow of a run whose start was lost, from the worker’s sweep', async () => {
    const id = await storedRun(2);
    await harness.ctx.orm.em
      .fork()
      .execute(`update bulk_send set created_at = now() - interval '5 minutes' where id = ?`, [id]);
    expect(await resumeBulkSends(harness.ctx.orm.em.fork(), harness.ctx.temporal)).toBeGreaterThanOrEqual(1);
    const done = await untilFinished(sender, id);
    expect(done).toMatchObject({ status: 'Completed', sent: 2 });
    // Once finished, the sweep leaves it alone.
    const [still] = await harness.ctx.orm.em
      .fork()
      .execute<{ count: number }[]>(
        `select count(*)::int as count from bulk_send where id = ? and status = 'Running'`,
        [id],
      );
    expect(still?.count).toBe(0);
  });
});

// The documents list as a CSV file (GET /api/documents/export, docs/documents.md "Export") through HTTP with
// signed-in sessions on real PostgreSQL: the list's tab, search and filters, every match (read a page at a time,
// more than one page), the columns, formulas defused as the contacts' export does, who sees which envelope (a
// sender their own, documents:read_all all, another organization nothing), the permission, refused input and
// the bound (more than 10,000 matches refused, naming what to do).
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENT_EXPORT_LIMITS } from '../../domain/document-export.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError } from '../support/app-requests.ts';
import { documentTemplate } from '../support/documents.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let owner: SignedInUser;
let senderA: SignedInUser;
let senderB: SignedInUser;
let stranger: SignedInUser;
let templateId: string;
let otherTemplateId: string;

const HEADER = [
  'title',
  'status',
  'template',
  'sender',
  'recipients',
  'created_at',
  'updated_at',
  'deadline',
  'completed_at',
];

async function draft(
  by: SignedInUser,
  title: string,
  options: { template?: string; recipients?: unknown[]; expiresAt?: string } = {},
): Promise<string> {
  const envelope = await createEnvelope(
    harness.ctx,
    {
      organizationId: owner.organization.id,
      templateId: options.template ?? templateId,
      title,
      recipients: (options.recipients ?? [
        {
          roleName: 'Client',
          fullName: 'Dana Levi',
          email: 'dana@example.com',
          deliveryChannel: 'ManualLink',
        },
        {
          roleName: 'Provider',
          fullName: '@Sam Cohen',
          phone: '+972501234567',
          deliveryChannel: 'ManualLink',
        },
      ]) as never,
      ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}),
    },
    { userId: by.user.id, teamId: null },
  );
  return envelope.id;
}

/** The export's rows (header first), read back with csv-parse as a spreadsheet would. */
async function exported(as: SignedInUser, query = ''): Promise<string[][]> {
  const response = await asUser(harness.app, as, 'GET', `/api/documents/export${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return parse(response.body, { bom: true }) as string[][];
}

const titles = (rows: string[][]) => rows.slice(1).map((row) => row[0]);

beforeAll(async () => {
  harness = await openApiHarness();
  owner = await signedInUser(harness, { role: 'owner' });
  const organizationId = owner.organization.id;
  senderA = await signedInUser(harness, { role: 'sender', organizationId, fullName: 'Avi Sender' });
  senderB = await signedInUser(harness, { role: 'sender', organizationId, fullName: '=Bea Sender' });
  stranger = await signedInUser(harness, { role: 'owner' });
  templateId = await documentTemplate(harness.ctx, organizationId);
  otherTemplateId = await documentTemplate(harness.ctx, organizationId);
  await draft(senderA, 'Lease A1', { expiresAt: '2030-01-02T03:04:05.000Z' });
  await draft(senderA, '=HYPERLINK("http://evil.example","x")');
  await draft(senderB, 'Lease B1', { template: otherTemplateId });
  const sent = await draft(senderB, '+Sent B2');
  await sendEnvelope(harness.ctx, organizationId, sent);
  await draft(senderA, 'Contract A3');
});
afterAll(() => harness?.close());

describe('documents: CSV export', () => {
  it('writes every envelope the list shows, newest first, in the columns, with formulas defused', async () => {
    const response = await asUser(harness.app, owner, 'GET', '/api/documents/export');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="documents-\d{4}-\d{2}-\d{2}\.csv"/,
    );
    expect(response.body.startsWith(`\uFEFF${HEADER.join(',')}\r\n`)).toBe(true);
    const rows = parse(response.body, { bom: true }) as string[][];
    expect(rows[0]).toEqual(HEADER);
    expect(titles(rows)).toEqual([
      'Contract A3',
      "'+Sent B2",
      'Lease B1',
      `'=HYPERLINK("http://evil.example","x")`,
      'Lease A1',
    ]);
    const lease = rows.find((row) => row[0] === 'Lease A1') as string[];
    const [, status, template, sender, recipients, created, updated, deadline, completed] = lease;
    expect({ status, template, sender, recipients, deadline, completed }).toEqual({
      status: 'Draft',
      template: expect.any(String),
      sender: 'Avi Sender',
      recipients: 'Dana Levi <dana@example.com> (Pending); @Sam Cohen <+972501234567> (Pending)',
      deadline: '2030-01-02T03:04:05.000Z',
      completed: '',
    });
    expect(template).not.toBe('');
    expect(created).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(updated as string)).toBeGreaterThanOrEqual(Date.parse(created as string));
    // A sender whose name starts a formula is defused too; the sent envelope is no longer a draft.
    const sent = rows.find((row) => row[0] === "'+Sent B2") as string[];
    expect(sent[1]).not.toBe('Draft');
    expect(sent[3]).toBe("'=Bea Sender");
    // No cell of the file starts with a formula character.
    for (const row of rows) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('applies the tab, the search and the filters as the list does', async () => {
    const sentTab = await exported(owner, '?tab=in_progress');
    expect(titles(sentTab)).toEqual(["'+Sent B2"]);
    expect(titles(await exported(owner, '?tab=drafts&search=lease'))).toEqual(['Lease B1', 'Lease A1']);
    expect(titles(await exported(owner, `?templateId=${otherTemplateId}`))).toEqual(['Lease B1']);
    expect(titles(await exported(owner, `?sender=${senderA.user.id}&search=a3`))).toEqual(['Contract A3']);
    expect(titles(await exported(owner, '?from=2099-01-01T00:00:00.000Z'))).toEqual([]);
    // The list answers the same envelopes for the same query.
    const list = await callAs(harness.app, owner, 'GET', '/api/documents?tab=drafts&search=lease');
    expect(list.documents.map((row: { title: string }) => row.title)).toEqual(['Lease B1', 'Lease A1']);
  });

  it('shows a sender only their own envelopes and another organization none', async () => {
    expect(titles(await exported(senderA))).toEqual([
      'Contract A3',
      `'=HYPERLINK("http://evil.example","x")`,
      'Lease A1',
    ]);
    expect(titles(await exported(senderB))).toEqual(["'+Sent B2", 'Lease B1']);
    // Filtering by another user's id shows a sender nothing of theirs.
    expect(titles(await exported(senderA, `?sender=${senderB.user.id}`))).toEqual([]);
    expect(await exported(stranger)).toEqual([HEADER]);
    expect(await exported(stranger, `?templateId=${templateId}&sender=${senderA.user.id}`)).toEqual([HEADER]);
  });

  it('needs documents:read and a session', async () => {
    const role = await callAs(harness.app, owner, 'POST', '/api/roles', {
      name: 'Contacts only',
      permissions: ['contacts:read'],
    });
    const outsider = await signedInUser(harness, { role: role.id, organizationId: owner.organization.id });
    const error = expectError(
      await asUser(harness.app, outsider, 'GET', '/api/documents/export'),
      403,
      'forbidden',
    );
    expect(error.details).toEqual([expect.objectContaining({ permission: 'documents:read' })]);
    const anonymous = await harness.app.inject({ method: 'GET', url: '/api/documents/export' });
    expect(anonymous.statusCode).toBe(401);
  });

  it('refuses bad input with 400 naming the field', async () => {
    for (const [query, field] of [
      ['?tab=everything', 'querystring.tab'],
      ['?sender=someone', 'querystring.sender'],
      ['?teamId=1', 'querystring.teamId'],
      ['?from=yesterday', 'querystring.from'],
      ['?from=2026-02-01T00:00:00.000Z&to=2026-01-01T00:00:00.000Z', 'querystring.to'],
      [`?search=${'x'.repeat(201)}`, 'querystring.search'],
    ] as const) {
      const error = expectError(
        await asUser(harness.app, owner, 'GET', `/api/documents/export${query}`),
        400,
        'invalid_request',
      );
      expect(error.details.map((detail) => detail.field)).toContain(field);
    }
  });

  it('reads every match a page at a time, and refuses more than the bound', async () => {
    const user = await signedInUser(harness, { role: 'owner' });
    const most = DOCUMENT_EXPORT_LIMITS.rows;
    // most + 1 drafts, one a minute, the newest in 2026-01-01's first minutes going back.
    await harness.ctx.orm.em.fork().execute(
      `insert into envelope (id, organization_id, title, workflow_type, status, created_by_user_id,
                             created_at, updated_at)
       select gen_random_uuid(), ?, 'Bulk ' || g, 'Sequential', 'Draft', ?,
              timestamptz '2026-01-01T00:00:00Z' - g * interval '1 minute',
              timestamptz '2026-01-01T00:00:00Z' - g * interval '1 minute'
         from generate_series(1, ?) g`,
      [user.organization.id, user.user.id, most + 1],
    );
    const error = expectError(
      await asUser(harness.app, user, 'GET', '/api/documents/export'),
      400,
      'export_too_large',
    );
    expect(error.message).toContain('Narrow the list');
    // Without the oldest, exactly the bound: every row, in order, across the pages.
    const rows = await exported(
      user,
      `?from=${new Date(Date.parse('2026-01-01T00:00:00Z') - most * 60_000).toISOString()}`,
    );
    expect(rows).toHaveLength(most + 1);
    expect(rows[1]?.[0]).toBe('Bulk 1');
    expect(rows[DOCUMENT_EXPORT_LIMITS.page + 1]?.[0]).toBe(`Bulk ${DOCUMENT_EXPORT_LIMITS.page + 1}`);
    expect(rows[most]?.[0]).toBe(`Bulk ${most}`);
    expect(new Set(titles(rows)).size).toBe(most);
  });

  it('is documented as a text/csv answer of the application routes', async () => {
    const response = await harness.app.inject({ method: 'GET', url: '/api/openapi/app/openapi.json' });
    if (response.statusCode !== 200) return expect.fail(`no application document: ${response.statusCode}`);
    const operation = response.json().paths['/api/documents/export'].get;
    expect(Object.keys(operation.responses['200'].content)).toEqual(['text/csv']);
  });
});

// GET /api/v1/envelopes (issue 34): the organization's envelopes — each as the detail route shows it — filtered by
// status, template, external reference and system, created and updated ranges and a text query on the title and
// recipients; sorted by creation or last change; keyset pages from an opaque cursor that envelopes created
// meanwhile neither repeat nor shift; bad input is a 400 naming the field; another organization's envelopes never
// appear; envelopes.read is required; the sandbox header is refused (the list has no sandbox mode).
import type { Connection } from '@temporalio/client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp } from '../../api/app.ts';
import { createOrm } from '../../db/orm.ts';
import { TEXT_QUERY_WALK } from '../../services/envelopes/list-envelopes.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { asUser, bearer, type Caller, callAs, expectError } from '../support/app-requests.ts';
import { testConfig } from '../support/context.ts';

let harness: ApiHarness;

beforeAll(async () => {
  harness = await openApiHarness();
});
afterAll(() => harness?.close());

interface Envelope {
  id: string;
  title: string;
  status: string;
  templateId: string | null;
  externalReference: string | null;
  createdAt: string;
  updatedAt: string;
}
interface Page {
  items: Envelope[];
  nextCursor: string | null;
}

interface Org {
  integrator: Integrator;
  caller: Caller;
}

async function newOrg(): Promise<Org> {
  const integrator = await newIntegrator(harness);
  return { integrator, caller: bearer(await integrator.token(['envelopes.read', 'envelopes.write'])) };
}

function create(org: Org, title: string, extra: Record<string, unknown> = {}): Promise<Envelope> {
  return callAs(
    harness.app,
    org.caller,
    'POST',
    '/api/v1/envelopes/from-template',
    {
      title,
      templateId: org.integrator.templateId,
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
      ],
      ...extra,
    },
    { status: 201 },
  );
}

const list = (org: Org, query = '', caller: Caller = org.caller): Promise<Page> =>
  callAs(harness.app, caller, 'GET', `/api/v1/envelopes${query ? `?${query}` : ''}`);

const ids = (page: Page) => page.items.map((item) => item.id);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GET /api/v1/envelopes', () => {
  let org: Org;
  let first: Envelope;
  let second: Envelope;
  let third: Envelope;
  let betweenFirstAndSecond: string;

  beforeAll(async () => {
    org = await newOrg();
    first = await create(org, 'Lease of the harbour office', {
      externalReference: 'deal-7',
      externalSystem: 'crm',
    });
    await pause(20);
    betweenFirstAndSecond = new Date().toISOString();
    await pause(20);
    second = await create(org, 'Supply agreement', {
      externalReference: 'deal-7',
      externalSystem: 'erp',
      recipients: [
        { roleName: 'Client', fullName: 'Noa Barak', email: 'noa@buyer.example' },
        {
          roleName: 'Provider',
          fullName: 'Omer Tal',
          email: 'omer@example.com',
          phone: '+972541234567',
          deliveryChannel: 'Sms',
        },
      ],
    });
    await pause(20);
    third = await create(org, 'Services agreement 100%_done', { externalReference: 'deal-8' });
  });

  it('answers the organization’s envelopes newest first, each exactly as the detail route shows it', async () => {
    const page = await list(org);
    expect(ids(page)).toEqual([third.id, second.id, first.id]);
    expect(page.nextCursor).toBeNull();
    for (const item of page.items) {
      expect(item).toEqual(await callAs(harness.app, org.caller, 'GET', `/api/v1/envelopes/${item.id}`));
    }
  });

  it('never shows another organization’s envelopes, whatever the filters', async () => {
    const other = await newOrg();
    const foreign = await create(other, 'Lease of the harbour office', { externalReference: 'deal-7' });
    expect(ids(await list(org, 'externalReference=deal-7'))).toEqual([second.id, first.id]);
    expect(ids(await list(org, 'q=harbour'))).toEqual([first.id]);
    expect(ids(await list(other))).toEqual([foreign.id]);
    expect(ids(await list(other, `templateId=${org.integrator.templateId}`))).toEqual([]);
  });

  it('filters by external reference (every envelope that has it), external system and template', async () => {
    expect(ids(await list(org, 'externalReference=deal-7'))).toEqual([second.id, first.id]);
    expect(ids(await list(org, 'externalReference=deal-9'))).toEqual([]);
    expect(ids(await list(org, 'externalSystem=erp'))).toEqual([second.id]);
    expect(ids(await list(org, `templateId=${org.integrator.templateId}`))).toEqual([
      third.id,
      second.id,
      first.id,
    ]);
    expect(ids(await list(org, `templateId=${crypto.randomUUID()}`))).toEqual([]);
  });

  it('filters by a created range: from inclusive, to exclusive', async () => {
    const from = encodeURIComponent(betweenFirstAndSecond);
    expect(ids(await list(org, `createdFrom=${from}`))).toEqual([third.id, second.id]);
    expect(ids(await list(org, `createdTo=${from}`))).toEqual([first.id]);
    expect(ids(await list(org, `createdFrom=${encodeURIComponent(second.createdAt)}`))).toEqual([
      third.id,
      second.id,
    ]);
    expect(ids(await list(org, `createdTo=${encodeURIComponent(second.createdAt)}`))).toEqual([first.id]);
  });

  it('finds text in the title and in recipients’ names, emails and phones, without regard to case', async () => {
    expect(ids(await list(org, 'q=HARBOUR'))).toEqual([first.id]);
    expect(ids(await list(org, 'q=omer%20tal'))).toEqual([second.id]);
    expect(ids(await list(org, 'q=buyer.example'))).toEqual([second.id]);
    expect(ids(await list(org, 'q=54123'))).toEqual([second.id]);
    expect(ids(await list(org, 'q=dana'))).toEqual([third.id, first.id]);
    // % and _ are letters, not wildcards.
    expect(ids(await list(org, 'q=100%25_'))).toEqual([third.id]);
    expect(ids(await list(org, 'q=%25'))).toEqual([third.id]);
    expect(ids(await list(org, 'q=nobody'))).toEqual([]);
    // Filters combine with AND.
    expect(ids(await list(org, 'q=agreement&externalReference=deal-7'))).toEqual([second.id]);
  });

  it('filters by several statuses, sorts by last change, and filters an updated range', async () => {
    const sent = await create(org, 'Sent for the status filter');
    await pause(20);
    const sentAt = new Date().toISOString();
    await pause(20);
    await callAs(harness.app, org.caller, 'POST', `/api/v1/envelopes/${sent.id}/send`);
    let status = 'Draft';
    for (let attempt = 0; attempt < 100 && status === 'Draft'; attempt++) {
      status = (await callAs<Envelope>(harness.app, org.caller, 'GET', `/api/v1/envelopes/${sent.id}`))
        .status;
      if (status === 'Draft') await pause(100);
    }
    expect(status).not.toBe('Draft');

    expect(ids(await list(org, 'status=Draft'))).toEqual([third.id, second.id, first.id]);
    expect(ids(await list(org, `status=${status}`))).toEqual([sent.id]);
    expect(ids(await list(org, `status=Completed,${status},Draft`))).toEqual([
      sent.id,
      third.id,
      second.id,
      first.id,
    ]);
    expect(ids(await list(org, 'status=Completed,Cancelled'))).toEqual([]);

    // Created last of the four, but sorted by last change it comes first; ascending, last.
    const byUpdate = await list(org, 'sort=updatedAt');
    expect(byUpdate.items[0]?.id).toBe(sent.id);
    expect(ids(await list(org, 'sort=updatedAt&order=asc')).at(-1)).toBe(sent.id);
    expect(ids(await list(org, 'sort=createdAt&order=asc'))).toEqual([
      first.id,
      second.id,
      third.id,
      sent.id,
    ]);
    expect(ids(await list(org, `updatedFrom=${encodeURIComponent(sentAt)}`))).toEqual([sent.id]);
    expect(ids(await list(org, `updatedTo=${encodeURIComponent(sentAt)}`))).toEqual([
      third.id,
      second.id,
      first.id,
    ]);
  });
});

describe('pages', () => {
  it('walks every envelope once with a cursor, in both sorts and orders', async () => {
    const org = await newOrg();
    const created: Envelope[] = [];
    for (let index = 0; index < 7; index++) created.push(await create(org, `Envelope ${index}`));
    const newestFirst = created.map((envelope) => envelope.id).reverse();
    for (const [query, expected] of [
      ['', newestFirst],
      ['order=asc', [...newestFirst].reverse()],
      ['sort=updatedAt', newestFirst],
      ['sort=updatedAt&order=asc', [...newestFirst].reverse()],
    ] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: Page = await list(
          org,
          [query, 'limit=3', cursor ? `cursor=${cursor}` : ''].filter(Boolean).join('&'),
        );
        seen.push(...ids(page));
        expect(page.items.length).toBeLessThanOrEqual(3);
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      expect(seen, query).toEqual(expected);
      expect(pages).toBe(3);
    }
  });

  it('is stable under concurrent inserts: envelopes created while paging neither repeat nor shift a page', async () => {
    const org = await newOrg();
    const created: Envelope[] = [];
    for (let index = 0; index < 6; index++) created.push(await create(org, `Before ${index}`));
    const expected = created.map((envelope) => envelope.id).reverse();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await list(org, `limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...ids(page));
      cursor = page.nextCursor;
      // Two envelopes created between each page and the next (an OFFSET page would shift by two and repeat).
      await Promise.all([create(org, 'Meanwhile A'), create(org, 'Meanwhile B')]);
    } while (cursor);
    expect(seen).toEqual(expected);
  });

  it('takes limit 1 to 100 (default 20) and refuses anything else naming limit', async () => {
    const org = await newOrg();
    for (let index = 0; index < 21; index++) await create(org, `Envelope ${index}`);
    const defaultPage = await list(org);
    expect(defaultPage.items).toHaveLength(20);
    expect(defaultPage.nextCursor).toEqual(expect.any(String));
    expect((await list(org, 'limit=100')).items).toHaveLength(21);
    expect((await list(org, 'limit=1')).items).toHaveLength(1);
    for (const limit of ['0', '101', 'ten', '2.5', '-1']) {
      const response = await asUser(harness.app, org.caller, 'GET', `/api/v1/envelopes?limit=${limit}`);
      const error = expectError(response, 400, 'invalid_request');
      expect(error.details.map((detail) => detail.field)).toEqual(['querystring.limit']);
    }
  });

  it('refuses a cursor that is not a previous page’s, or was read with another sort or order, naming cursor', async () => {
    const org = await newOrg();
    for (let index = 0; index < 3; index++) await create(org, `Envelope ${index}`);
    const { nextCursor } = await list(org, 'limit=1');
    expect(nextCursor).toEqual(expect.any(String));
    const cursor = nextCursor as string;
    const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
    const tampered = [
      'not-a-cursor',
      `${cursor}x`,
      '!!!',
      Buffer.from(decoded.replace(/\|[^|]+$/, '|not-an-id'), 'utf8').toString('base64url'),
      Buffer.from(decoded.replace('createdAt', 'title'), 'utf8').toString('base64url'),
      Buffer.from(`${decoded}|more`, 'utf8').toString('base64url'),
      'x'.repeat(300),
    ];
    for (const bad of tampered) {
      const response = await asUser(
        harness.app,
        org.caller,
        'GET',
        `/api/v1/envelopes?limit=1&cursor=${encodeURIComponent(bad)}`,
      );
      const error = expectError(response, 400, 'invalid_request');
      expect(error.details.map((detail) => detail.field)).toContain('querystring.cursor');
    }
    for (const other of ['order=asc', 'sort=updatedAt']) {
      const response = await asUser(
        harness.app,
        org.caller,
        'GET',
        `/api/v1/envelopes?${other}&cursor=${cursor}`,
      );
      const error = expectError(response, 400, 'invalid_request');
      expect(error.details.map((detail) => detail.field)).toEqual(['querystring.cursor']);
    }
  });
});

describe('bad input, scope and sandbox', () => {
  let org: Org;
  beforeAll(async () => {
    org = await newOrg();
  });

  it('refuses an unknown status, sort, order, template id, date or range naming the field', async () => {
    for (const [query, field] of [
      ['status=Sent,Signed', 'querystring.status'],
      ['status=sent', 'querystring.status'],
      ['status=', 'querystring.status'],
      ['sort=title', 'querystring.sort'],
      ['order=up', 'querystring.order'],
      ['templateId=42', 'querystring.templateId'],
      ['createdFrom=yesterday', 'querystring.createdFrom'],
      ['updatedTo=2026-01-01', 'querystring.updatedTo'],
      ['createdFrom=2026-02-01T00:00:00Z&createdTo=2026-01-01T00:00:00Z', 'querystring.createdTo'],
      [`q=${'x'.repeat(201)}`, 'querystring.q'],
    ] as const) {
      const response = await asUser(harness.app, org.caller, 'GET', `/api/v1/envelopes?${query}`);
      const error = expectError(response, 400, 'invalid_request');
      expect(
        error.details.map((detail) => detail.field),
        query,
      ).toEqual([field]);
    }
    const response = await asUser(harness.app, org.caller, 'GET', '/api/v1/envelopes?status=Sent,Signed');
    expect(response.json().error.message).toContain('Signed');
  });

  it('needs envelopes.read (403 forbidden naming the scope)', async () => {
    const writer = bearer(await org.integrator.token(['envelopes.write']));
    const response = await asUser(harness.app, writer, 'GET', '/api/v1/envelopes');
    const error = expectError(response, 403, 'forbidden');
    expect(error.message).toContain('envelopes.read');
    expectError(await asUser(harness.app, null, 'GET', '/api/v1/envelopes'), 401, 'unauthorized');
  });

  it('refuses X-Service-Sandbox: true naming the header, rather than answer with production envelopes', async () => {
    await create(org, 'Production envelope');
    const response = await asUser(harness.app, org.caller, 'GET', '/api/v1/envelopes', undefined, {
      headers: { 'x-service-sandbox': 'TRUE' },
    });
    const error = expectError(response, 400, 'invalid_request');
    expect(error.details.map((detail) => detail.field)).toEqual(['headers.x-service-sandbox']);
    // Any other value is production, as on every route.
    const page = await callAs<Page>(harness.app, org.caller, 'GET', '/api/v1/envelopes', undefined, {
      headers: { 'x-service-sandbox': 'false' },
    });
    expect(page.items.map((item) => item.title)).toEqual(['Production envelope']);
  });
});

describe('a text query over more envelopes than it first looks through', () => {
  it('finds a rare match past the newest envelopes, pages a common one, and matches a whole address exactly', async () => {
    const org = await newOrg();
    const rare = await create(org, 'Consulting terms', {
      recipients: [
        { roleName: 'Client', fullName: 'Zelda Quill', email: 'zelda.quill@example.com' },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
      ],
    });
    // TEXT_QUERY_WALK + 100 newer envelopes (copies of an envelope without recipients), each a millisecond apart.
    const filler = await create(org, 'Filler');
    const fillers = TEXT_QUERY_WALK + 100;
    await harness.ctx.em.execute(
      `insert into envelope
       select (jsonb_populate_record(null::envelope, to_jsonb(e) || jsonb_build_object(
                 'id', gen_random_uuid(), 'title', 'Filler lease ' || g,
                 'created_at', e.created_at + g * interval '1 millisecond',
                 'updated_at', e.updated_at + g * interval '1 millisecond'))).*
         from envelope e, generate_series(1, ?) g
        where e.id = ?`,
      [fillers, filler.id],
    );
    expect(ids(await list(org, 'q=quill'))).toEqual([rare.id]);
    expect(ids(await list(org, 'q=QUILL&sort=updatedAt&order=asc'))).toEqual([rare.id]);
    expect(ids(await list(org, 'q=Zelda.Quill@Example.com'))).toEqual([rare.id]);
    // A whole address is that address, not a part of a longer one.
    expect(ids(await list(org, 'q=quill@example.com'))).toEqual([]);
    const first = await list(org, 'q=filler%20lease&limit=3');
    expect(first.items.map((item) => item.title)).toEqual([
      `Filler lease ${fillers}`,
      `Filler lease ${fillers - 1}`,
      `Filler lease ${fillers - 2}`,
    ]);
    const seen = new Set<string>();
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: Page = await list(org, `q=lease&limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      for (const id of ids(page)) seen.add(id);
      cursor = page.nextCursor;
    }
    expect(seen.size).toBe(fillers);
  });
});

describe('statements', () => {
  it('reads a page of up to 100 envelopes with at most three SQL statements, one of them for the envelopes', async () => {
    const org = await newOrg();
    for (let index = 0; index < 30; index++) await create(org, `Envelope ${index}`);
    const statements: string[] = [];
    const orm = await createOrm({
      databaseUrl: inject('databaseUrl'),
      poolMax: 2,
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
    try {
      const countFor = async (query: string) => {
        statements.length = 0;
        const page = await callAs<Page>(app, org.caller, 'GET', `/api/v1/envelopes?${query}`);
        return {
          items: page.items.length,
          count: statements.length,
          reads: statements.filter((sql) => /from\s+envelope\b/i.test(sql)).length,
        };
      };
      const one = await countFor('limit=1');
      const many = await countFor('limit=100&q=envelope');
      expect(one.items).toBe(1);
      expect(many.items).toBe(30);
      // The bearer check, now and then the token's last-use write, and the page: never one per envelope.
      expect(one.count).toBeLessThanOrEqual(3);
      expect(many.count).toBeLessThanOrEqual(3);
      expect(one.reads).toBe(1);
      expect(many.reads).toBe(1);
    } finally {
      await app.close();
      await orm.close();
    }
  });
});

describe('OpenAPI', () => {
  it('declares the list with its query parameters, their examples and the EnvelopeList answer', async () => {
    const document = await callAs(harness.app, null, 'GET', '/api/openapi/v1/openapi.json');
    const operation = document.paths['/api/v1/envelopes'].get;
    const parameters = new Map<string, { in: string; example?: unknown; schema?: { example?: unknown } }>(
      operation.parameters.map((parameter: { name: string }) => [parameter.name, parameter]),
    );
    for (const name of [
      'status',
      'templateId',
      'externalReference',
      'externalSystem',
      'createdFrom',
      'createdTo',
      'updatedFrom',
      'updatedTo',
      'q',
      'sort',
      'order',
      'limit',
      'cursor',
    ]) {
      expect(parameters.get(name)?.in, name).toBe('query');
    }
    for (const name of ['status', 'q', 'createdFrom', 'cursor']) {
      const parameter = parameters.get(name);
      expect(parameter?.example ?? parameter?.schema?.example, name).toEqual(expect.any(String));
    }
    expect(operation.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/EnvelopeList',
    });
    expect(document.components.schemas.EnvelopeList.properties.items.items).toEqual({
      $ref: '#/components/schemas/Envelope',
    });
  });
});

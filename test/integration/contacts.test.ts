// The address book through HTTP with signed-in sessions on real PostgreSQL (docs/contacts.md): adding,
// changing and deleting contacts; the list's order and pages; search over each field (phone numbers as people
// type them too); one contact per email (case-insensitively) and per phone among contacts without an email;
// another organization's contacts invisible (404, absent from lists, searches and exports); every refused
// input a 400 naming its field; CSV import all or nothing, upserting by email, with each bad row and column
// named; CSV export with formula cells neutralized, which imports back unchanged.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Contact } from '../../db/entities/index.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { type ApiError, asUser, callAs, expectError } from '../support/app-requests.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let owner: SignedInUser;
let member: SignedInUser;
let stranger: SignedInUser;

beforeAll(async () => {
  harness = await openApiHarness();
  owner = await signedInUser(harness, { role: 'sender' });
  member = await signedInUser(harness, { role: 'member', organizationId: owner.organization.id });
  stranger = await signedInUser(harness, { role: 'owner' });
});
afterAll(() => harness?.close());

interface ErrorBody {
  code: string;
  message: string;
  details: {
    field?: string;
    row?: number;
    line?: number;
    column?: string;
    message: string;
    contactId?: string;
  }[];
}

/** The fields of a 400's details. */
function fieldsOf(error: ApiError): string[] {
  return error.details.map((detail) => detail.field ?? '');
}

/** A signed-in sender of a new organization of its own (an empty address book). */
async function freshOrganization(): Promise<SignedInUser> {
  return signedInUser(harness, { role: 'sender' });
}

async function add(as: SignedInUser, contact: Record<string, unknown>) {
  return callAs(harness.app, as, 'POST', '/api/contacts', contact);
}

async function search(as: SignedInUser, words: string): Promise<string[]> {
  const { contacts } = await callAs(
    harness.app,
    as,
    'GET',
    `/api/contacts?search=${encodeURIComponent(words)}`,
  );
  return contacts.map((contact: { name: string }) => contact.name);
}

describe('contacts: adding, changing, deleting and listing', () => {
  it('adds a contact with its fields normalized, changes every field with PUT, and deletes it', async () => {
    const user = await freshOrganization();
    const created = await add(user, {
      name: '  Dana Levi ',
      company: ' Acme Ltd ',
      email: ' Dana.Levi@Example.COM ',
      phone: '+972 (50) 123-4567',
      tags: ['VIP', 'tel aviv', 'vip', ' suppliers '],
    });
    expect(created).toEqual({
      id: expect.any(String),
      name: 'Dana Levi',
      company: 'Acme Ltd',
      email: 'dana.levi@example.com',
      phone: '+972501234567',
      tags: ['VIP', 'tel aviv', 'suppliers'],
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const list = await callAs(harness.app, user, 'GET', '/api/contacts');
    expect(list).toEqual({ contacts: [created], total: 1, nextOffset: null });

    // PUT replaces the whole contact: what is left out becomes empty.
    const changed = await callAs(harness.app, user, 'PUT', `/api/contacts/${created.id}`, {
      name: 'Dana Cohen',
      phone: '+972501234567',
    });
    expect(changed).toMatchObject({
      id: created.id,
      name: 'Dana Cohen',
      company: null,
      email: null,
      phone: '+972501234567',
      tags: [],
    });
    const stored = await harness.ctx.orm.em.fork().findOneOrFail(Contact, { id: created.id });
    expect(stored).toMatchObject({ name: 'Dana Cohen', email: null, company: null, tags: [] });

    expect(await callAs(harness.app, user, 'DELETE', `/api/contacts/${created.id}`)).toEqual({ ok: true });
    expectError(await asUser(harness.app, user, 'DELETE', `/api/contacts/${created.id}`), 404, 'not_found');
    expectError(
      await asUser(harness.app, user, 'PUT', `/api/contacts/${created.id}`, {
        name: 'Back',
        phone: '+15551234567',
      }),
      404,
      'not_found',
    );
    expect((await callAs(harness.app, user, 'GET', '/api/contacts')).total).toBe(0);
  });

  it('lists by name without regard to case, a page at a time', async () => {
    const user = await freshOrganization();
    const names = ['charlie', 'Alice', 'bob', 'Dave', 'eve'];
    for (const [index, name] of names.entries()) {
      await add(user, { name, email: `${name.toLowerCase()}-${index}@example.com` });
    }
    const first = await callAs(harness.app, user, 'GET', '/api/contacts?limit=2');
    expect(first.contacts.map((contact: { name: string }) => contact.name)).toEqual(['Alice', 'bob']);
    expect(first).toMatchObject({ total: 5, nextOffset: 2 });
    const second = await callAs(harness.app, user, 'GET', '/api/contacts?limit=2&offset=2');
    expect(second.contacts.map((contact: { name: string }) => contact.name)).toEqual(['charlie', 'Dave']);
    expect(second.nextOffset).toBe(4);
    const last = await callAs(harness.app, user, 'GET', '/api/contacts?limit=2&offset=4');
    expect(last.contacts.map((contact: { name: string }) => contact.name)).toEqual(['eve']);
    expect(last.nextOffset).toBeNull();
    const beyond = await callAs(harness.app, user, 'GET', '/api/contacts?limit=2&offset=10');
    expect(beyond).toEqual({ contacts: [], total: 5, nextOffset: null });
  });

  it('lets a read-only member list and export, and refuses their changes', async () => {
    const contact = await add(owner, {
      name: 'Read Only Target',
      email: `target-${randomUUID()}@example.com`,
    });
    expect(
      (await callAs(harness.app, member, 'GET', '/api/contacts?search=Read%20Only%20Target')).total,
    ).toBe(1);
    expect((await asUser(harness.app, member, 'GET', '/api/contacts/export')).statusCode).toBe(200);
    for (const [method, url, body] of [
      ['POST', '/api/contacts', { name: 'Nope', email: 'nope@example.com' }],
      ['PUT', `/api/contacts/${contact.id}`, { name: 'Nope', email: 'nope@example.com' }],
      ['DELETE', `/api/contacts/${contact.id}`, undefined],
      ['POST', '/api/contacts/import', { csv: 'name,email\nNope,nope@example.com\n' }],
    ] as const) {
      const error = expectError(await asUser(harness.app, member, method, url, body), 403, 'forbidden');
      expect(error.details).toEqual([expect.objectContaining({ permission: 'contacts:manage' })]);
    }
  });
});

describe('contacts: search', () => {
  let user: SignedInUser;

  beforeAll(async () => {
    user = await freshOrganization();
    await add(user, {
      name: 'Dana Levi',
      company: 'Acme Ltd',
      email: 'dana@acme.example',
      phone: '+972501234567',
      tags: ['suppliers', 'VIP'],
    });
    await add(user, {
      name: 'נועה כהן',
      company: 'Globex',
      email: 'noa@globex.example',
      tags: ['לקוחות'],
    });
    await add(user, { name: 'Sam 100% Sure', phone: '+442071234567', tags: ['london_office'] });
    await add(user, { name: 'Omer Acmeson', email: 'omer@initech.example' });
  });

  it('finds contacts by each field, without regard to case', async () => {
    expect(await search(user, 'dana')).toEqual(['Dana Levi']);
    expect(await search(user, 'LEVI')).toEqual(['Dana Levi']);
    expect(await search(user, 'globex')).toEqual(['נועה כהן']);
    expect(await search(user, 'כהן')).toEqual(['נועה כהן']);
    expect(await search(user, 'initech.example')).toEqual(['Omer Acmeson']);
    expect(await search(user, '+9725012')).toEqual(['Dana Levi']);
    expect(await search(user, 'vip')).toEqual(['Dana Levi']);
    expect(await search(user, 'לקוחות')).toEqual(['נועה כהן']);
    // A word can match different fields of different contacts: the name of one, the company of another.
    expect(await search(user, 'acme')).toEqual(['Dana Levi', 'Omer Acmeson']);
    expect(await search(user, 'nobody-has-this')).toEqual([]);
  });

  it('needs every word to match, in any field', async () => {
    expect(await search(user, 'acme suppliers')).toEqual(['Dana Levi']);
    expect(await search(user, 'acme omer')).toEqual(['Omer Acmeson']);
    expect(await search(user, 'acme london')).toEqual([]);
  });

  it('finds a phone number typed with spaces, dashes or the national 0', async () => {
    expect(await search(user, '050-123-4567')).toEqual(['Dana Levi']);
    expect(await search(user, '(0)20 7123')).toEqual(['Sam 100% Sure']);
    expect(await search(user, '972 50 123')).toEqual(['Dana Levi']);
  });

  it('takes %, _ and \\ literally', async () => {
    expect(await search(user, '100%')).toEqual(['Sam 100% Sure']);
    expect(await search(user, '%')).toEqual(['Sam 100% Sure']);
    expect(await search(user, 'london_office')).toEqual(['Sam 100% Sure']);
    expect(await search(user, 'london_')).toEqual(['Sam 100% Sure']);
    expect(await search(user, '_')).toEqual(['Sam 100% Sure']);
    expect(await search(user, '\\')).toEqual([]);
  });

  it('counts the matches, not the page', async () => {
    const page = await callAs(harness.app, user, 'GET', '/api/contacts?search=acme&limit=1');
    expect(page.contacts).toHaveLength(1);
    expect(page).toMatchObject({ total: 2, nextOffset: 1 });
  });

  it('has a trigram index for the search (pg_trgm ships with the PostgreSQL the project runs)', async () => {
    const rows = await harness.ctx.orm.em
      .fork()
      .execute<{ indexdef: string }[]>(
        `select indexdef from pg_indexes where tablename = 'contact' and indexname = 'contact_search_trgm_idx'`,
      );
    expect(rows[0]?.indexdef).toMatch(/gin \(search_text (\w+\.)?gin_trgm_ops\)/);
  });
});

describe('contacts: one per email, or per phone without an email', () => {
  it('refuses a second contact with the same email, whatever its case, with 409 naming the holder', async () => {
    const user = await freshOrganization();
    const first = await add(user, { name: 'First', email: 'Shared@Example.com' });
    const error = expectError(
      await asUser(harness.app, user, 'POST', '/api/contacts', {
        name: 'Second',
        email: 'shared@EXAMPLE.com',
      }),
      409,
      'contact_email_taken',
    );
    expect(error.message).toContain('shared@example.com');
    expect(error.details).toEqual([
      { field: 'body.email', message: 'already the email of another contact', contactId: first.id },
    ]);
    // Changing another contact to the address is refused the same way; keeping one's own is not.
    const second = await add(user, { name: 'Second', email: 'second@example.com' });
    expectError(
      await asUser(harness.app, user, 'PUT', `/api/contacts/${second.id}`, {
        name: 'Second',
        email: 'SHARED@example.com',
      }),
      409,
      'contact_email_taken',
    );
    await callAs(harness.app, user, 'PUT', `/api/contacts/${first.id}`, {
      name: 'First renamed',
      email: 'shared@example.com',
    });
    // The database holds the rule too (a race between the check and the insert ends in the same 409).
    const em = harness.ctx.orm.em.fork();
    await expect(
      em.execute(
        `insert into contact (id, organization_id, name, email) values (?, ?, 'Raced', 'shared@example.com')`,
        [randomUUID(), user.organization.id],
      ),
    ).rejects.toThrow(/contact_email_unique/);
    // Another organization may have the same address.
    await add(await freshOrganization(), { name: 'Elsewhere', email: 'shared@example.com' });
  });

  it('refuses a second contact without an email with the same phone, and allows it with an email', async () => {
    const user = await freshOrganization();
    const first = await add(user, { name: 'Phone Only', phone: '+15551234567' });
    const error = expectError(
      await asUser(harness.app, user, 'POST', '/api/contacts', {
        name: 'Phone Again',
        phone: '+1 555 123 4567',
      }),
      409,
      'contact_phone_taken',
    );
    expect(error.details).toEqual([expect.objectContaining({ field: 'body.phone', contactId: first.id })]);
    await add(user, { name: 'Phone And Email', phone: '+15551234567', email: 'both@example.com' });
  });
});

describe('contacts: another organization', () => {
  it('answers 404 for its contact ids and never lists, finds or exports its contacts', async () => {
    const theirs = await add(stranger, {
      name: 'Their Secret Contact',
      email: `secret-${randomUUID()}@example.com`,
      tags: ['secret-tag'],
    });
    for (const [method, body] of [
      ['PUT', { name: 'Taken over', email: 'taken@example.com' }],
      ['DELETE', undefined],
    ] as const) {
      const error = expectError(
        await asUser(harness.app, owner, method, `/api/contacts/${theirs.id}`, body),
        404,
        'not_found',
      );
      expect(error.message).toBe(`Contact ${theirs.id} was not found.`);
    }
    const stored = await harness.ctx.orm.em.fork().findOneOrFail(Contact, { id: theirs.id });
    expect(stored.name).toBe('Their Secret Contact');
    expect(await search(owner, 'secret')).toEqual([]);
    const all = await callAs(harness.app, owner, 'GET', '/api/contacts?limit=200');
    expect(all.contacts.map((contact: { id: string }) => contact.id)).not.toContain(theirs.id);
    const exported = await asUser(harness.app, owner, 'GET', '/api/contacts/export');
    expect(exported.body).not.toContain('Their Secret Contact');
    // Importing the other organization's address creates a contact here and leaves theirs alone.
    await callAs(harness.app, owner, 'POST', '/api/contacts/import', {
      csv: `name,email\nMine Now,${theirs.email}\n`,
    });
    expect((await harness.ctx.orm.em.fork().findOneOrFail(Contact, { id: theirs.id })).name).toBe(
      'Their Secret Contact',
    );
  });
});

describe('contacts: input refused with 400 naming the field', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['no name', { email: 'a@example.com' }, 'body.name'],
    ['a blank name', { name: '   ', email: 'a@example.com' }, 'body.name'],
    ['a name of 201 characters', { name: 'x'.repeat(201), email: 'a@example.com' }, 'body.name'],
    ['a name with a line break', { name: 'Dana\nLevi', email: 'a@example.com' }, 'body.name'],
    ['a company with NUL', { name: 'Dana', company: 'A\u0000B', email: 'a@example.com' }, 'body.company'],
    ['neither email nor phone', { name: 'Dana' }, 'body.email'],
    ['an invalid email', { name: 'Dana', email: 'not an address' }, 'body.email'],
    ['an empty email', { name: 'Dana', email: '' }, 'body.email'],
    ['a local phone number', { name: 'Dana', phone: '050-1234567' }, 'body.phone'],
    ['a phone with letters', { name: 'Dana', phone: '+97250CALLME' }, 'body.phone'],
    [
      '21 tags',
      { name: 'Dana', email: 'a@example.com', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) },
      'body.tags',
    ],
    [
      'a tag of 51 characters',
      { name: 'Dana', email: 'a@example.com', tags: ['x'.repeat(51)] },
      'body.tags.0',
    ],
    ['an empty tag', { name: 'Dana', email: 'a@example.com', tags: ['ok', ' '] }, 'body.tags.1'],
    ['a tag with a semicolon', { name: 'Dana', email: 'a@example.com', tags: ['a;b'] }, 'body.tags.0'],
    ['a tag with a comma', { name: 'Dana', email: 'a@example.com', tags: ['ok', 'a,b'] }, 'body.tags.1'],
    ['tags that are not a list', { name: 'Dana', email: 'a@example.com', tags: 'vip' }, 'body.tags'],
    ['an unknown field', { name: 'Dana', email: 'a@example.com', notes: 'x' }, 'body.notes'],
  ];
  for (const [what, body, field] of cases) {
    it(`refuses ${what}`, async () => {
      for (const [method, url] of [
        ['POST', '/api/contacts'],
        ['PUT', `/api/contacts/${randomUUID()}`],
      ] as const) {
        const error = expectError(
          await asUser(harness.app, owner, method, url, body),
          400,
          'invalid_request',
        );
        expect(fieldsOf(error), `${method}: ${error.message}`).toContain(field);
      }
    });
  }

  it('refuses a malformed id, a bad page and a search that is too long', async () => {
    expect(
      fieldsOf(
        expectError(
          await asUser(harness.app, owner, 'PUT', '/api/contacts/not-a-uuid', {
            name: 'A',
            email: 'a@example.com',
          }),
          400,
          'invalid_request',
        ),
      ),
    ).toContain('params.id');
    expect(
      fieldsOf(
        expectError(
          await asUser(harness.app, owner, 'DELETE', '/api/contacts/not-a-uuid'),
          400,
          'invalid_request',
        ),
      ),
    ).toContain('params.id');
    for (const [query, field] of [
      ['limit=0', 'querystring.limit'],
      ['limit=201', 'querystring.limit'],
      ['limit=abc', 'querystring.limit'],
      ['offset=-1', 'querystring.offset'],
      [`search=${'x'.repeat(201)}`, 'querystring.search'],
      ['search=a%00b', 'querystring.search'],
    ] as const) {
      expect(
        fieldsOf(
          expectError(
            await asUser(harness.app, owner, 'GET', `/api/contacts?${query}`),
            400,
            'invalid_request',
          ),
        ),
        query,
      ).toContain(field);
    }
    expect(
      fieldsOf(
        expectError(
          await asUser(harness.app, owner, 'GET', `/api/contacts/export?search=${'x'.repeat(201)}`),
          400,
          'invalid_request',
        ),
      ),
    ).toContain('querystring.search');
  });
});

describe('contacts: CSV import', () => {
  async function contactsOf(user: SignedInUser) {
    return (await callAs(harness.app, user, 'GET', '/api/contacts?limit=200')).contacts as {
      id: string;
      name: string;
      company: string | null;
      email: string | null;
      phone: string | null;
      tags: string[];
    }[];
  }

  it('imports good rows: quoted cells, tags, Hebrew, a byte-order mark, CRLF, empty rows and columns in any order', async () => {
    const user = await freshOrganization();
    const csv =
      '\uFEFFEmail,Name,Company,Phone,Tags\r\n' +
      'dana@example.com,Dana Levi,"Acme, Ltd",+972 50-123-4567,vip; suppliers\r\n' +
      '\r\n' +
      ',,,,\r\n' +
      ',נועה כהן,"The ""Best"" Co",+972521112222,"לקוחות, לקוחות"\r\n' +
      'SAM@Example.com,Sam,,,\r\n';
    const result = await callAs(harness.app, user, 'POST', '/api/contacts/import', { csv });
    expect(result).toEqual({ rows: 3, created: 3, updated: 0, unchanged: 0 });
    const contacts = await contactsOf(user);
    expect(
      contacts.map(({ name, company, email, phone, tags }) => ({ name, company, email, phone, tags })),
    ).toEqual([
      {
        name: 'Dana Levi',
        company: 'Acme, Ltd',
        email: 'dana@example.com',
        phone: '+972501234567',
        tags: ['vip', 'suppliers'],
      },
      { name: 'Sam', company: null, email: 'sam@example.com', phone: null, tags: [] },
      { name: 'נועה כהן', company: 'The "Best" Co', email: null, phone: '+972521112222', tags: ['לקוחות'] },
    ]);

    // Again with changes: a row whose email (or, without one, phone) is known updates that contact, only in
    // the file's columns; the same file twice changes nothing the second time.
    const again =
      'name,email,phone\nDana Cohen,DANA@example.com,\nNoa Cohen,,+972521112222\nNew Person,new@example.com,\n';
    expect(await callAs(harness.app, user, 'POST', '/api/contacts/import', { csv: again })).toEqual({
      rows: 3,
      created: 1,
      updated: 2,
      unchanged: 0,
    });
    expect(await callAs(harness.app, user, 'POST', '/api/contacts/import', { csv: again })).toEqual({
      rows: 3,
      created: 0,
      updated: 0,
      unchanged: 3,
    });
    const updated = await contactsOf(user);
    const dana = updated.find((contact) => contact.email === 'dana@example.com');
    // The file had no company or tags column: those stay; its phone column was empty: the phone is cleared.
    expect(dana).toMatchObject({
      name: 'Dana Cohen',
      company: 'Acme, Ltd',
      phone: null,
      tags: ['vip', 'suppliers'],
    });
    const noa = updated.find((contact) => contact.phone === '+972521112222');
    expect(noa).toMatchObject({ name: 'Noa Cohen', company: 'The "Best" Co', email: null, tags: ['לקוחות'] });
    expect(updated).toHaveLength(4);
    // A file of phones only (no email column at all) works the same way.
    const phones = 'name,phone\nOnly Phone,+1 555 000 1111\n';
    expect(await callAs(harness.app, user, 'POST', '/api/contacts/import', { csv: phones })).toMatchObject({
      created: 1,
    });
    expect(await callAs(harness.app, user, 'POST', '/api/contacts/import', { csv: phones })).toMatchObject({
      unchanged: 1,
    });
  });

  it('imports nothing when any row is wrong, naming each row and column', async () => {
    const user = await freshOrganization();
    await add(user, { name: 'Existing', email: 'existing@example.com', company: 'Before' });
    const csv = [
      'name,company,email,phone,tags',
      'Good Row,Co,good@example.com,,',
      ',Co,nameless@example.com,,',
      'Bad Email,Co,not-an-email,,',
      'Bad Phone,Co,,050 123,',
      'Nothing To Reach,Co,,,',
      `Too Many Tags,Co,tags@example.com,,${Array.from({ length: 21 }, (_, i) => `t${i}`).join(';')}`,
      'Twice,Co,good@example.com,,',
      'Existing Changed,After,existing@example.com,,',
      'Extra,Co,extra@example.com,,,surplus',
    ].join('\n');
    const error = expectError(
      await asUser(harness.app, user, 'POST', '/api/contacts/import', { csv }),
      400,
      'invalid_csv',
    );
    expect(error.message).toMatch(
      /^The file was not imported \(nothing was changed\): row 3, name: name is required \(and 6 more\)\.$/,
    );
    expect(error.details).toEqual([
      { field: 'body.csv', row: 3, column: 'name', message: 'name is required' },
      { field: 'body.csv', row: 4, column: 'email', message: 'email must be an email address' },
      { field: 'body.csv', row: 5, column: 'phone', message: expect.stringContaining('+972501234567') },
      { field: 'body.csv', row: 6, column: 'email', message: 'email or phone is required' },
      { field: 'body.csv', row: 7, column: 'tags', message: 'a contact has at most 20 tags' },
      { field: 'body.csv', row: 8, column: 'email', message: 'the same email as row 2: one row per contact' },
      { field: 'body.csv', row: 10, message: expect.stringContaining('has 6 cells but the header names 5') },
    ]);
    // Nothing changed: the good row was not added and the existing contact kept its company.
    const contacts = await contactsOf(user);
    expect(contacts.map((contact) => [contact.name, contact.company])).toEqual([['Existing', 'Before']]);
  });

  it('refuses a file that is not CSV, or whose header is wrong, naming the line or column', async () => {
    const user = await freshOrganization();
    const cases: [string, Partial<ErrorBody['details'][number]>][] = [
      ['', { row: 1, message: expect.stringContaining('must name the columns') }],
      ['name,email\n"Dana,dana@example.com\n', { line: 2, message: expect.stringContaining('never closed') }],
      [
        'name,emial\nDana,dana@example.com\n',
        { row: 1, column: 'emial', message: expect.stringContaining('is not one of') },
      ],
      [
        'name;email;phone\nDana;dana@example.com;\n',
        { row: 1, message: expect.stringContaining('separated by commas') },
      ],
      [
        'name,email,Name\nDana,d@example.com,D\n',
        { row: 1, column: 'name', message: 'the column name appears twice' },
      ],
      ['email,phone\nd@example.com,\n', { row: 1, message: 'the header must have a name column' }],
      ['name,company\nDana,Acme\n', { row: 1, message: expect.stringContaining('email or a phone column') }],
      ['name,email\n', { row: 2, message: 'the file has no contacts after the header row' }],
      [
        'name,email,\nDana,d@example.com,stray\n',
        { row: 2, message: 'has a value in a column the header does not name' },
      ],
    ];
    for (const [csv, detail] of cases) {
      const error = expectError(
        await asUser(harness.app, user, 'POST', '/api/contacts/import', { csv }),
        400,
        'invalid_csv',
      );
      expect(error.details[0], JSON.stringify(csv)).toEqual({ field: 'body.csv', ...detail });
    }
    // A CSV field that is not text PostgreSQL can store, or no csv at all: the schema's 400 naming body.csv.
    for (const body of [{ csv: 'name,email\nA\u0000,a@example.com' }, {}, { csv: 42 }]) {
      expect(
        fieldsOf(
          expectError(
            await asUser(harness.app, user, 'POST', '/api/contacts/import', body),
            400,
            'invalid_request',
          ),
        ),
      ).toContain('body.csv');
    }
    expect((await contactsOf(user)).length).toBe(0);
  });

  it('refuses more than 5,000 contacts in one file, more than 1,000,000 characters, and a body over 6 MB', async () => {
    const user = await freshOrganization();
    const rows = Array.from({ length: 5001 }, (_, index) => `P${index},p${index}@x.io`);
    const error = expectError(
      await asUser(harness.app, user, 'POST', '/api/contacts/import', {
        csv: `name,email\n${rows.join('\n')}\n`,
      }),
      400,
      'invalid_csv',
    );
    expect(error.message).toContain('at most 5000');
    // Over the characters the schema allows, even as six-byte escapes: the schema's 400, not a size refusal.
    const escaped = await harness.app.inject({
      method: 'POST',
      url: '/api/contacts/import',
      headers: { ...user.headers, 'content-type': 'application/json' },
      payload: `{"csv":"${'\\u05d0'.repeat(1_000_001)}"}`,
    });
    expect(escaped.statusCode, escaped.body.slice(0, 300)).toBe(400);
    expect(fieldsOf(escaped.json().error)).toContain('body.csv');
    const large = await asUser(harness.app, user, 'POST', '/api/contacts/import', {
      csv: 'x'.repeat(7_000_000),
    });
    expect(large.statusCode).toBe(413);
    expect(large.json().error.code).toBe('payload_too_large');
    expect(large.json().error.message).toContain('a CSV file of at most 1,000,000 characters');
  });
});

describe('contacts: CSV export', () => {
  it('exports every contact as CSV by name, with formula cells neutralized, which imports back unchanged', async () => {
    const user = await freshOrganization();
    await add(user, {
      name: '=HYPERLINK("http://evil.example","click")',
      company: '+cmd|calc',
      email: 'formula@example.com',
      tags: ['-2+3', '@SUM(A1)', 'plain'],
    });
    await add(user, {
      name: 'Dana Levi',
      company: 'Acme, Ltd',
      email: 'dana@example.com',
      phone: '+972501234567',
    });
    await add(user, { name: '@home', phone: '+15551234567', tags: ['a "quoted" tag'] });
    await add(user, { name: 'נועה כהן', email: 'noa@example.com' });

    const response = await asUser(harness.app, user, 'GET', '/api/contacts/export');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="contacts-\d{4}-\d{2}-\d{2}\.csv"; filename\*=UTF-8''contacts-\d{4}-\d{2}-\d{2}\.csv$/,
    );
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cache-control']).toBe('no-store');
    const text = response.body;
    expect(text.startsWith('\uFEFFname,company,email,phone,tags\r\n')).toBe(true);
    const lines = text.slice(1).split('\r\n');
    expect(lines).toEqual([
      'name,company,email,phone,tags',
      `"'=HYPERLINK(""http://evil.example"",""click"")",'+cmd|calc,formula@example.com,,'-2+3; @SUM(A1); plain`,
      `'@home,,,'+15551234567,"a ""quoted"" tag"`,
      `Dana Levi,"Acme, Ltd",dana@example.com,'+972501234567,`,
      'נועה כהן,,noa@example.com,,',
      '',
    ]);
    // No cell starts with a formula character.
    for (const line of lines.slice(1)) {
      for (const cell of line.split(',')) expect(cell.replace(/^"/, '')).not.toMatch(/^[=+\-@]/);
    }

    // The file imports back as it was: nothing changes.
    expect(await callAs(harness.app, user, 'POST', '/api/contacts/import', { csv: text })).toEqual({
      rows: 4,
      created: 0,
      updated: 0,
      unchanged: 4,
    });
    // And into an empty organization as the same contacts.
    const other = await freshOrganization();
    expect((await callAs(harness.app, other, 'POST', '/api/contacts/import', { csv: text })).created).toBe(4);
    const strip = (contacts: Record<string, unknown>[]) =>
      contacts.map(({ name, company, email, phone, tags }) => ({ name, company, email, phone, tags }));
    expect(strip((await callAs(harness.app, other, 'GET', '/api/contacts')).contacts)).toEqual(
      strip((await callAs(harness.app, user, 'GET', '/api/contacts')).contacts),
    );
  });

  it('exports only what a search finds', async () => {
    const user = await freshOrganization();
    await add(user, { name: 'Dana Levi', email: 'dana@example.com' });
    await add(user, { name: 'Omer', email: 'omer@example.com' });
    const response = await asUser(harness.app, user, 'GET', '/api/contacts/export?search=dana');
    expect(response.body.slice(1).split('\r\n')).toEqual([
      'name,company,email,phone,tags',
      'Dana Levi,,dana@example.com,,',
      '',
    ]);
  });

  it('is documented as a text/csv answer', async () => {
    const document = (
      await harness.app.inject({ method: 'GET', url: '/api/openapi/app/openapi.json' })
    ).json();
    const operation = document.paths['/api/contacts/export'].get;
    expect(Object.keys(operation.responses['200'].content)).toEqual(['text/csv']);
    expect(operation.responses['400'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    expect(Object.keys(document.paths['/api/contacts/import'].post.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '403',
      '409',
      '413',
      '500',
      '503',
    ]);
  });
});

// Input validation against the real PostgreSQL: every refusal is a 400 (or a 404 for what the caller may
// not see) that names the offending field, and a refused request writes nothing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Envelope,
  OAuthClient,
  Organization,
  Recipient,
  StoredFile,
  Template,
} from '../../db/entities/index.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { type CreateEnvelopeInput, createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { AppError, InvalidRequest, NotFound } from '../../services/errors.ts';
import {
  type CreateOAuthClientInput,
  createOAuthClient,
} from '../../services/oauth-clients/create-oauth-client.ts';
import {
  type CreateOrganizationInput,
  createOrganization,
} from '../../services/organizations/create-organization.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { createOrganizationWithTemplate, openTestContext, type TestContext } from '../support/context.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await openTestContext();
});
afterAll(() => ctx.close());

const DAY_MS = 24 * 60 * 60 * 1000;

function uniqueName(prefix: string): string {
  return `${prefix} ${randomUUID().slice(0, 8)}`;
}

/** The typed error a call was refused with. */
async function refusal(action: Promise<unknown>): Promise<AppError> {
  try {
    await action;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the call to be refused, but it succeeded');
}

/** Runs a call that must be refused, checking that the given row counts are the same before and after. */
async function refusedWithoutWrites(counts: () => Promise<number[]>, action: () => Promise<unknown>) {
  const before = await counts();
  const error = await refusal(action());
  expect(await counts()).toEqual(before);
  return error;
}

function expectInvalid(error: AppError, field: string, message?: RegExp) {
  expect(error).toBeInstanceOf(InvalidRequest);
  expect(error.status).toBe(400);
  expect(error.code).toBe('invalid_request');
  const detail = error.details.find((d) => d.field === field);
  expect(detail, `details ${JSON.stringify(error.details)} should name ${field}`).toBeDefined();
  if (message) expect(detail?.message).toMatch(message);
}

function expectNotFound(error: AppError) {
  expect(error).toBeInstanceOf(NotFound);
  expect(error.status).toBe(404);
  expect(error.code).toBe('not_found');
}

describe('createOrganization', () => {
  const organizationsNamed = (name: string) => async () => [
    await ctx.orm.em.fork().count(Organization, { name }),
  ];

  it('refuses an unknown plan, naming the field, and writes nothing', async () => {
    const name = uniqueName('Unknown plan org');
    const error = await refusedWithoutWrites(organizationsNamed(name), () =>
      createOrganization(ctx, { name, plan: 'Gold' } as unknown as CreateOrganizationInput),
    );
    expectInvalid(error, 'plan', /Starter, Professional, Business, Premium, Enterprise/);
  });

  it('refuses API access on the Starter plan, and writes nothing', async () => {
    const name = uniqueName('Starter API org');
    const error = await refusedWithoutWrites(organizationsNamed(name), () =>
      createOrganization(ctx, { name, plan: 'Starter', apiEnabled: true }),
    );
    expectInvalid(error, 'apiEnabled');
    expect(error.message).toContain('Starter');
  });

  it('creates a Starter organization without API access, and a Business one with it', async () => {
    const starterName = uniqueName('Starter org');
    const starter = await createOrganization(ctx, { name: starterName, plan: 'Starter' });
    expect(starter.apiEnabled).toBe(false);
    expect(await organizationsNamed(starterName)()).toEqual([1]);

    const business = await createOrganization(ctx, {
      name: uniqueName('Business org'),
      plan: 'Business',
      apiEnabled: true,
    });
    const stored = await ctx.orm.em.fork().findOneOrFail(Organization, { id: business.id });
    expect(stored).toMatchObject({ planName: 'Business', apiEnabled: true, defaultLanguage: 'en' });
  });
});

describe('createOAuthClient', () => {
  let organizationId: string;
  beforeAll(async () => {
    const organization = await createOrganization(ctx, {
      name: uniqueName('OAuth org'),
      plan: 'Business',
      apiEnabled: true,
    });
    organizationId = organization.id;
  });
  const clientsOf = (id: string) => async () => [
    await ctx.orm.em.fork().count(OAuthClient, { organizationId: id }),
  ];

  it('refuses an unknown scope, naming it, and writes nothing', async () => {
    const error = await refusedWithoutWrites(clientsOf(organizationId), () =>
      createOAuthClient(ctx, {
        organizationId,
        name: 'ERP',
        scopes: ['envelopes.read', 'admin.everything'],
      } as unknown as CreateOAuthClientInput),
    );
    expectInvalid(error, 'scopes.1', /each scope must be one of/);
  });

  it.each(['not-an-ip', '10.0.0.0/33', '1.2.3.4/8/1'])(
    'refuses the allowlist entry %j, quoting it, and writes nothing',
    async (entry) => {
      const error = await refusedWithoutWrites(clientsOf(organizationId), () =>
        createOAuthClient(ctx, {
          organizationId,
          name: 'ERP',
          scopes: ['envelopes.read'],
          ipAllowlist: ['192.0.2.0/24', entry],
        }),
      );
      expectInvalid(error, 'ipAllowlist.1', new RegExp(`"${entry.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"`));
    },
  );

  it.each([randomUUID(), 'not-a-uuid'])(
    'answers 404 for the unknown organization %s and writes nothing',
    async (unknownId) => {
      const name = uniqueName('Orphan client');
      const error = await refusedWithoutWrites(
        async () => [
          await ctx.orm.em.fork().count(OAuthClient, { name }),
          ...(await clientsOf(organizationId)()),
        ],
        () => createOAuthClient(ctx, { organizationId: unknownId, name, scopes: ['envelopes.read'] }),
      );
      expectNotFound(error);
    },
  );

  it('a valid client is stored with normalized, de-duplicated allowlist entries and scopes', async () => {
    const created = await createOAuthClient(ctx, {
      organizationId,
      name: 'ERP',
      scopes: ['envelopes.read', 'envelopes.write', 'envelopes.read'],
      ipAllowlist: [' 192.0.2.0/024 ', '192.0.2.0/24', '', '2001:db8::1'],
    });
    expect(created.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await ctx.orm.em.fork().findOneOrFail(OAuthClient, { id: created.id });
    expect(stored.scopes).toEqual(['envelopes.read', 'envelopes.write']);
    expect(stored.ipAllowlist).toEqual(['192.0.2.0/24', '2001:db8::1']);
  });
});

describe('createTemplate', () => {
  let organizationId: string;
  let pdf: Uint8Array;
  beforeAll(async () => {
    const organization = await createOrganization(ctx, {
      name: uniqueName('Template org'),
      plan: 'Business',
    });
    organizationId = organization.id;
    pdf = await buildDemoPdf('One page', 1);
  });
  const templateRows = async () => {
    const em = ctx.orm.em.fork();
    return [await em.count(Template, { organizationId }), await em.count(StoredFile, { organizationId })];
  };
  const definition = (changes: Record<string, unknown>) => ({ ...DEMO_TEMPLATE_DEFINITION, ...changes });
  const field = (changes: Record<string, unknown>) => ({
    type: 'Text',
    role: 'Client',
    label: 'Reference',
    page: 1,
    x: 56,
    y: 500,
    width: 120,
    height: 20,
    ...changes,
  });

  it('refuses a file that is not a PDF, and writes nothing', async () => {
    const error = await refusedWithoutWrites(templateRows, () =>
      createTemplate(ctx, {
        organizationId,
        pdf: new TextEncoder().encode('PK\u0003\u0004 this is a zip, not a PDF'),
        filename: 'contract.docx',
        definition: DEMO_TEMPLATE_DEFINITION,
      }),
    );
    expect(error).toBeInstanceOf(InvalidRequest);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(error.message).toMatch(/not a PDF/);
  });

  it('refuses a file that only looks like a PDF, and writes nothing', async () => {
    const error = await refusedWithoutWrites(templateRows, () =>
      createTemplate(ctx, {
        organizationId,
        pdf: new TextEncoder().encode('%PDF-1.7 truncated garbage'),
        filename: 'broken.pdf',
        definition: DEMO_TEMPLATE_DEFINITION,
      }),
    );
    expect(error).toBeInstanceOf(InvalidRequest);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
  });

  it('refuses a field on page 2 of a one-page PDF, and writes nothing', async () => {
    const error = await refusedWithoutWrites(templateRows, () =>
      createTemplate(ctx, {
        organizationId,
        pdf,
        filename: 'one-page.pdf',
        definition: definition({ fields: [field({}), field({ page: 2 })] }),
      }),
    );
    expectInvalid(error, 'fields.1.page', /1 page/);
  });

  it('refuses a field that lies outside its page, and writes nothing', async () => {
    const error = await refusedWithoutWrites(templateRows, () =>
      createTemplate(ctx, {
        organizationId,
        pdf,
        filename: 'one-page.pdf',
        definition: definition({ fields: [field({ x: 500, width: 200 })] }),
      }),
    );
    expectInvalid(error, 'fields.0.width', /outside page 1 .*x \+ width is 700/);
  });

  it('refuses a field whose role is not a template role, and writes nothing', async () => {
    const error = await refusedWithoutWrites(templateRows, () =>
      createTemplate(ctx, {
        organizationId,
        pdf,
        filename: 'demo.pdf',
        definition: definition({ fields: [field({ role: 'Witness' })] }),
      }),
    );
    expectInvalid(error, 'fields.0.role', /"Witness" is not one of the template's roles/);
  });

  it('refuses duplicate role names (ignoring case), and writes nothing', async () => {
    const error = await refusedWithoutWrites(templateRows, () =>
      createTemplate(ctx, {
        organizationId,
        pdf,
        filename: 'demo.pdf',
        definition: definition({
          roles: [{ name: 'Client' }, { name: 'Provider' }, { name: 'client' }],
          fields: [],
        }),
      }),
    );
    expectInvalid(error, 'roles.2.name', /unique/);
  });

  it('refuses a Dropdown without options, and writes nothing', async () => {
    const error = await refusedWithoutWrites(templateRows, () =>
      createTemplate(ctx, {
        organizationId,
        pdf,
        filename: 'demo.pdf',
        definition: definition({ fields: [field({ type: 'Dropdown', label: 'Payment terms' })] }),
      }),
    );
    expectInvalid(error, 'fields.0.options', /Dropdown fields need options/);
  });

  it('answers 404 for an unknown organization', async () => {
    const error = await refusal(
      createTemplate(ctx, {
        organizationId: randomUUID(),
        pdf,
        filename: 'demo.pdf',
        definition: DEMO_TEMPLATE_DEFINITION,
      }),
    );
    expectNotFound(error);
  });

  it('a valid definition with a Dropdown that has options writes one template and its file', async () => {
    const before = await templateRows();
    const template = await createTemplate(ctx, {
      organizationId,
      pdf,
      filename: 'demo.pdf',
      definition: definition({
        fields: [field({ type: 'Dropdown', label: 'Payment terms', options: ['Net 30', 'Net 60'] })],
      }),
    });
    expect(template.status).toBe('Draft');
    expect(template.pageCount).toBe(1);
    expect(await templateRows()).toEqual([(before[0] ?? 0) + 1, (before[1] ?? 0) + 1]);
  });
});

describe('createEnvelope', () => {
  let organizationId: string;
  let templateId: string;
  let unpublishedTemplateId: string;
  let foreignTemplateId: string;
  let foreignOrganizationId: string;

  beforeAll(async () => {
    const own = await createOrganizationWithTemplate(ctx);
    organizationId = own.organization.id;
    templateId = own.template.id;
    const draft = await createTemplate(ctx, {
      organizationId,
      pdf: await buildDemoPdf(),
      filename: 'draft.pdf',
      definition: DEMO_TEMPLATE_DEFINITION,
      publish: false,
    });
    unpublishedTemplateId = draft.id;
    const foreign = await createOrganizationWithTemplate(ctx);
    foreignOrganizationId = foreign.organization.id;
    foreignTemplateId = foreign.template.id;
  });

  const envelopesOf =
    (...ids: string[]) =>
    async () => {
      const em = ctx.orm.em.fork();
      return Promise.all(ids.map((id) => em.count(Envelope, { organizationId: id })));
    };

  function input(changes: Partial<CreateEnvelopeInput> = {}): CreateEnvelopeInput {
    return {
      organizationId,
      templateId,
      title: 'Services agreement',
      workflowType: 'Sequential',
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1 },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', signingOrder: 2 },
      ],
      ...changes,
    };
  }

  async function refusedEnvelope(changes: Partial<CreateEnvelopeInput>) {
    return refusedWithoutWrites(envelopesOf(organizationId), () => createEnvelope(ctx, input(changes)));
  }

  it('refuses a roleName that is not a role of the template', async () => {
    const error = await refusedEnvelope({
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1 },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', signingOrder: 2 },
        { roleName: 'Notary', fullName: 'Noa Bar', email: 'noa@example.com', signingOrder: 3 },
      ],
    });
    expectInvalid(error, 'recipients.2.roleName', /"Notary" is not a role of the template/);
  });

  it('refuses an envelope that leaves a required role without a recipient', async () => {
    const error = await refusedEnvelope({
      recipients: [{ roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' }],
    });
    expectInvalid(error, 'recipients', /required role "Provider" has no recipient/);
  });

  it('refuses an Approver or Viewer on a role with fields to fill, and a FormFiller on a role with a signature', async () => {
    for (const type of ['Approver', 'Viewer'] as const) {
      const error = await refusedEnvelope({
        recipients: [
          { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1, type },
          { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', signingOrder: 2 },
        ],
      });
      expectInvalid(
        error,
        'recipients.0.type',
        new RegExp(`an? ${type} fills no fields, but role "Client" has 3 field`),
      );
    }
    const error = await refusedEnvelope({
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1 },
        {
          roleName: 'Provider',
          fullName: 'Sam Cohen',
          email: 'sam@example.com',
          signingOrder: 2,
          type: 'FormFiller',
        },
      ],
    });
    expectInvalid(
      error,
      'recipients.1.type',
      /a FormFiller does not sign, but role "Provider" has a Signature field/,
    );
  });

  it('a Cc recipient does not fill a required role', async () => {
    const error = await refusedEnvelope({
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1 },
        {
          roleName: 'Provider',
          fullName: 'Sam Cohen',
          email: 'sam@example.com',
          signingOrder: 2,
          type: 'Cc',
        },
      ],
    });
    expectInvalid(error, 'recipients', /"Provider"/);
  });

  it('refuses a Sequential envelope with a duplicate signingOrder', async () => {
    const error = await refusedEnvelope({
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1 },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', signingOrder: 1 },
      ],
    });
    expectInvalid(error, 'recipients.1.signingOrder', /used twice/);
  });

  it('allows a shared signingOrder in GroupedRounds', async () => {
    const count = envelopesOf(organizationId);
    const [before = 0] = await count();
    await createEnvelope(
      ctx,
      input({
        workflowType: 'GroupedRounds',
        recipients: [
          { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1 },
          { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', signingOrder: 1 },
        ],
      }),
    );
    expect(await count()).toEqual([before + 1]);
  });

  it('refuses two documents (an envelope holds at most one)', async () => {
    const error = await refusedEnvelope({ documents: [{ fileId: randomUUID() }, { fileId: randomUUID() }] });
    expectInvalid(error, 'documents');
  });

  it('refuses a document next to a template', async () => {
    const error = await refusedEnvelope({ documents: [{ fileId: randomUUID() }] });
    expectInvalid(error, 'documents');
  });

  it('refuses an expiresAt in the past', async () => {
    const error = await refusedEnvelope({ expiresAt: new Date(Date.now() - DAY_MS).toISOString() });
    expectInvalid(error, 'expiresAt', /in the future/);
  });

  it('refuses an expiresAt that is not an ISO 8601 date-time', async () => {
    const error = await refusedEnvelope({ expiresAt: 'next tuesday' });
    expectInvalid(error, 'expiresAt');
  });

  it('refuses a malformed externalMetadataJson', async () => {
    const error = await refusedEnvelope({ externalMetadataJson: '{"order": 42,' });
    expectInvalid(error, 'externalMetadataJson', /JSON/);
  });

  it('refuses the Email channel without an email address', async () => {
    const error = await refusedEnvelope({
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', signingOrder: 1 },
        { roleName: 'Provider', fullName: 'Sam Cohen', deliveryChannel: 'Email', signingOrder: 2 },
      ],
    });
    expectInvalid(error, 'recipients.1.email', /Email channel/);
  });

  it('refuses one-time SMS codes without a phone number', async () => {
    const error = await refusedEnvelope({
      recipients: [
        {
          roleName: 'Client',
          fullName: 'Dana Levi',
          email: 'dana@example.com',
          authenticationMethod: 'OtpSms',
          signingOrder: 1,
        },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', signingOrder: 2 },
      ],
    });
    expectInvalid(error, 'recipients.0.phone', /phone is required/);
  });

  it("answers 404 for another organization's template, and writes in neither organization", async () => {
    const error = await refusedWithoutWrites(envelopesOf(organizationId, foreignOrganizationId), () =>
      createEnvelope(ctx, input({ templateId: foreignTemplateId })),
    );
    expectNotFound(error);
    expect(error.details).toEqual([]);
  });

  it('answers 404 for an unknown organization', async () => {
    const error = await refusal(createEnvelope(ctx, input({ organizationId: randomUUID() })));
    expectNotFound(error);
  });

  it('refuses an unpublished template', async () => {
    const error = await refusedEnvelope({ templateId: unpublishedTemplateId });
    expect(error).toBeInstanceOf(InvalidRequest);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request' });
    expect(error.message).toMatch(/not published/);
  });

  it('reports every problem of one request at once', async () => {
    const error = await refusedEnvelope({
      expiresAt: new Date(Date.now() - DAY_MS).toISOString(),
      externalMetadataJson: 'not json',
    });
    expect(error.details.map((d) => d.field)).toEqual(
      expect.arrayContaining(['expiresAt', 'externalMetadataJson']),
    );
  });

  it('a valid request writes one Draft envelope with its recipients', async () => {
    const { organization, template } = await createOrganizationWithTemplate(ctx, {
      name: 'Agreement with witness',
      roles: [
        { name: 'Client', required: true },
        { name: 'Provider', required: true },
        { name: 'Witness', required: false },
      ],
    });
    const count = envelopesOf(organization.id);
    expect(await count()).toEqual([0]);

    const envelope = await createEnvelope(ctx, {
      organizationId: organization.id,
      templateId: template.id,
      title: 'Services agreement',
      externalMetadataJson: '{"order":42}',
      recipients: [
        { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' },
        { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com' },
        { roleName: 'Witness', fullName: 'Noa Bar' },
        { roleName: 'Client', fullName: 'Legal team', email: 'legal@example.com', type: 'Cc' },
      ],
    });

    expect(await count()).toEqual([1]);
    const em = ctx.orm.em.fork();
    const stored = await em.findOneOrFail(Envelope, { id: envelope.id });
    expect(stored).toMatchObject({
      organizationId: organization.id,
      templateId: template.id,
      status: 'Draft',
      workflowType: 'Sequential',
      externalMetadataJson: '{"order":42}',
      workflowId: null,
      sentAt: null,
    });
    const expiresInDays = ((stored.expiresAt?.getTime() ?? 0) - Date.now()) / DAY_MS;
    expect(expiresInDays).toBeGreaterThan(29.9);
    expect(expiresInDays).toBeLessThanOrEqual(30);

    const recipients = await em.find(
      Recipient,
      { envelopeId: envelope.id },
      { orderBy: { signingOrder: 'asc' } },
    );
    expect(
      recipients.map((r) => ({
        roleName: r.roleName,
        fullName: r.fullName,
        signingOrder: r.signingOrder,
        required: r.required,
        deliveryChannel: r.deliveryChannel,
        authenticationMethod: r.authenticationMethod,
        type: r.type,
        status: r.status,
      })),
    ).toEqual([
      {
        roleName: 'Client',
        fullName: 'Dana Levi',
        signingOrder: 1,
        required: true,
        deliveryChannel: 'Email',
        authenticationMethod: 'SecureLink',
        type: 'Signer',
        status: 'Pending',
      },
      {
        roleName: 'Provider',
        fullName: 'Sam Cohen',
        signingOrder: 2,
        required: true,
        deliveryChannel: 'Email',
        authenticationMethod: 'SecureLink',
        type: 'Signer',
        status: 'Pending',
      },
      {
        roleName: 'Witness',
        fullName: 'Noa Bar',
        signingOrder: 3,
        required: false,
        deliveryChannel: 'ManualLink',
        authenticationMethod: 'SecureLink',
        type: 'Signer',
        status: 'Pending',
      },
      {
        roleName: 'Client',
        fullName: 'Legal team',
        signingOrder: 4,
        required: false,
        deliveryChannel: 'Email',
        authenticationMethod: 'SecureLink',
        type: 'Cc',
        status: 'Pending',
      },
    ]);
    const roleIds = new Set(recipients.map((r) => r.roleId));
    expect(roleIds.has(null)).toBe(false);
    expect(recipients[0]?.roleId).toBe(recipients[3]?.roleId);
  });
});

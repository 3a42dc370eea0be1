// Templates in the business app through HTTP with signed-in sessions on real PostgreSQL (docs/templates.md):
// creating one from a PDF, the builder's view and PDF, renaming, saving roles and fields, the list's filters,
// duplicating and archiving; versions (editing a published template makes a new draft version, publishing it
// supersedes the old one, /api/v1 shows the current published version and an envelope created earlier keeps
// its version's fields, for the signer too); publishing refused with every reason named; field properties
// enforced on prefilled and signers' values; another organization's templates invisible (404); every refused
// input a 400 naming its field.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Template, TemplateField } from '../../db/entities/index.ts';
import type { TemplateDetail, TemplateList } from '../../domain/template-builder.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { createEnvelopeFromFile } from '../../services/envelopes/create-envelope.ts';
import { uploadFile } from '../../services/files/upload-file.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { type ApiError, asUser, callAs, expectError } from '../support/app-requests.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let integrator: Integrator;
let bearer: { authorization: string };
let sender: SignedInUser;
let member: SignedInUser;
let stranger: SignedInUser;
let pdfBase64: string;

beforeAll(async () => {
  harness = await openApiHarness();
  integrator = await newIntegrator(harness);
  bearer = await integrator.auth();
  sender = await signedInUser(harness, { role: 'sender', organizationId: integrator.organizationId });
  member = await signedInUser(harness, { role: 'member', organizationId: integrator.organizationId });
  stranger = await signedInUser(harness, { role: 'owner' });
  pdfBase64 = Buffer.from(await buildDemoPdf('Lease agreement', 2)).toString('base64');
});
afterAll(() => harness?.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const fieldsOf = (error: ApiError) => error.details.map((detail) => detail.field ?? '');

function v1(method: 'GET' | 'POST', url: string, payload?: unknown) {
  return harness.app.inject({
    method,
    url,
    headers: bearer,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

const create = (as: SignedInUser, name: string) =>
  callAs<TemplateDetail>(harness.app, as, 'POST', '/api/templates', {
    name,
    filename: 'lease.pdf',
    pdfBase64,
  });

const SIGNER = { required: true, defaultRecipientType: 'Signer', signingOrder: 1 } as const;

/** A definition that can be published: a tenant and a landlord, each signing; a dropdown and a date. */
function leaseDefinition(label = 'Tenant signature') {
  return {
    roles: [
      { name: 'Tenant', ...SIGNER },
      { name: 'Landlord', ...SIGNER, signingOrder: 2 },
    ],
    fields: [
      {
        type: 'Signature',
        role: 'Tenant',
        label,
        page: 1,
        x: 56,
        y: 680,
        width: 200,
        height: 50,
        required: true,
      },
      {
        type: 'Date',
        role: 'Tenant',
        label: 'Signed on',
        page: 1,
        x: 300,
        y: 690,
        width: 120,
        height: 24,
        required: true,
        properties: { dateFormat: 'DD/MM/YYYY' },
      },
      {
        type: 'Dropdown',
        role: 'Tenant',
        label: 'Parking',
        page: 2,
        x: 56,
        y: 200,
        width: 160,
        height: 24,
        required: false,
        options: ['None', 'One space', 'Two spaces'],
      },
      {
        type: 'Signature',
        role: 'Landlord',
        label: 'Landlord signature',
        page: 2,
        x: 320,
        y: 680,
        width: 200,
        height: 50,
        required: true,
      },
    ],
  };
}

describe('templates: create, read, rename, save, list, duplicate, archive', () => {
  it('creates a draft from a PDF, owned by its creator, and serves its PDF and page sizes', async () => {
    const created = await create(sender, 'Lease 2026');
    expect(created).toMatchObject({
      name: 'Lease 2026',
      status: 'Draft',
      version: 1,
      latest: true,
      superseded: false,
      filename: 'lease.pdf',
      pageCount: 2,
      roles: [],
      fields: [],
      owner: { id: sender.user.id },
      team: null,
      publishedAt: null,
    });
    expect(created.familyId).toBe(created.id);
    expect(created.pages).toEqual([
      { width: 595.28, height: 841.89 },
      { width: 595.28, height: 841.89 },
    ]);
    expect(created.versions).toEqual([
      expect.objectContaining({ id: created.id, version: 1, status: 'Draft' }),
    ]);

    const pdf = await asUser(harness.app, member, 'GET', `/api/templates/${created.id}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['cache-control']).toMatch(/^private/);
    expect(pdf.rawPayload.equals(Buffer.from(pdfBase64, 'base64'))).toBe(true);
    // A member reads; only templates:manage changes.
    expect(
      (await callAs<TemplateDetail>(harness.app, member, 'GET', `/api/templates/${created.id}`)).name,
    ).toBe('Lease 2026');
    expectError(
      await asUser(harness.app, member, 'PUT', `/api/templates/${created.id}/name`, { name: 'Mine now' }),
      403,
      'forbidden',
    );
  });

  it('saves roles and fields of a draft in place, with their properties, and renames it', async () => {
    const draft = await create(sender, 'Consent form');
    const saved = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'PUT',
      `/api/templates/${draft.id}/definition`,
      {
        roles: [
          { name: 'Patient', required: true, defaultRecipientType: 'Signer', signingOrder: 1 },
          { name: 'Clinic', required: false, defaultRecipientType: 'Cc', signingOrder: 2 },
        ],
        fields: [
          {
            type: 'Email',
            role: 'Patient',
            label: 'Work email',
            page: 1,
            x: 10.25,
            y: 20.5,
            width: 150,
            height: 22,
            required: true,
            properties: { allowedDomains: ['Example.COM'] },
          },
          {
            type: 'Read-only text',
            role: 'Patient',
            label: 'Notice',
            page: 1,
            x: 10,
            y: 60,
            width: 300,
            height: 80,
            required: false,
            properties: { text: 'I have read the leaflet.\nאני מסכים.' },
          },
          {
            type: 'Image upload',
            role: 'Patient',
            label: 'ID photo',
            page: 2,
            x: 10,
            y: 10,
            width: 100,
            height: 100,
            required: false,
            properties: { maxSizeMb: 1, contentTypes: ['image/png'] },
          },
        ],
      },
    );
    expect(saved.id).toBe(draft.id);
    expect(saved.version).toBe(1);
    expect(saved.roles).toEqual([
      { name: 'Patient', required: true, defaultRecipientType: 'Signer', signingOrder: 1 },
      { name: 'Clinic', required: false, defaultRecipientType: 'Cc', signingOrder: 2 },
    ]);
    expect(saved.fields.map((field) => [field.type, field.role, field.x, field.y, field.properties])).toEqual(
      [
        ['Email', 'Patient', 10.25, 20.5, { allowedDomains: ['example.com'] }],
        ['Read-only text', 'Patient', 10, 60, { text: 'I have read the leaflet.\nאני מסכים.' }],
        ['Image upload', 'Patient', 10, 10, { maxSizeMb: 1, contentTypes: ['image/png'] }],
      ],
    );
    // Saving again replaces them (the draft keeps its id; the fields are new).
    const again = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'PUT',
      `/api/templates/${draft.id}/definition`,
      {
        roles: [{ name: 'Patient', required: true, defaultRecipientType: 'Signer', signingOrder: 1 }],
        fields: [],
      },
    );
    expect(again.id).toBe(draft.id);
    expect(again.fields).toEqual([]);
    expect(await harness.ctx.orm.em.fork().count(TemplateField, { templateId: draft.id })).toBe(0);

    const renamed = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'PUT',
      `/api/templates/${draft.id}/name`,
      {
        name: '  Consent form (2026)  ',
      },
    );
    expect(renamed.name).toBe('Consent form (2026)');
  });

  it('lists templates by name with search, status, owner and team filters and pages', async () => {
    const organization = await signedInUser(harness, { role: 'owner' });
    const team = await callAs<{ id: string }>(harness.app, organization, 'POST', '/api/teams', {
      name: 'Sales',
    });
    const teamUser = await signedInUser(harness, {
      role: 'sender',
      organizationId: organization.organization.id,
    });
    await callAs(harness.app, organization, 'PUT', `/api/users/${teamUser.user.id}`, { teamId: team.id });
    const alpha = await create(organization, 'Alpha NDA');
    const beta = await create(teamUser, 'beta Lease');
    const gamma = await create(teamUser, 'Gamma 100%_lease');
    await callAs(harness.app, teamUser, 'PUT', `/api/templates/${beta.id}/definition`, leaseDefinition());
    await callAs(harness.app, teamUser, 'POST', `/api/templates/${beta.id}/publish`);

    const all = await callAs<TemplateList>(harness.app, organization, 'GET', '/api/templates');
    expect(all.templates.map((template) => template.name)).toEqual([
      'Alpha NDA',
      'beta Lease',
      'Gamma 100%_lease',
    ]);
    expect(all.total).toBe(3);
    expect(all.nextOffset).toBeNull();
    const betaLine = all.templates[1];
    expect(betaLine).toMatchObject({
      id: beta.id,
      status: 'Published',
      version: 1,
      published: { id: beta.id, version: 1 },
      roleCount: 2,
      fieldCount: 4,
      owner: { id: teamUser.user.id },
      team: { id: team.id, name: 'Sales' },
    });
    expect(all.owners.map((owner) => owner.id).sort()).toEqual(
      [organization.user.id, teamUser.user.id].sort(),
    );
    expect(all.teams).toEqual([{ id: team.id, name: 'Sales' }]);

    const names = async (query: string) =>
      (await callAs<TemplateList>(harness.app, organization, 'GET', `/api/templates?${query}`)).templates.map(
        (t) => t.name,
      );
    expect(await names('search=LEASE')).toEqual(['beta Lease', 'Gamma 100%_lease']);
    expect(await names('search=lease%20gamma')).toEqual(['Gamma 100%_lease']);
    // % and _ are letters, not wildcards.
    expect(await names('search=100%25_')).toEqual(['Gamma 100%_lease']);
    expect(await names('search=a%25')).toEqual([]);
    expect(await names('status=published')).toEqual(['beta Lease']);
    expect(await names('status=draft')).toEqual(['Alpha NDA', 'Gamma 100%_lease']);
    expect(await names(`ownerId=${teamUser.user.id}`)).toEqual(['beta Lease', 'Gamma 100%_lease']);
    expect(await names(`teamId=${team.id}&status=draft`)).toEqual(['Gamma 100%_lease']);
    const first = await callAs<TemplateList>(harness.app, organization, 'GET', '/api/templates?limit=2');
    expect(first.templates.map((template) => template.id)).toEqual([alpha.id, beta.id]);
    expect(first.nextOffset).toBe(2);
    const second = await callAs<TemplateList>(
      harness.app,
      organization,
      'GET',
      '/api/templates?limit=2&offset=2',
    );
    expect(second.templates.map((template) => template.id)).toEqual([gamma.id]);
    expect(second.nextOffset).toBeNull();
  });

  it('duplicates a version into a new template of the copier, and archives a template everywhere', async () => {
    const source = await create(sender, 'Rental');
    await callAs(harness.app, sender, 'PUT', `/api/templates/${source.id}/definition`, leaseDefinition());
    const published = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'POST',
      `/api/templates/${source.id}/publish`,
    );
    const owner = await signedInUser(harness, { role: 'owner', organizationId: integrator.organizationId });
    const copy = await callAs<TemplateDetail>(
      harness.app,
      owner,
      'POST',
      `/api/templates/${source.id}/duplicate`,
      {},
    );
    expect(copy).toMatchObject({
      name: 'Rental (copy)',
      status: 'Draft',
      version: 1,
      owner: { id: owner.user.id },
    });
    expect(copy.familyId).toBe(copy.id);
    expect(copy.familyId).not.toBe(published.familyId);
    expect(
      copy.fields.map((field) => [field.label, field.role, field.page, field.x, field.properties]),
    ).toEqual(
      published.fields.map((field) => [field.label, field.role, field.page, field.x, field.properties]),
    );
    expect(copy.fields.map((field) => field.id)).not.toContain(published.fields[0]?.id);
    const named = await callAs<TemplateDetail>(
      harness.app,
      owner,
      'POST',
      `/api/templates/${source.id}/duplicate`,
      {
        name: 'Rental, Haifa',
      },
    );
    expect(named.name).toBe('Rental, Haifa');

    // The published template is in /api/v1 until it is archived; then it is gone from everywhere.
    const listed = async () =>
      ((await v1('GET', '/api/v1/templates')).json() as { id: string }[]).map((template) => template.id);
    expect(await listed()).toContain(source.id);
    expect(await callAs(harness.app, sender, 'POST', `/api/templates/${source.id}/archive`)).toEqual({
      ok: true,
    });
    expect(await listed()).not.toContain(source.id);
    expectError(await v1('GET', `/api/v1/templates/${source.id}`), 404, 'not_found');
    expectError(await asUser(harness.app, sender, 'GET', `/api/templates/${source.id}`), 404, 'not_found');
    expectError(
      await asUser(harness.app, sender, 'POST', `/api/templates/${source.id}/publish`),
      404,
      'not_found',
    );
    const list = await callAs<TemplateList>(harness.app, sender, 'GET', '/api/templates?limit=100');
    expect(list.templates.map((template) => template.familyId)).not.toContain(source.familyId);
    expect(list.templates.map((template) => template.id)).toContain(copy.id);
    const created = await v1('POST', '/api/v1/envelopes/from-template', {
      title: 'Too late',
      templateId: source.id,
      recipients: [
        { roleName: 'Tenant', fullName: 'Dana Levi', email: 'dana@example.com' },
        { roleName: 'Landlord', fullName: 'Sam Cohen', email: 'sam@example.com' },
      ],
    });
    expectError(await created, 404, 'not_found');
  });
});

describe('versions', () => {
  it('edits a published template as a new draft version; an envelope keeps the version it was created from', async () => {
    const draft = await create(sender, 'Service contract');
    await callAs(
      harness.app,
      sender,
      'PUT',
      `/api/templates/${draft.id}/definition`,
      leaseDefinition('Signature v1'),
    );
    const v1Version = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'POST',
      `/api/templates/${draft.id}/publish`,
    );
    expect(v1Version).toMatchObject({ id: draft.id, status: 'Published', version: 1, latest: true });
    expect(v1Version.publishedAt).not.toBeNull();
    // Publishing again changes nothing.
    const again = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'POST',
      `/api/templates/${draft.id}/publish`,
    );
    expect(again.publishedAt).toBe(v1Version.publishedAt);

    // /api/v1 shows version 1 with the builder's properties; an envelope is created from it.
    const shown = (await v1('GET', `/api/v1/templates/${draft.id}`)).json();
    expect(shown.roles).toEqual([
      { name: 'Tenant', required: true, defaultRecipientType: 'Signer', signingOrder: 1 },
      { name: 'Landlord', required: true, defaultRecipientType: 'Signer', signingOrder: 2 },
    ]);
    expect(shown.fields[1]).toMatchObject({ type: 'Date', properties: { dateFormat: 'DD/MM/YYYY' } });
    expect(shown.fields[0].properties).toEqual({});
    const recipients = [
      { roleName: 'Tenant', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'ManualLink' },
      {
        roleName: 'Landlord',
        fullName: 'Sam Cohen',
        email: 'sam@example.com',
        deliveryChannel: 'ManualLink',
      },
    ];
    const early = await v1('POST', '/api/v1/envelopes/from-template', {
      title: 'Early contract',
      templateId: draft.id,
      recipients,
    });
    expect(early.statusCode, early.body).toBe(201);
    const earlyId = early.json().id as string;

    // Editing the published version makes version 2, a draft; version 1 is untouched and still the one sent.
    const edited = leaseDefinition('Signature v2');
    edited.fields.splice(2, 1);
    const v2Draft = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'PUT',
      `/api/templates/${draft.id}/definition`,
      edited,
    );
    expect(v2Draft.id).not.toBe(draft.id);
    expect(v2Draft).toMatchObject({ familyId: draft.id, status: 'Draft', version: 2, latest: true });
    expect(v2Draft.versions.map((version) => [version.version, version.status])).toEqual([
      [2, 'Draft'],
      [1, 'Published'],
    ]);
    const v1Now = await callAs<TemplateDetail>(harness.app, sender, 'GET', `/api/templates/${draft.id}`);
    expect(v1Now).toMatchObject({ latest: false, superseded: false, status: 'Published' });
    expect(v1Now.fields.map((field) => field.label)).toEqual(v1Version.fields.map((field) => field.label));
    expect((await v1('GET', `/api/v1/templates/${draft.id}`)).statusCode).toBe(200);
    expectError(await v1('GET', `/api/v1/templates/${v2Draft.id}`), 404, 'not_found');
    // Changes go to the newest version only; saving the older one again is refused, naming the newest.
    const outdated = expectError(
      await asUser(harness.app, sender, 'PUT', `/api/templates/${draft.id}/definition`, leaseDefinition()),
      409,
      'template_version_outdated',
    );
    expect(outdated.details[0]?.latestId).toBe(v2Draft.id);
    // A second save of version 2 stays version 2.
    const v2Saved = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'PUT',
      `/api/templates/${v2Draft.id}/definition`,
      edited,
    );
    expect(v2Saved).toMatchObject({ id: v2Draft.id, version: 2 });
    // The list shows the template once: its newest version, and the published version 1.
    const line = (
      await callAs<TemplateList>(harness.app, sender, 'GET', '/api/templates?search=Service%20contract')
    ).templates;
    expect(line).toEqual([
      expect.objectContaining({
        id: v2Draft.id,
        status: 'Draft',
        version: 2,
        published: expect.objectContaining({ id: draft.id, version: 1 }),
      }),
    ]);

    // Publishing version 2 supersedes version 1: /api/v1 lists version 2; version 1 cannot be sent again.
    const v2 = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'POST',
      `/api/templates/${v2Draft.id}/publish`,
    );
    expect(v2).toMatchObject({ status: 'Published', version: 2 });
    const v1Superseded = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'GET',
      `/api/templates/${draft.id}`,
    );
    expect(v1Superseded).toMatchObject({ superseded: true, latest: false });
    const listed = (await v1('GET', '/api/v1/templates')).json() as { id: string; name: string }[];
    expect(listed.filter((template) => template.name === 'Service contract').map((t) => t.id)).toEqual([
      v2.id,
    ]);
    expectError(
      await asUser(harness.app, sender, 'POST', `/api/templates/${draft.id}/publish`),
      409,
      'template_version_outdated',
    );
    const late = expectError(
      await v1('POST', '/api/v1/envelopes/from-template', {
        title: 'Late',
        templateId: draft.id,
        recipients,
      }),
      400,
      'invalid_request',
    );
    expect(fieldsOf(late)).toEqual(['templateId']);
    expect(late.message).toContain(v2.id);
    const fresh = await v1('POST', '/api/v1/envelopes/from-template', {
      title: 'Fresh contract',
      templateId: v2.id,
      recipients,
    });
    expect(fresh.statusCode, fresh.body).toBe(201);

    // The early envelope keeps version 1: its template, and what its signer is asked to fill.
    const earlyView = (await v1('GET', `/api/v1/envelopes/${earlyId}`)).json();
    expect(earlyView.templateId).toBe(draft.id);
    expect((await v1('POST', `/api/v1/envelopes/${earlyId}/send`)).statusCode).toBe(200);
    const [tenantLink] = await issueSigningLinks(harness.ctx, integrator.organizationId, earlyId);
    const token = (tenantLink?.url ?? '').split('/sign/')[1];
    const signing = await harness.app.inject({ method: 'GET', url: `/api/signing/${token}` });
    expect(signing.statusCode, signing.body).toBe(200);
    expect(signing.json().fields.map((field: { label: string }) => field.label)).toEqual([
      'Signature v1',
      'Signed on',
      'Parking',
    ]);
    const em = harness.ctx.orm.em.fork();
    expect(await em.count(Template, { familyId: draft.id })).toBe(2);
  });
});

describe('publishing', () => {
  it('refuses a template that cannot be sent, naming every field and role, and publishes it once fixed', async () => {
    const draft = await create(sender, 'Incomplete');
    const empty = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'PUT',
      `/api/templates/${draft.id}/definition`,
      {
        roles: [{ name: 'Buyer', ...SIGNER }],
        fields: [],
      },
    );
    const none = expectError(
      await asUser(harness.app, sender, 'POST', `/api/templates/${empty.id}/publish`),
      400,
      'template_not_publishable',
    );
    expect(fieldsOf(none)).toEqual(['fields', 'roles.0.name']);

    const saved = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'PUT',
      `/api/templates/${draft.id}/definition`,
      {
        roles: [
          { name: 'Buyer', ...SIGNER },
          { name: 'Auditor', required: true, defaultRecipientType: 'Viewer', signingOrder: 2 },
          { name: 'Witness', required: true, defaultRecipientType: 'FormFiller', signingOrder: 3 },
          { name: 'Agent', required: true, defaultRecipientType: 'Signer', signingOrder: 4 },
        ],
        fields: [
          {
            type: 'Text',
            role: 'Buyer',
            label: 'Address',
            page: 1,
            x: 10,
            y: 10,
            width: 100,
            height: 20,
            required: true,
          },
          {
            type: 'Signature',
            role: 'Auditor',
            label: 'Auditor signs',
            page: 1,
            x: 10,
            y: 40,
            width: 100,
            height: 40,
            required: true,
          },
          {
            type: 'Initials',
            role: 'Witness',
            label: 'Witness initials',
            page: 1,
            x: 10,
            y: 90,
            width: 40,
            height: 20,
            required: true,
          },
          {
            type: 'Dropdown',
            role: 'Buyer',
            label: 'Colour',
            page: 1,
            x: 10,
            y: 120,
            width: 100,
            height: 20,
            required: false,
            options: [],
          },
          {
            type: 'Read-only text',
            role: 'Buyer',
            label: 'Terms',
            page: 1,
            x: 10,
            y: 150,
            width: 200,
            height: 40,
            required: false,
          },
          {
            type: 'Checkbox',
            role: 'Auditor',
            label: 'Checked',
            page: 2,
            x: 10,
            y: 10,
            width: 20,
            height: 20,
            required: false,
          },
        ],
      },
    );
    const refusal = expectError(
      await asUser(harness.app, sender, 'POST', `/api/templates/${saved.id}/publish`),
      400,
      'template_not_publishable',
    );
    expect(fieldsOf(refusal)).toEqual([
      'fields.1.role',
      'fields.2.role',
      'fields.3.options',
      'fields.4.properties.text',
      'fields.5.role',
      'roles.3.name',
    ]);
    expect(refusal.details[1]).toMatchObject({ fieldId: saved.fields[2]?.id, label: 'Witness initials' });
    expect(refusal.details[1]?.message).toContain('FormFiller');
    expect(refusal.details[0]?.message).toContain('Viewer');
    expect(refusal.details[5]?.message).toContain('Agent');
    expect(refusal.message).toMatch(/6 things need fixing/);
    // Nothing was published.
    expectError(await v1('GET', `/api/v1/templates/${saved.id}`), 404, 'not_found');

    const fixed = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'PUT',
      `/api/templates/${draft.id}/definition`,
      {
        roles: [
          { name: 'Buyer', ...SIGNER },
          { name: 'Auditor', required: true, defaultRecipientType: 'Viewer', signingOrder: 2 },
        ],
        fields: [
          {
            type: 'Signature',
            role: 'Buyer',
            label: 'Buyer signs',
            page: 1,
            x: 10,
            y: 40,
            width: 100,
            height: 40,
            required: true,
          },
          {
            type: 'Read-only text',
            role: 'Buyer',
            label: 'Terms',
            page: 1,
            x: 10,
            y: 150,
            width: 200,
            height: 40,
            required: false,
            properties: { text: 'Net 30.' },
          },
        ],
      },
    );
    const published = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'POST',
      `/api/templates/${fixed.id}/publish`,
    );
    expect(published.status).toBe('Published');
    // The Read-only text's text is the envelope's value unless the sender gives another.
    const envelope = await v1('POST', '/api/v1/envelopes/from-template', {
      title: 'With terms',
      templateId: fixed.id,
      recipients: [
        { roleName: 'Buyer', fullName: 'Dana Levi', email: 'dana@example.com' },
        { roleName: 'Auditor', fullName: 'Avi Ron', email: 'avi@example.com', type: 'Viewer' },
      ],
    });
    expect(envelope.statusCode, envelope.body).toBe(201);
    expect(envelope.json().initialValues).toEqual([
      { fieldDefinitionId: published.fields[1]?.id, value: 'Net 30.' },
    ]);
  });
});

describe('field properties', () => {
  it('checks prefilled values against the Email, Phone and ID number rules of their fields', async () => {
    const draft = await create(sender, 'Applicant form');
    const base = { page: 1, x: 10, width: 150, height: 20, required: false, role: 'Applicant' };
    await callAs(harness.app, sender, 'PUT', `/api/templates/${draft.id}/definition`, {
      roles: [{ name: 'Applicant', ...SIGNER }],
      fields: [
        { ...base, type: 'Signature', label: 'Signature', y: 10, required: true },
        { ...base, type: 'Email', label: 'Email', y: 40, properties: { allowedDomains: ['example.com'] } },
        { ...base, type: 'Phone', label: 'Phone', y: 70, properties: { countryCodes: ['972'] } },
        { ...base, type: 'ID number', label: 'ID', y: 100, properties: { idNumberFormat: 'IsraeliId' } },
      ],
    });
    const published = await callAs<TemplateDetail>(
      harness.app,
      sender,
      'POST',
      `/api/templates/${draft.id}/publish`,
    );
    const [, email, phone, id] = published.fields.map((field) => field.id);
    const send = (values: [string | undefined, string][]) =>
      v1('POST', '/api/v1/envelopes/from-template', {
        title: 'Application',
        templateId: published.id,
        recipients: [{ roleName: 'Applicant', fullName: 'Dana Levi', email: 'dana@example.com' }],
        initialValues: values.map(([fieldDefinitionId, value]) => ({ fieldDefinitionId, value })),
      });
    const wrong = expectError(
      await send([
        [email, 'dana@other.org'],
        [phone, '+15551234567'],
        [id, '123456789'],
      ]),
      400,
      'invalid_request',
    );
    expect(fieldsOf(wrong)).toEqual([
      'initialValues.0.value',
      'initialValues.1.value',
      'initialValues.2.value',
    ]);
    expect(wrong.details[0]?.message).toContain('example.com');
    expect(wrong.details[1]?.message).toContain('+972');
    expect(wrong.details[2]?.message).toContain('Israeli ID');
    const right = await send([
      [email, 'dana@mail.example.com'],
      [phone, '+972501234567'],
      [id, '000000018'],
    ]);
    expect(right.statusCode, right.body).toBe(201);
  });
});

describe('refused input and other organizations', () => {
  it('answers 400 naming the field', async () => {
    const draft = await create(sender, 'Checks');
    const notPdf = expectError(
      await asUser(harness.app, sender, 'POST', '/api/templates', {
        name: 'Bad',
        pdfBase64: Buffer.from('hello').toString('base64'),
      }),
      400,
      'invalid_request',
    );
    expect(fieldsOf(notPdf)).toEqual(['body.pdfBase64']);
    expect(
      fieldsOf(
        expectError(
          await asUser(harness.app, sender, 'POST', '/api/templates', { name: '', pdfBase64 }),
          400,
          'invalid_request',
        ),
      ),
    ).toEqual(['body.name']);
    expect(
      fieldsOf(
        expectError(
          await asUser(harness.app, sender, 'POST', '/api/templates', {
            name: 'X',
            pdfBase64: 'not base64!',
          }),
          400,
          'invalid_request',
        ),
      ),
    ).toEqual(['body.pdfBase64']);
    expect(
      fieldsOf(
        expectError(
          await asUser(harness.app, sender, 'GET', '/api/templates?status=deleted'),
          400,
          'invalid_request',
        ),
      ),
    ).toEqual(['querystring.status']);
    expect(
      fieldsOf(
        expectError(
          await asUser(harness.app, sender, 'GET', '/api/templates/not-a-uuid'),
          400,
          'invalid_request',
        ),
      ),
    ).toEqual(['params.id']);

    const save = (definition: unknown) =>
      asUser(harness.app, sender, 'PUT', `/api/templates/${draft.id}/definition`, definition);
    const role = { name: 'Signer', ...SIGNER };
    const field = {
      type: 'Text',
      role: 'Signer',
      label: 'Name',
      page: 1,
      x: 10,
      y: 10,
      width: 100,
      height: 20,
      required: true,
    };
    const cases: [unknown, string[]][] = [
      [{ roles: [], fields: [] }, ['body.roles']],
      [{ roles: [role, { ...role, name: 'signer' }], fields: [] }, ['body.roles.1.name']],
      [{ roles: [role], fields: [{ ...field, role: 'Nobody' }] }, ['body.fields.0.role']],
      [{ roles: [role], fields: [{ ...field, type: 'Stamp' }] }, ['body.fields.0.type']],
      [{ roles: [role], fields: [{ ...field, x: 560 }] }, ['body.fields.0.width']],
      [{ roles: [role], fields: [{ ...field, page: 3 }] }, ['body.fields.0.page']],
      [{ roles: [role], fields: [{ ...field, options: ['A'] }] }, ['body.fields.0.options']],
      [
        { roles: [role], fields: [{ ...field, properties: { dateFormat: 'DD/MM/YYYY' } }] },
        ['body.fields.0.properties.dateFormat'],
      ],
      [
        {
          roles: [role],
          fields: [
            {
              ...field,
              type: 'Image upload',
              properties: { maxSizeMb: 3, contentTypes: ['application/pdf'] },
            },
          ],
        },
        ['body.fields.0.properties.maxSizeMb', 'body.fields.0.properties.contentTypes.0'],
      ],
      [
        {
          roles: [role],
          fields: [{ ...field, type: 'Email', properties: { allowedDomains: ['not a domain'] } }],
        },
        ['body.fields.0.properties.allowedDomains.0'],
      ],
      [
        { roles: [{ ...role, defaultRecipientType: 'Boss' }], fields: [] },
        ['body.roles.0.defaultRecipientType'],
      ],
      [{ roles: [role], fields: [], extra: true }, ['body.extra']],
    ];
    for (const [definition, fields] of cases) {
      const error = expectError(await save(definition), 400, 'invalid_request');
      expect(fieldsOf(error), JSON.stringify(definition)).toEqual(fields);
    }
    expect(
      fieldsOf(
        expectError(
          await asUser(harness.app, sender, 'PUT', `/api/templates/${draft.id}/name`, { name: 'a\u0000b' }),
          400,
          'invalid_request',
        ),
      ),
    ).toEqual(['body.name']);
  });

  it('keeps another organization’s templates invisible: 404 for each route, absent from its lists', async () => {
    const theirs = await create(sender, 'Private template');
    await callAs(harness.app, sender, 'PUT', `/api/templates/${theirs.id}/definition`, leaseDefinition());
    const routes: [Method, string, unknown?][] = [
      ['GET', `/api/templates/${theirs.id}`],
      ['GET', `/api/templates/${theirs.id}/pdf`],
      ['PUT', `/api/templates/${theirs.id}/name`, { name: 'Taken' }],
      ['PUT', `/api/templates/${theirs.id}/definition`, leaseDefinition()],
      ['POST', `/api/templates/${theirs.id}/publish`],
      ['POST', `/api/templates/${theirs.id}/duplicate`, {}],
      ['POST', `/api/templates/${theirs.id}/archive`],
      ['GET', `/api/templates/${randomUUID()}`],
    ];
    for (const [method, url, body] of routes) {
      const error = expectError(await asUser(harness.app, stranger, method, url, body), 404, 'not_found');
      expect(error.message).toMatch(/was not found/);
    }
    const list = await callAs<TemplateList>(harness.app, stranger, 'GET', '/api/templates');
    expect(list.templates).toEqual([]);
    const still = await callAs<TemplateDetail>(harness.app, sender, 'GET', `/api/templates/${theirs.id}`);
    expect(still).toMatchObject({ name: 'Private template', status: 'Draft' });
    expect(still.fields).toHaveLength(4);
    // A one-off template (an envelope's from a file) is nobody's to open here either.
    const file = await uploadFile(harness.ctx, {
      organizationId: integrator.organizationId,
      filename: 'one-off.pdf',
      bytes: await buildDemoPdf('One-off'),
      maxBytes: 25 * 1024 * 1024,
    });
    const envelope = await createEnvelopeFromFile(harness.ctx, {
      organizationId: integrator.organizationId,
      title: 'From a file',
      fileId: file.id,
      fields: [
        { type: 'Signature', role: 'Client', label: 'Sign', page: 1, x: 10, y: 10, width: 100, height: 40 },
      ],
      recipients: [{ roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com' }],
    });
    const oneOff = await harness.ctx.orm.em
      .fork()
      .findOneOrFail(Template, { id: envelope.templateId as string });
    expect(oneOff.status).toBe('OneOff');
    expectError(await asUser(harness.app, sender, 'GET', `/api/templates/${oneOff.id}`), 404, 'not_found');
    const listed = await callAs<TemplateList>(harness.app, sender, 'GET', '/api/templates?limit=100');
    expect(listed.templates.map((template) => template.id)).not.toContain(oneOff.id);
  });
});

// Archived templates restored and deleted (docs/templates.md "Archive, restore, delete") through HTTP with
// signed-in sessions on real PostgreSQL and Temporal: the archived list, a restore (listed and sendable again,
// counted against the organization's templates), a deletion refused with 409 while an envelope that is not final
// uses any version (a draft of the first version while the second is current) and allowed once they are final
// (the finished envelopes keep their version; versions nothing used are removed), another organization's
// templates (404), templates:manage (403), refused input (400), and the deletion against a create at the same
// moment in both orders — each waits for the other's transaction and sees its outcome.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Envelope, StoredFile, Template } from '../../db/entities/index.ts';
import type { TemplateDetail, TemplateList } from '../../domain/template-builder.ts';
import { cancelEnvelope } from '../../services/envelopes/cancel-envelope.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { NotFound } from '../../services/errors.ts';
import { archiveTemplate } from '../../services/templates/archive-template.ts';
import { deleteTemplate } from '../../services/templates/delete-template.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError } from '../support/app-requests.ts';
import { TWO_SIGNERS } from '../support/context.ts';
import { documentTemplate } from '../support/documents.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let owner: SignedInUser;
let member: SignedInUser;
let stranger: SignedInUser;

beforeAll(async () => {
  harness = await openApiHarness();
  owner = await signedInUser(harness, { role: 'owner' });
  member = await signedInUser(harness, { role: 'member', organizationId: owner.organization.id });
  stranger = await signedInUser(harness, { role: 'owner' });
});
afterAll(() => harness?.close());

const organizationId = () => owner.organization.id;
const actor = () => ({ organizationId: organizationId(), userId: owner.user.id, teamId: null });

/** A draft of the template's version, with the demo template's two signers. */
async function draftFrom(templateId: string, title = 'From the template'): Promise<string> {
  const envelope = await createEnvelope(harness.ctx, {
    organizationId: organizationId(),
    templateId,
    title,
    recipients: TWO_SIGNERS,
  });
  return envelope.id;
}

async function listed(status?: string): Promise<TemplateList> {
  return callAs<TemplateList>(
    harness.app,
    owner,
    'GET',
    `/api/templates${status ? `?status=${status}` : ''}`,
  );
}

const familiesOf = (list: TemplateList) => list.templates.map((template) => template.familyId);

/** A second published version of the template (its roles and fields saved again, then published). */
async function secondVersion(templateId: string): Promise<TemplateDetail> {
  const detail = await callAs<TemplateDetail>(harness.app, owner, 'GET', `/api/templates/${templateId}`);
  const fields = detail.fields.map(({ id: _id, options, properties, ...field }) => ({
    ...field,
    ...(options.length > 0 ? { options } : {}),
    ...(properties && Object.keys(properties).length > 0 ? { properties } : {}),
  }));
  const draft = await callAs<TemplateDetail>(
    harness.app,
    owner,
    'PUT',
    `/api/templates/${templateId}/definition`,
    {
      roles: detail.roles,
      fields,
    },
  );
  expect(draft.version).toBe(2);
  return callAs<TemplateDetail>(harness.app, owner, 'POST', `/api/templates/${draft.id}/publish`);
}

/** Waits until a statement whose text holds `text` waits for a lock (another transaction holds it). */
async function waitsForLock(text: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const [row] = await harness.ctx.orm.em.fork().execute<{ n: number }[]>(
          `select count(*)::int as n from pg_stat_activity
              where wait_event_type = 'Lock' and datname = current_database() and query like ?`,
          [`%${text}%`],
        );
        return row?.n ?? 0;
      },
      { timeout: 10_000, interval: 50 },
    )
    .toBeGreaterThan(0);
}

describe('archived templates: list and restore', () => {
  it('lists archived templates only under status=archived, and a restore makes one active and sendable again', async () => {
    const templateId = await documentTemplate(harness.ctx, organizationId());
    const [{ familyId } = { familyId: '' }] = (await listed()).templates.filter((t) => t.id === templateId);
    expect(familyId).toBe(templateId);
    expect(familiesOf(await listed('archived'))).not.toContain(familyId);

    expect(await callAs(harness.app, owner, 'POST', `/api/templates/${templateId}/archive`)).toEqual({
      ok: true,
    });
    expect(familiesOf(await listed())).not.toContain(familyId);
    const archived = (await listed('archived')).templates.find((t) => t.familyId === familyId);
    expect(archived).toMatchObject({ id: templateId, status: 'Published', published: { id: templateId } });
    expect(Date.parse(archived?.archivedAt ?? '')).toBeGreaterThan(Date.now() - 60_000);
    await expect(draftFrom(templateId)).rejects.toThrow(NotFound);

    expect(await callAs(harness.app, owner, 'POST', `/api/templates/${templateId}/restore`)).toEqual({
      ok: true,
    });
    expect(familiesOf(await listed('archived'))).not.toContain(familyId);
    const active = (await listed()).templates.find((t) => t.familyId === familyId);
    expect(active).toMatchObject({ id: templateId, archivedAt: null });
    expect((await callAs<TemplateDetail>(harness.app, owner, 'GET', `/api/templates/${templateId}`)).id).toBe(
      templateId,
    );
    await expect(draftFrom(templateId)).resolves.toEqual(expect.any(String));

    // Restoring or deleting a template that is not archived is refused, and changes nothing.
    for (const [method, url] of [
      ['POST', `/api/templates/${templateId}/restore`],
      ['DELETE', `/api/templates/${templateId}`],
    ] as const) {
      const error = expectError(await asUser(harness.app, owner, method, url), 409, 'template_not_archived');
      expect(error.details).toEqual([expect.objectContaining({ field: 'params.id' })]);
    }
    expect((await listed()).templates.find((t) => t.familyId === familyId)).toBeDefined();
  });
});

describe('archived templates: delete', () => {
  it('refuses while an envelope that is not final uses any version, and deletes once they are final', async () => {
    const first = await documentTemplate(harness.ctx, organizationId());
    const cancelled = await draftFrom(first, 'Sent, then cancelled');
    await sendEnvelope(harness.ctx, organizationId(), cancelled);
    await cancelEnvelope(harness.ctx, organizationId(), cancelled, 'Not needed');
    const draft = await draftFrom(first, 'Still a draft');
    const second = await secondVersion(first);
    expect(second).toMatchObject({ version: 2, status: 'Published' });
    await callAs(harness.app, owner, 'POST', `/api/templates/${second.id}/archive`);

    // A Draft of version 1 is not final: refused, by either version's id, and nothing changes.
    for (const id of [second.id, first]) {
      const error = expectError(
        await asUser(harness.app, owner, 'DELETE', `/api/templates/${id}`),
        409,
        'template_in_use',
      );
      expect(error.details).toEqual([expect.objectContaining({ field: 'params.id', openEnvelopes: 1 })]);
      expect(error.message).toContain('1 envelope that is not finished');
    }
    expect(familiesOf(await listed('archived'))).toContain(first);

    // Once the draft is deleted (final), the template goes: the version the cancelled envelope was made from
    // stays for it, marked deleted; version 2, which nothing used, is removed with its rows.
    await callAs(harness.app, owner, 'POST', `/api/documents/${draft}/delete`);
    const em = harness.ctx.orm.em.fork();
    await expect
      .poll(async () => (await em.fork().findOneOrFail(Envelope, { id: cancelled })).status)
      .toBe('Cancelled');
    expect(await callAs(harness.app, owner, 'DELETE', `/api/templates/${first}`)).toEqual({ ok: true });
    const versions = await em.fork().find(Template, { familyId: first });
    expect(versions.map((version) => [version.id, version.deletedAt !== null])).toEqual([[first, true]]);
    // The PDF is kept: version 1 still names it.
    expect(await em.fork().count(StoredFile, { id: versions[0]?.fileId })).toBe(1);
    expect(familiesOf(await listed('archived'))).not.toContain(first);
    expect(familiesOf(await listed())).not.toContain(first);
    for (const [method, url] of [
      ['GET', `/api/templates/${first}`],
      ['POST', `/api/templates/${first}/restore`],
      ['DELETE', `/api/templates/${first}`],
      ['DELETE', `/api/templates/${second.id}`],
    ] as const) {
      expectError(await asUser(harness.app, owner, method, url), 404, 'not_found');
    }
    // The cancelled envelope's page still names its template.
    const page = await callAs(harness.app, owner, 'GET', `/api/documents/${cancelled}`);
    expect(page.template).toEqual({ id: first, name: expect.any(String) });
  });

  it('removes a template nothing used, with its PDF', async () => {
    const templateId = await documentTemplate(harness.ctx, organizationId());
    const { fileId } = await harness.ctx.orm.em.fork().findOneOrFail(Template, { id: templateId });
    await callAs(harness.app, owner, 'POST', `/api/templates/${templateId}/archive`);
    expect(await callAs(harness.app, owner, 'DELETE', `/api/templates/${templateId}`)).toEqual({ ok: true });
    const em = harness.ctx.orm.em.fork();
    expect(await em.count(Template, { familyId: templateId })).toBe(0);
    expect(await em.count(StoredFile, { id: fileId })).toBe(0);
  });
});

describe('archived templates: tenants, permissions, input', () => {
  it("answers 404 for another organization's template, 403 without templates:manage, 400 for a malformed id", async () => {
    const templateId = await documentTemplate(harness.ctx, organizationId());
    await callAs(harness.app, owner, 'POST', `/api/templates/${templateId}/archive`);
    for (const [method, url] of [
      ['POST', `/api/templates/${templateId}/restore`],
      ['DELETE', `/api/templates/${templateId}`],
    ] as const) {
      expectError(await asUser(harness.app, stranger, method, url), 404, 'not_found');
      const refused = expectError(await asUser(harness.app, member, method, url), 403, 'forbidden');
      expect(refused.details).toEqual([expect.objectContaining({ permission: 'templates:manage' })]);
      expectError(
        await asUser(harness.app, owner, method, url.replace(templateId, randomUUID())),
        404,
        'not_found',
      );
      const malformed = expectError(
        await asUser(harness.app, owner, method, url.replace(templateId, 'not-a-uuid')),
        400,
        'invalid_request',
      );
      expect(malformed.details.map((detail) => detail.field)).toEqual(['params.id']);
    }
    // The other organization's archived list does not show it; a reader sees the archived list.
    expect(
      familiesOf(await callAs(harness.app, stranger, 'GET', '/api/templates?status=archived')),
    ).not.toContain(templateId);
    expect(familiesOf(await callAs(harness.app, member, 'GET', '/api/templates?status=archived'))).toContain(
      templateId,
    );
    // Still archived, still there.
    expect(
      (await harness.ctx.orm.em.fork().findOneOrFail(Template, { id: templateId })).archivedAt,
    ).not.toBeNull();
    const wrongStatus = expectError(
      await asUser(harness.app, owner, 'GET', '/api/templates?status=deleted'),
      400,
      'invalid_request',
    );
    expect(wrongStatus.details.map((detail) => detail.field)).toEqual(['querystring.status']);
  });
});

describe('archived templates: delete against a create at the same moment', () => {
  it('waits for a create that wrote its envelope first, then refuses: the envelope is open', async () => {
    const templateId = await documentTemplate(harness.ctx, organizationId());
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let written!: () => void;
    const inserted = new Promise<void>((resolve) => {
      written = resolve;
    });
    // The create writes its envelope and keeps its transaction open until released.
    const creating = createEnvelope(
      harness.ctx,
      { organizationId: organizationId(), templateId, title: 'Created meanwhile', recipients: TWO_SIGNERS },
      undefined,
      {
        inTransaction: async () => {
          written();
          await held;
        },
      },
    );
    await inserted;
    // Archived meanwhile (archiving does not wait for the create), then deleted: the deletion waits.
    await archiveTemplate(harness.ctx, actor(), templateId);
    const deleting = asUser(harness.app, owner, 'DELETE', `/api/templates/${templateId}`);
    try {
      await waitsForLock('for update');
    } finally {
      release();
    }
    const envelope = await creating;
    expectError(await deleting, 409, 'template_in_use');
    expect((await harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id: envelope.id })).status).toBe(
      'Draft',
    );
    expect(
      (await harness.ctx.orm.em.fork().findOneOrFail(Template, { id: templateId })).deletedAt,
    ).toBeNull();
  });

  it('makes a create that comes second wait for the deletion, then refuses it: not found, nothing written', async () => {
    const templateId = await documentTemplate(harness.ctx, organizationId());
    const title = `Too late ${randomUUID()}`;
    let creating: Promise<unknown> | undefined;
    // The archive and the deletion in one transaction, held open while a create that read the template before
    // (it was neither archived nor deleted for anyone else yet) writes its envelope.
    await harness.ctx.orm.em.fork().transactional(async (tx) => {
      await archiveTemplate({ em: tx }, actor(), templateId);
      await deleteTemplate({ em: tx }, actor(), templateId);
      creating = createEnvelope(harness.ctx, {
        organizationId: organizationId(),
        templateId,
        title,
        recipients: TWO_SIGNERS,
      }).then(
        () => 'created',
        (error: unknown) => error,
      );
      await waitsForLock('envelope_row');
    });
    const outcome = await creating;
    expect(outcome).toBeInstanceOf(NotFound);
    expect((outcome as NotFound).message).toBe(`Template ${templateId} was not found.`);
    expect(await harness.ctx.orm.em.fork().count(Envelope, { title })).toBe(0);
    expect(await harness.ctx.orm.em.fork().count(Template, { familyId: templateId })).toBe(0);
  });
});

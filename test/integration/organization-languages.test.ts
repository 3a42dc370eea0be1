// The organization's default and supported languages in its settings (docs/administration.md "Languages")
// through HTTP with signed-in sessions on real PostgreSQL and Temporal: read and changed with
// PUT /api/organization/settings; supported ⊆ {en, he}, each once, at least one; the default one of them (checked
// with what is stored when only one of the two is sent); refused input a 400 naming the field that changes
// nothing; what a change does — a new envelope's recipients without a language follow the new default (the
// signer page), an existing envelope's keep the language they had, a recipient language no longer supported is
// refused for new envelopes only; settings:manage; another organization's settings untouched.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Organization, Recipient, SecurityEvent } from '../../db/entities/index.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { InvalidRequest } from '../../services/errors.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError } from '../support/app-requests.ts';
import { documentTemplate } from '../support/documents.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;

beforeAll(async () => {
  harness = await openApiHarness();
});
afterAll(() => harness?.close());

const settingsOf = (user: SignedInUser) => callAs(harness.app, user, 'GET', '/api/organization/settings');
const put = (user: SignedInUser, body: unknown) =>
  asUser(harness.app, user, 'PUT', '/api/organization/settings', body);

/** A sent envelope with a ManualLink signer of no language and one in Hebrew; answers the signers' ids. */
async function sentEnvelope(organizationId: string, templateId: string) {
  const envelope = await createEnvelope(harness.ctx, {
    organizationId,
    templateId,
    title: 'Languages',
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'ManualLink' },
      {
        roleName: 'Provider',
        fullName: 'Noa Cohen',
        email: 'noa@example.com',
        deliveryChannel: 'ManualLink',
        language: 'he',
      },
    ],
    workflowType: 'Parallel',
  } as never);
  await sendEnvelope(harness.ctx, organizationId, envelope.id);
  return envelope.id;
}

/** The language the signer page speaks to each recipient of the envelope, by name. */
async function signerLanguages(organizationId: string, envelopeId: string) {
  const links = await issueSigningLinks(harness.ctx, organizationId, envelopeId);
  const languages: Record<string, string> = {};
  for (const link of links) {
    const token = link.url.split('/sign/')[1];
    const view = await harness.app.inject({ method: 'GET', url: `/api/signing/${token}` });
    expect(view.statusCode, view.body).toBe(200);
    languages[view.json().recipient.name] = view.json().recipient.language;
  }
  return languages;
}

describe('organization languages', () => {
  it('are read and changed with the settings; new envelopes follow the new default, existing ones keep theirs', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const organizationId = owner.organization.id;
    expect(await settingsOf(owner)).toMatchObject({
      defaultLanguage: 'en',
      supportedLanguages: ['en', 'he'],
    });
    const templateId = await documentTemplate(harness.ctx, organizationId);
    const before = await sentEnvelope(organizationId, templateId);
    expect(await signerLanguages(organizationId, before)).toEqual({ 'Dana Levi': 'en', 'Noa Cohen': 'he' });

    const changed = await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
      defaultLanguage: 'he',
    });
    expect(changed).toMatchObject({ defaultLanguage: 'he', supportedLanguages: ['en', 'he'] });
    expect(await settingsOf(owner)).toEqual(changed);

    // The existing envelope's recipients keep the language they had; a new envelope's follow the new default.
    expect(await signerLanguages(organizationId, before)).toEqual({ 'Dana Levi': 'en', 'Noa Cohen': 'he' });
    const after = await sentEnvelope(organizationId, templateId);
    expect(await signerLanguages(organizationId, after)).toEqual({ 'Dana Levi': 'he', 'Noa Cohen': 'he' });
    // Stored: the old envelope's recipient has it written on them, the new one follows the default.
    const em = harness.ctx.orm.em.fork();
    const fullNames = async (envelopeId: string) =>
      (await em.fork().find(Recipient, { envelopeId }, { orderBy: { fullName: 'asc' } })).map(
        (r) => r.language,
      );
    expect(await fullNames(before)).toEqual(['en', 'he']);
    expect(await fullNames(after)).toEqual([null, 'he']);

    // Only Hebrew: in one request with the default; an English recipient is refused for new envelopes.
    expect(
      await callAs(harness.app, owner, 'PUT', '/api/organization/settings', { supportedLanguages: ['he'] }),
    ).toMatchObject({ defaultLanguage: 'he', supportedLanguages: ['he'] });
    await expect(
      createEnvelope(harness.ctx, {
        organizationId,
        templateId,
        title: 'English',
        recipients: [
          {
            roleName: 'Client',
            fullName: 'Dana Levi',
            email: 'dana@example.com',
            deliveryChannel: 'ManualLink',
            language: 'en',
          },
          {
            roleName: 'Provider',
            fullName: 'Noa Cohen',
            email: 'noa@example.com',
            deliveryChannel: 'ManualLink',
          },
        ],
      }),
    ).rejects.toThrow(InvalidRequest);
    // The envelope from before still speaks English to its recipient.
    expect((await signerLanguages(organizationId, before))['Dana Levi']).toBe('en');
    // Back to both, English first whatever the order sent, and English the default again.
    expect(
      await callAs(harness.app, owner, 'PUT', '/api/organization/settings', {
        supportedLanguages: ['he', 'en'],
        defaultLanguage: 'en',
      }),
    ).toMatchObject({ defaultLanguage: 'en', supportedLanguages: ['en', 'he'] });

    const events = await em
      .fork()
      .find(
        SecurityEvent,
        { organizationId, type: 'settings.updated' },
        { orderBy: [{ occurredAt: 'asc' }, { id: 'asc' }] },
      );
    expect(events.map((event) => event.details.changed)).toEqual([
      ['defaultLanguage'],
      ['supportedLanguages'],
      ['defaultLanguage', 'supportedLanguages'],
    ]);
  });

  it('refuses a default outside the supported languages and anything but en and he, naming the field, changing nothing', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    const stranger = await signedInUser(harness, { role: 'owner' });
    await callAs(harness.app, stranger, 'PUT', '/api/organization/settings', { defaultLanguage: 'he' });
    const before = await settingsOf(owner);
    for (const [body, field] of [
      [{ supportedLanguages: ['he'] }, 'body.supportedLanguages'],
      [
        { defaultLanguage: 'he', supportedLanguages: ['en'], senderDisplayName: 'Not saved' },
        'body.defaultLanguage',
      ],
      [{ defaultLanguage: 'fr' }, 'body.defaultLanguage'],
      [{ defaultLanguage: null }, 'body.defaultLanguage'],
      [{ supportedLanguages: ['en', 'fr'] }, 'body.supportedLanguages.1'],
      [{ supportedLanguages: [] }, 'body.supportedLanguages'],
      [{ supportedLanguages: ['en', 'en'] }, 'body.supportedLanguages'],
      [{ supportedLanguages: 'en' }, 'body.supportedLanguages'],
    ] as const) {
      const error = expectError(await put(owner, body), 400, 'invalid_request');
      expect(
        error.details.map((detail) => detail.field),
        JSON.stringify(body),
      ).toContain(field);
      expect(error.message).toContain(field);
    }
    expect(await settingsOf(owner)).toEqual(before);
    // The default is checked with the stored languages: after only Hebrew is the default, English can go.
    await callAs(harness.app, owner, 'PUT', '/api/organization/settings', { defaultLanguage: 'he' });
    expect(
      await callAs(harness.app, owner, 'PUT', '/api/organization/settings', { supportedLanguages: ['he'] }),
    ).toMatchObject({ supportedLanguages: ['he'] });
    expectError(await put(owner, { defaultLanguage: 'en' }), 400, 'invalid_request');
    // Another organization's languages are its own.
    expect(await settingsOf(stranger)).toMatchObject({
      defaultLanguage: 'he',
      supportedLanguages: ['en', 'he'],
    });
    const stored = await harness.ctx.orm.em
      .fork()
      .findOneOrFail(Organization, { id: stranger.organization.id });
    expect(stored.supportedLanguages).toEqual(['en', 'he']);
  });

  it('needs settings:manage to change them', async () => {
    const owner = await signedInUser(harness, { role: 'owner' });
    for (const role of ['sender', 'member'] as const) {
      const user = await signedInUser(harness, { role, organizationId: owner.organization.id });
      const error = expectError(await put(user, { defaultLanguage: 'he' }), 403, 'forbidden');
      expect(error.details).toEqual([expect.objectContaining({ permission: 'settings:manage' })]);
    }
    expect(await settingsOf(owner)).toMatchObject({ defaultLanguage: 'en' });
  });
});

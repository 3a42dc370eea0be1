// Editing a Draft from the business app (docs/documents.md, "Editing a draft"): GET /api/documents/{id}/draft
// fills the edit page, PATCH /api/documents/{id} saves it with the public API's checks — through HTTP as the
// browser calls them, with who may (documents:manage, the envelopes the user sees) and the refusal once sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppUser } from '../../db/entities/index.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError } from '../support/app-requests.ts';
import { createOrganizationWithTemplate, TWO_SIGNERS } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let templateId: string;
let sender: SignedInUser;
let otherTeam: SignedInUser;
let member: SignedInUser;
let stranger: SignedInUser;

beforeAll(async () => {
  harness = await openApiHarness();
  const { organization, template } = await createOrganizationWithTemplate(harness.ctx);
  templateId = template.id;
  const owner = await signedInUser(harness, { role: 'owner', organizationId: organization.id });
  const team = async (name: string) =>
    (await callAs<{ id: string }>(harness.app, owner, 'POST', '/api/teams', { name })).id;
  const [sales, support] = [await team('Sales'), await team('Support')];
  const user = async (role: string, teamId: string) => {
    const made = await signedInUser(harness, { role, organizationId: organization.id });
    await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: made.user.id }, { teamId });
    return made;
  };
  sender = await user('sender', sales);
  otherTeam = await user('sender', support);
  member = await user('member', sales);
  stranger = await signedInUser(harness, { role: 'owner' });
});
afterAll(() => harness.close());

type Detail = {
  id: string;
  status: string;
  title: string;
  recipients: { fullName: string; email: string | null; deliveryChannel: string }[];
};

async function saveDraft(): Promise<string> {
  const created = await callAs<Detail>(harness.app, sender, 'POST', '/api/documents/send-from-template', {
    title: 'Lease',
    templateId,
    recipients: TWO_SIGNERS,
    draft: true,
  });
  return created.id;
}

describe('editing a Draft from the business app', () => {
  it('reads the Draft as the edit page fills it, saves the changes and answers the document', async () => {
    const id = await saveDraft();
    const draft = await callAs(harness.app, sender, 'GET', `/api/documents/${id}/draft`);
    expect(draft).toMatchObject({
      id,
      title: 'Lease',
      workflowType: 'Sequential',
      templateId,
      sourceFileId: null,
      allowDelegation: false,
      initialValues: [],
    });
    expect(draft.recipients).toEqual([
      expect.objectContaining({ roleName: 'Client', fullName: 'Dana Levi', signingOrder: 1, type: 'Signer' }),
      expect.objectContaining({
        roleName: 'Provider',
        fullName: 'Sam Cohen',
        signingOrder: 2,
        type: 'Signer',
      }),
    ]);
    expect(draft.recipients[0]).not.toHaveProperty('id');

    const edited = await callAs<Detail>(harness.app, sender, 'PATCH', `/api/documents/${id}`, {
      title: 'Lease (corrected)',
      recipients: [
        { ...TWO_SIGNERS[0], email: 'dana.levi@example.com', deliveryChannel: 'Email' },
        TWO_SIGNERS[1],
      ],
    });
    expect(edited).toMatchObject({ id, status: 'Draft', title: 'Lease (corrected)' });
    expect(edited.recipients.map((r) => [r.fullName, r.email, r.deliveryChannel])).toEqual([
      ['Dana Levi', 'dana.levi@example.com', 'Email'],
      ['Sam Cohen', 'sam@example.com', 'ManualLink'],
    ]);
    expect(await callAs(harness.app, sender, 'GET', `/api/documents/${id}`)).toEqual(edited);
  });

  it('refuses a field the body does not define, and the create’s refusals, naming the field', async () => {
    const id = await saveDraft();
    const unknown = expectError(
      await asUser(harness.app, sender, 'PATCH', `/api/documents/${id}`, { title: 'x', colour: 'red' }),
      400,
      'invalid_request',
    );
    expect(unknown.details.map((d) => d.field)).toContain('body.colour');
    const refused = expectError(
      await asUser(harness.app, sender, 'PATCH', `/api/documents/${id}`, {
        recipients: [{ ...TWO_SIGNERS[0], deliveryChannel: 'Sms' }, TWO_SIGNERS[1]],
      }),
      400,
      'invalid_request',
    );
    expect(refused.details.map((d) => d.field?.replace(/^body\./, ''))).toContain('recipients.0.phone');
    expect((await callAs<Detail>(harness.app, sender, 'GET', `/api/documents/${id}`)).title).toBe('Lease');
  });

  it('is the envelopes the user sees and may manage: another team’s or organization’s is 404, a member 403', async () => {
    const id = await saveDraft();
    for (const who of [otherTeam, stranger]) {
      expectError(await asUser(harness.app, who, 'GET', `/api/documents/${id}/draft`), 404, 'not_found');
      expectError(
        await asUser(harness.app, who, 'PATCH', `/api/documents/${id}`, { title: 'Taken' }),
        404,
        'not_found',
      );
    }
    expectError(
      await asUser(harness.app, member, 'PATCH', `/api/documents/${id}`, { title: 'Taken' }),
      403,
      'forbidden',
    );
    expect((await callAs<Detail>(harness.app, sender, 'GET', `/api/documents/${id}`)).title).toBe('Lease');
  });

  it('is refused with 409 envelope_not_draft once sent', async () => {
    const id = await saveDraft();
    await callAs(harness.app, sender, 'POST', `/api/documents/${id}/send`);
    expectError(
      await asUser(harness.app, sender, 'GET', `/api/documents/${id}/draft`),
      409,
      'envelope_not_draft',
    );
    expectError(
      await asUser(harness.app, sender, 'PATCH', `/api/documents/${id}`, { title: 'Too late' }),
      409,
      'envelope_not_draft',
    );
    expect((await callAs<Detail>(harness.app, sender, 'GET', `/api/documents/${id}`)).title).toBe('Lease');
  });
});

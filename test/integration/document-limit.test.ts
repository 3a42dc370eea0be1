// The plan's monthly document limit at every send (docs/bulk-send.md, "Starting: the plan first";
// services/usage/envelope-quota.ts): an organization on a plan of three envelopes a month that has sent two
// sends a third through /api/v1, and is then refused a fourth — through /api/v1 (the Draft stays a Draft), the
// send page's route (no Draft is made) and a bulk send (nothing is stored) — with 409 `document_limit_reached`
// naming the limit and the usage. A Draft saved from the send page is not a send and is still allowed. The
// envelopes of another organization and of an earlier month do not count.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Envelope, Organization } from '../../db/entities/index.ts';
import { type ApiHarness, type Integrator, newIntegrator, openApiHarness } from '../support/api.ts';
import { expectJson } from '../support/app-requests.ts';
import { TWO_SIGNERS } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

const PLAN = `Tiny ${randomUUID().slice(0, 8)}`;
let harness: ApiHarness;
let integrator: Integrator;
let sender: SignedInUser;

async function apiCall(method: 'GET' | 'POST', url: string, payload?: unknown) {
  return harness.app.inject({
    method,
    url,
    headers: await integrator.auth(),
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

async function draft(title: string): Promise<string> {
  const created = expectJson<{ id: string }>(
    await apiCall('POST', '/api/v1/envelopes/from-template', {
      title,
      templateId: integrator.templateId,
      recipients: TWO_SIGNERS,
    }),
    201,
  );
  return created.id;
}

async function envelopes(): Promise<{ status: string }[]> {
  return harness.ctx.orm.em.fork().find(Envelope, { organizationId: integrator.organizationId });
}

beforeAll(async () => {
  harness = await openApiHarness();
  // A plan an operator added: three envelopes a month, with the public API.
  await harness.ctx.orm.em.fork().execute(
    `insert into plan (name, api_access, webhook_access, monthly_document_limit, user_limit, team_limit,
                         sms_credits_included, rate_limit_per_minute, upload_rate_limit_per_minute, support_level, sort_order)
       values (?, true, false, 3, null, null, 0, 600, 60, 'Standard', 90)`,
    [PLAN],
  );
  integrator = await newIntegrator(harness);
  await harness.ctx.orm.em
    .fork()
    .nativeUpdate(Organization, { id: integrator.organizationId }, { planName: PLAN });
  sender = await signedInUser(harness, { role: 'sender', organizationId: integrator.organizationId });
  // Another organization's sends this month and this organization's last month do not count.
  const elsewhere = await newIntegrator(harness);
  await harness.ctx.orm.em
    .fork()
    .nativeUpdate(Organization, { id: elsewhere.organizationId }, { planName: PLAN });
  const old = await draft('Sent last month');
  await harness.ctx.orm.em
    .fork()
    .execute(
      `update envelope set status = 'Completed', sent_at = date_trunc('month', now()) - interval '1 day' where id = ?`,
      [old],
    );
});

afterAll(async () => {
  await harness?.close();
});

describe('the monthly document limit', () => {
  it('counts each send of the month and refuses the one past the limit everywhere, naming it', async () => {
    for (const title of ['First', 'Second', 'Third']) {
      const id = await draft(title);
      expectJson(await apiCall('POST', `/api/v1/envelopes/${id}/send`));
    }
    const usage = expectJson<{ remainingEnvelopeQuota: number; envelopesSentThisPeriod: number }>(
      await apiCall('GET', '/api/v1/usage'),
    );
    expect(usage).toMatchObject({ remainingEnvelopeQuota: 0, envelopesSentThisPeriod: 3 });

    // /api/v1: the Draft is made, its send refused, and it stays a Draft.
    const fourth = await draft('Fourth');
    const refused = expectJson<{ error: { code: string; message: string; details: { field: string }[] } }>(
      await apiCall('POST', `/api/v1/envelopes/${fourth}/send`),
      409,
    );
    expect(refused.error.code).toBe('document_limit_reached');
    expect(refused.error.message).toContain(
      'the plan allows 0 more this month (3 of its monthly document limit of 3 sent',
    );
    expect(refused.error.details[0]?.field).toBe('monthlyDocumentLimit');
    const stored = await harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id: fourth });
    expect(stored.status).toBe('Draft');
    expect(stored.workflowId ?? null).toBeNull();

    // The send page: nothing is made; saving a Draft is not a send and is allowed.
    const before = (await envelopes()).length;
    const body = { title: 'From the app', templateId: integrator.templateId, recipients: TWO_SIGNERS };
    const page = expectJson<{ error: { code: string } }>(
      await harness.app.inject({
        method: 'POST',
        url: '/api/documents/send-from-template',
        headers: sender.headers,
        payload: body,
      }),
      409,
    );
    expect(page.error.code).toBe('document_limit_reached');
    expect((await envelopes()).length).toBe(before);
    const saved = expectJson<{ status: string }>(
      await harness.app.inject({
        method: 'POST',
        url: '/api/documents/send-from-template',
        headers: sender.headers,
        payload: { ...body, draft: true },
      }),
    );
    expect(saved.status).toBe('Draft');

    // A bulk send of one row: refused before anything is stored.
    const bulk = expectJson<{ error: { code: string } }>(
      await harness.app.inject({
        method: 'POST',
        url: '/api/bulk-sends',
        headers: sender.headers,
        payload: {
          templateId: integrator.templateId,
          roles: [
            { roleName: 'Client', deliveryChannel: 'ManualLink' },
            { roleName: 'Provider', deliveryChannel: 'ManualLink' },
          ],
          csv: 'Client.name,Client.email,Provider.name,Provider.email\nDana,dana@example.com,Sam,sam@example.com',
        },
      }),
      409,
    );
    expect(bulk.error.code).toBe('document_limit_reached');
    const [runs] = await harness.ctx.orm.em
      .fork()
      .execute<{ count: number }[]>(
        'select count(*)::int as count from bulk_send where organization_id = ?',
        [integrator.organizationId],
      );
    expect(runs?.count).toBe(0);
  });
});

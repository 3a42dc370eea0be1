// The backoffice's organizations on the real PostgreSQL and Temporal (docs/backoffice.md, "Organizations"):
// the list (search by name and by id, the plan, API and status filters, pages) with this month's usage against
// what the test seeded; the detail; each change with its audit event; bad input answered 400 naming the field and
// unknown ids 404; a suspension refusing sign-in, sessions, the token endpoint, tokens and new envelopes while a
// running envelope's signers still sign it to completion, and the reactivation restoring them; the soft deletion;
// the integrations without secrets; SMS credit grants raising the remaining credits of the billing summary and of
// GET /api/v1/usage by exactly the amount, with a ledger that sums to them. Organization users get 401 on all.
//
// The database is shared with files running at the same time: every organization here is this file's own, and
// nothing platform-wide (plans, the IP allowlist) is changed.
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackofficeAuditEvent, Envelope, SecurityEvent, SmsCreditGrant } from '../../db/entities/index.ts';
import { organizationsDueForPurge, purgeOrganization } from '../../db/organization-purge.ts';
import { SCOPES } from '../../domain/scopes.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { usageSummary } from '../../services/usage/usage-summary.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError, expectJson } from '../support/app-requests.ts';
import { type SignedInAdmin, signedInAdmin } from '../support/backoffice.ts';
import { createOrganizationWithTemplate, TWO_SIGNERS } from '../support/context.ts';
import { documentFixture } from '../support/documents.ts';
import { encodePng } from '../support/png.ts';
import { APP_ORIGIN, type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let admin: SignedInAdmin;
/** A word only this run's organizations have in their names. */
const RUN = `bo${randomUUID().slice(0, 8)}`;
/** The list's own word: the list tests count exactly their three organizations. */
const LIST = `ls${randomUUID().slice(0, 8)}`;
const BASE = '/api/backoffice/organizations';

const now = new Date();
const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
const thisMonth = new Date(Math.max(monthStart.getTime(), now.getTime() - 60_000));
const lastMonth = new Date(monthStart.getTime() - 2 * 24 * 60 * 60 * 1000);

beforeAll(async () => {
  harness = await openApiHarness();
  admin = await signedInAdmin(harness, 'orgs');
});
afterAll(() => harness?.close());

function sql<T = unknown>(statement: string, params: unknown[] = []): Promise<T[]> {
  return harness.ctx.orm.em.fork().execute(statement, params) as Promise<T[]>;
}

function fieldsOf(response: LightMyRequestResponse): string[] {
  return (response.json().error.details as { field?: string }[]).map((detail) => detail.field ?? '');
}

async function organization(
  name: string,
  plan: 'Starter' | 'Professional' | 'Business' | 'Premium' | 'Enterprise' = 'Business',
  apiEnabled = false,
  prefix = RUN,
): Promise<string> {
  const made = await createOrganization(
    { em: harness.ctx.orm.em.fork() },
    { name: `${prefix} ${name}`, plan, apiEnabled },
  );
  return made.id;
}

async function notification(org: string, channel: string, status: string, sentAt: Date | null) {
  await sql(
    `insert into notification (id, organization_id, kind, channel, to_address, language, provider, status,
                               attempts, last_attempt_at, sent_at)
     values (?, ?, 'invitation', ?, '+972500000000', 'en', 'dev-capture', ?, 1, now(), ?)`,
    [randomUUID(), org, channel, status, sentAt],
  );
}

/** An envelope of the organization counted as sent at `sentAt` (as its workflow would have left it). */
async function envelopeSentAt(org: string, templateId: string, sentAt: Date): Promise<void> {
  const made = await createEnvelope(harness.ctx, {
    organizationId: org,
    templateId,
    title: 'Usage',
    recipients: TWO_SIGNERS,
  });
  await sql(`update envelope set status = 'Sent', sent_at = ? where id = ?`, [sentAt, made.id]);
}

async function auditEvents(targetId: string, action: string) {
  return harness.ctx.orm.em
    .fork()
    .find(BackofficeAuditEvent, { targetId, action }, { orderBy: { occurredAt: 'asc' } });
}

/** A bearer token of a new OAuth client of the organization, from POST /oauth/token; or the refusal. */
async function oauthClient(org: string) {
  const client = await createOAuthClient(harness.ctx, {
    organizationId: org,
    name: 'Backoffice test',
    scopes: [...SCOPES],
  });
  const request = () =>
    harness.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: 'grant_type=client_credentials',
    });
  return { client, request };
}

function login(user: SignedInUser) {
  return harness.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    headers: { origin: APP_ORIGIN },
    payload: { email: user.email, password: user.password },
  });
}

interface Row {
  id: string;
  name: string;
  plan: string;
  status: string;
  apiEnabled: boolean;
  users: number;
  createdAt: string;
  usage: {
    envelopesSent: number;
    monthlyDocumentLimit: number | null;
    smsCreditsIncluded: number;
    smsCreditsUsed: number;
    smsCreditsRemaining: number;
  };
}
interface Page {
  organizations: Row[];
  nextCursor: string | null;
}

const list = async (query: string) => await callAs<Page>(harness.app, admin, 'GET', `${BASE}?${query}`);

describe('who may call the organizations routes', () => {
  it('answers 401 to an organization user (any role) and to no session at all', async () => {
    const org = await organization('Access');
    const owner = await signedInUser(harness, { role: 'owner', organizationId: org });
    const member = await signedInUser(harness, { role: 'member', organizationId: org });
    const routes: ['GET' | 'POST' | 'PUT' | 'DELETE', string, unknown][] = [
      ['GET', BASE, undefined],
      ['GET', `${BASE}/${org}`, undefined],
      ['PUT', `${BASE}/${org}`, { status: 'suspended' }],
      ['DELETE', `${BASE}/${org}`, undefined],
      ['GET', `${BASE}/${org}/integrations`, undefined],
      ['POST', `${BASE}/${org}/credits`, { amount: 10, reason: 'Mine' }],
      ['GET', `${BASE}/${org}/credits`, undefined],
    ];
    for (const [method, url, body] of routes) {
      for (const headers of [owner.headers, member.headers, { origin: APP_ORIGIN }]) {
        expectError(await asUser(harness.app, { headers }, method, url, body), 401, 'unauthorized');
      }
    }
    // Nothing changed: the organization is active, with no grant.
    const detail = await callAs<{ status: string }>(harness.app, admin, 'GET', `${BASE}/${org}`);
    expect(detail.status).toBe('active');
    expect(await harness.ctx.orm.em.fork().count(SmsCreditGrant, { organizationId: org })).toBe(0);
  });
});

describe('the list', () => {
  let alpha: string;
  let beta: string;
  let gamma: string;

  beforeAll(async () => {
    const made = await createOrganizationWithTemplate(harness.ctx);
    alpha = made.organization.id;
    await sql('update organization set name = ? where id = ?', [`${LIST} Alpha`, alpha]);
    // Four users: two active and one invited (counted), one deactivated (not).
    await signedInUser(harness, { role: 'owner', organizationId: alpha });
    await signedInUser(harness, { role: 'member', organizationId: alpha });
    const invited = await signedInUser(harness, { role: 'member', organizationId: alpha });
    const gone = await signedInUser(harness, { role: 'member', organizationId: alpha });
    await sql(`update app_user set status = 'invited' where id = ?`, [invited.user.id]);
    await sql(`update app_user set status = 'deactivated' where id = ?`, [gone.user.id]);
    await envelopeSentAt(alpha, made.template.id, thisMonth);
    await envelopeSentAt(alpha, made.template.id, thisMonth);
    await envelopeSentAt(alpha, made.template.id, lastMonth);
    await notification(alpha, 'Sms', 'sent', thisMonth);
    await notification(alpha, 'WhatsApp', 'sent', thisMonth);
    await notification(alpha, 'Sms', 'failed', null);
    await notification(alpha, 'Sms', 'sent', lastMonth);
    await notification(alpha, 'Email', 'sent', thisMonth);
    beta = await organization('Beta', 'Starter', false, LIST);
    gamma = await organization('Gamma', 'Professional', true, LIST);
  });

  it('finds this run’s organizations newest first, each with its plan, status, API flag, users and usage', async () => {
    const page = await list(`search=${LIST}`);
    expect(page.organizations.map((row) => row.id)).toEqual([gamma, beta, alpha]);
    expect(page.nextCursor).toBeNull();
    const row = page.organizations.find((item) => item.id === alpha) as Row;
    expect(row).toMatchObject({
      name: `${LIST} Alpha`,
      plan: 'Business',
      status: 'active',
      apiEnabled: true,
      users: 3,
      usage: {
        envelopesSent: 2,
        monthlyDocumentLimit: 1000,
        smsCreditsIncluded: 500,
        smsCreditsUsed: 2,
        smsCreditsRemaining: 498,
      },
    });
    expect(Date.parse(row.createdAt)).toBeGreaterThan(0);
    // The same figures as the organization's billing summary (one definition).
    const billing = await usageSummary(harness.ctx, alpha);
    expect(row.usage).toMatchObject({
      envelopesSent: billing.envelopesSentThisPeriod,
      smsCreditsIncluded: billing.smsCreditsIncluded,
      smsCreditsUsed: billing.smsCreditsUsedThisPeriod,
      smsCreditsRemaining: billing.remainingSmsCredits,
    });
    expect(row.users).toBe(billing.users);
    expect(page.organizations.find((item) => item.id === beta)).toMatchObject({
      plan: 'Starter',
      apiEnabled: false,
      users: 0,
      usage: { envelopesSent: 0, monthlyDocumentLimit: 25, smsCreditsIncluded: 0, smsCreditsRemaining: 0 },
    });
  });

  it('searches by part of the name in any case, and by an exact id', async () => {
    expect((await list(`search=${LIST.toUpperCase()}%20alph`)).organizations.map((r) => r.id)).toEqual([
      alpha,
    ]);
    expect((await list(`search=${beta}`)).organizations.map((r) => r.id)).toEqual([beta]);
    // A LIKE wildcard is a character like any other.
    expect((await list(`search=${LIST}%25`)).organizations).toEqual([]);
  });

  it('filters by plan, API flag and status', async () => {
    expect((await list(`search=${LIST}&plan=Starter`)).organizations.map((r) => r.id)).toEqual([beta]);
    expect((await list(`search=${LIST}&apiEnabled=true`)).organizations.map((r) => r.id)).toEqual([
      gamma,
      alpha,
    ]);
    expect((await list(`search=${LIST}&apiEnabled=false`)).organizations.map((r) => r.id)).toEqual([beta]);
    expect((await list(`search=${LIST}&status=suspended`)).organizations).toEqual([]);
    expect((await list(`search=${LIST}&status=active`)).organizations.map((r) => r.id)).toEqual([
      gamma,
      beta,
      alpha,
    ]);
  });

  it('reads a page at a time with the cursor, each organization once', async () => {
    const first = await list(`search=${LIST}&limit=2`);
    expect(first.organizations.map((r) => r.id)).toEqual([gamma, beta]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await list(`search=${LIST}&limit=2&cursor=${first.nextCursor}`);
    expect(second.organizations.map((r) => r.id)).toEqual([alpha]);
    expect(second.nextCursor).toBeNull();
    const bad = await asUser(
      harness.app,
      admin,
      'GET',
      `${BASE}?cursor=${Buffer.from('nope').toString('base64url')}`,
    );
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toContain('querystring.cursor');
  });

  it('refuses bad queries naming the parameter', async () => {
    for (const [query, field] of [
      ['plan=Gold', 'querystring.plan'],
      ['apiEnabled=yes', 'querystring.apiEnabled'],
      ['status=gone', 'querystring.status'],
      ['limit=0', 'querystring.limit'],
      ['limit=201', 'querystring.limit'],
    ] as const) {
      const answer = await asUser(harness.app, admin, 'GET', `${BASE}?${query}`);
      expect(answer.statusCode, query).toBe(400);
      expect(fieldsOf(answer), query).toContain(field);
    }
  });
});

interface Detail extends Row {
  teams: number;
  planLimits: Record<string, unknown>;
  rateLimits: { ratePerMinute: number | null; uploadRatePerMinute: number | null };
  billing: Record<string, unknown>;
  suspendedAt: string | null;
  suspendedReason: string | null;
  deletedAt: string | null;
  purgeAfter: string | null;
}

describe('the detail and its changes', () => {
  let org: string;

  beforeAll(async () => {
    org = await organization('Changes', 'Business', true);
    await signedInUser(harness, { role: 'owner', organizationId: org });
    await sql('insert into team (id, organization_id, name) values (?, ?, ?)', [randomUUID(), org, 'Sales']);
  });

  it('shows the plan’s limits, the agreed rates, the counts, the billing summary and the standing', async () => {
    const detail = await callAs<Detail>(harness.app, admin, 'GET', `${BASE}/${org}`);
    expect(detail).toMatchObject({
      id: org,
      plan: 'Business',
      status: 'active',
      apiEnabled: true,
      users: 1,
      teams: 1,
      planLimits: {
        apiAccess: true,
        webhookAccess: true,
        monthlyDocumentLimit: 1000,
        userLimit: 50,
        teamLimit: 20,
        smsCreditsIncluded: 500,
        ratePerMinute: 180,
        uploadRatePerMinute: 30,
        supportLevel: 'Priority',
      },
      rateLimits: { ratePerMinute: null, uploadRatePerMinute: null },
      suspendedAt: null,
      suspendedReason: null,
      deletedAt: null,
      purgeAfter: null,
    });
    const billing = await usageSummary(harness.ctx, org);
    expect(detail.billing).toEqual(JSON.parse(JSON.stringify(billing)));
  });

  it('changes the plan, with one audit event holding before and after', async () => {
    const answer = await callAs<Detail>(harness.app, admin, 'PUT', `${BASE}/${org}`, { plan: 'Premium' });
    expect(answer.plan).toBe('Premium');
    expect(answer.planLimits).toMatchObject({ monthlyDocumentLimit: 5000, smsCreditsIncluded: 2000 });
    expect((await callAs<Detail>(harness.app, admin, 'GET', `${BASE}/${org}`)).billing).toMatchObject({
      planName: 'Premium',
    });
    const [event, ...more] = await auditEvents(org, 'organization.updated');
    expect(more).toEqual([]);
    expect(event).toMatchObject({ actorKind: 'platform_admin', actorAdminId: admin.admin.id });
    expect(event?.details).toMatchObject({
      before: { plan: 'Business', status: 'active', apiEnabled: true },
      after: { plan: 'Premium', status: 'active', apiEnabled: true },
      changed: ['plan'],
    });
  });

  it('turns the API flag off and on', async () => {
    expect(
      (await callAs<Detail>(harness.app, admin, 'PUT', `${BASE}/${org}`, { apiEnabled: false })).apiEnabled,
    ).toBe(false);
    expect(
      (await callAs<Detail>(harness.app, admin, 'PUT', `${BASE}/${org}`, { apiEnabled: true })).apiEnabled,
    ).toBe(true);
    const events = await auditEvents(org, 'organization.updated');
    expect(events.slice(-2).map((event) => event.details.changed)).toEqual([['apiEnabled'], ['apiEnabled']]);
    expect(events.at(-2)?.details).toMatchObject({
      before: { apiEnabled: true },
      after: { apiEnabled: false },
    });
  });

  it('agrees rates only on Enterprise, and moving off Enterprise clears them', async () => {
    const refused = await asUser(harness.app, admin, 'PUT', `${BASE}/${org}`, { ratePerMinute: 500 });
    expect(refused.statusCode).toBe(400);
    expect(fieldsOf(refused)).toEqual(['body.ratePerMinute']);
    const agreed = await callAs<Detail>(harness.app, admin, 'PUT', `${BASE}/${org}`, {
      plan: 'Enterprise',
      ratePerMinute: 500,
      uploadRatePerMinute: 50,
    });
    expect(agreed.rateLimits).toEqual({ ratePerMinute: 500, uploadRatePerMinute: 50 });
    expect(agreed.planLimits).toMatchObject({ ratePerMinute: null, monthlyDocumentLimit: null });
    const oneNull = await callAs<Detail>(harness.app, admin, 'PUT', `${BASE}/${org}`, {
      uploadRatePerMinute: null,
    });
    expect(oneNull.rateLimits).toEqual({ ratePerMinute: 500, uploadRatePerMinute: null });
    const back = await callAs<Detail>(harness.app, admin, 'PUT', `${BASE}/${org}`, { plan: 'Business' });
    expect(back.rateLimits).toEqual({ ratePerMinute: null, uploadRatePerMinute: null });
    expect((await auditEvents(org, 'organization.updated')).at(-1)?.details).toMatchObject({
      before: { plan: 'Enterprise', ratePerMinute: 500 },
      after: { plan: 'Business', ratePerMinute: null, uploadRatePerMinute: null },
    });
  });

  it('suspends with a reason and reactivates, each recorded', async () => {
    const suspended = await callAs<Detail>(harness.app, admin, 'PUT', `${BASE}/${org}`, {
      status: 'suspended',
      suspendedReason: 'Unpaid invoice 42',
    });
    expect(suspended).toMatchObject({ status: 'suspended', suspendedReason: 'Unpaid invoice 42' });
    expect(Date.parse(suspended.suspendedAt as string)).toBeGreaterThan(Date.now() - 60_000);
    expect(suspended.billing).toMatchObject({ subscriptionStatus: 'suspended' });
    expect((await list(`search=${org}&status=suspended`)).organizations.map((r) => r.id)).toEqual([org]);
    const reactivated = await callAs<Detail>(harness.app, admin, 'PUT', `${BASE}/${org}`, {
      status: 'active',
    });
    expect(reactivated).toMatchObject({ status: 'active', suspendedAt: null, suspendedReason: null });
    const events = (await auditEvents(org, 'organization.updated')).slice(-2);
    expect(events.map((event) => event.details.after)).toMatchObject([
      { status: 'suspended', suspendedReason: 'Unpaid invoice 42' },
      { status: 'active', suspendedReason: null },
    ]);
  });

  it('answers 400 naming the field for bad changes, and changes nothing', async () => {
    const before = await callAs<Detail>(harness.app, admin, 'GET', `${BASE}/${org}`);
    const count = (await auditEvents(org, 'organization.updated')).length;
    const cases: [unknown, string][] = [
      [{ plan: 'Gold' }, 'body.plan'],
      [{ ratePerMinute: -5 }, 'body.ratePerMinute'],
      [{ uploadRatePerMinute: 1.5 }, 'body.uploadRatePerMinute'],
      [{ status: 'deleted' }, 'body.status'],
      [{ apiEnabled: 'yes' }, 'body.apiEnabled'],
      [{ status: 'active', suspendedReason: 'Why' }, 'body.suspendedReason'],
      [{}, 'body'],
      [{ plan: 'Premium', colour: 'red' }, 'body.colour'],
    ];
    for (const [body, field] of cases) {
      const answer = await asUser(harness.app, admin, 'PUT', `${BASE}/${org}`, body);
      expect(answer.statusCode, JSON.stringify(body)).toBe(400);
      expect(answer.json().error.code).toBe('invalid_request');
      expect(fieldsOf(answer), JSON.stringify(body)).toContain(field);
    }
    const starter = await organization('Starter API', 'Starter');
    const noApi = await asUser(harness.app, admin, 'PUT', `${BASE}/${starter}`, { apiEnabled: true });
    expect(noApi.statusCode).toBe(400);
    expect(fieldsOf(noApi)).toEqual(['body.apiEnabled']);
    expect(await callAs<Detail>(harness.app, admin, 'GET', `${BASE}/${org}`)).toEqual(before);
    expect(await auditEvents(org, 'organization.updated')).toHaveLength(count);
  });

  it('answers 404 for an unknown organization and 400 for an id that is not one', async () => {
    const unknown = randomUUID();
    for (const [method, url, body] of [
      ['GET', `${BASE}/${unknown}`, undefined],
      ['PUT', `${BASE}/${unknown}`, { plan: 'Business' }],
      ['DELETE', `${BASE}/${unknown}`, undefined],
      ['GET', `${BASE}/${unknown}/integrations`, undefined],
      ['GET', `${BASE}/${unknown}/credits`, undefined],
      ['POST', `${BASE}/${unknown}/credits`, { amount: 5, reason: 'Nobody' }],
    ] as const) {
      expectError(await asUser(harness.app, admin, method, url, body), 404, 'not_found');
    }
    const malformed = await asUser(harness.app, admin, 'GET', `${BASE}/not-an-id`);
    expect(malformed.statusCode).toBe(400);
    expect(fieldsOf(malformed)).toContain('params.id');
  });
});

/** A PNG signature image. */
const signature = encodePng(60, 20, (_x, y) => (Math.abs(y - 10) < 2 ? [20, 30, 120, 255] : [0, 0, 0, 0]));

/** Fills the recipient's required fields and completes, through the signer API. */
async function sign(token: string, name: string): Promise<LightMyRequestResponse> {
  const signer = (method: 'GET' | 'PUT' | 'POST', url: string, payload?: unknown) =>
    harness.app.inject({
      method,
      url,
      remoteAddress: '203.0.113.9',
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  const view = expectJson<{ fields: { fieldDefinitionId: string; type: string; required: boolean }[] }>(
    await signer('GET', `/api/signing/${token}`),
  );
  const values = view.fields
    .filter((field) => field.required)
    .map((field) => ({
      fieldDefinitionId: field.fieldDefinitionId,
      value:
        field.type === 'Signature'
          ? { imagePngBase64: signature.toString('base64'), typedName: name }
          : field.type === 'Date'
            ? '2026-05-01'
            : name,
    }));
  expectJson(await signer('PUT', `/api/signing/${token}/fields`, { values }));
  return signer('POST', `/api/signing/${token}/complete`, { consent: true });
}

async function waitForStatus(id: string, status: string): Promise<void> {
  let current = '';
  for (let attempt = 0; attempt < 150; attempt += 1) {
    current = (await harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id })).status;
    if (current === status) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`envelope ${id} never reached ${status} (is ${current})`);
}

describe('a suspended organization', () => {
  let org: string;
  let templateId: string;
  let owner: SignedInUser;
  let running: { id: string };
  let links: { fullName: string; url: string }[];
  let earlierToken: string;

  beforeAll(async () => {
    const made = await createOrganizationWithTemplate(harness.ctx);
    org = made.organization.id;
    templateId = made.template.id;
    owner = await signedInUser(harness, { role: 'owner', organizationId: org });
    // Sent before the suspension: it goes on.
    running = await documentFixture(harness.ctx, org, templateId, { title: 'Running', send: true });
    // The Client signs first, then the Provider (the order of TWO_SIGNERS).
    links = (await issueSigningLinks(harness.ctx, org, running.id)).sort(
      (a, b) =>
        TWO_SIGNERS.findIndex((s) => s.fullName === a.fullName) -
        TWO_SIGNERS.findIndex((s) => s.fullName === b.fullName),
    );
    const { request } = await oauthClient(org);
    earlierToken = expectJson<{ access_token: string }>(await request()).access_token;
    await callAs(harness.app, admin, 'PUT', `${BASE}/${org}`, {
      status: 'suspended',
      suspendedReason: 'Abuse report',
    });
  });

  it('ends its sessions and refuses its sign-in, naming the organization', async () => {
    expectError(
      await harness.app.inject({ method: 'GET', url: '/api/billing/summary', headers: owner.headers }),
      401,
      'unauthorized',
    );
    const refused = await login(owner);
    expectError(refused, 403, 'organization_suspended');
    expect(refused.json().error.message).toContain(owner.organization.name);
    expect(refused.cookies.find((cookie) => cookie.name === 'sigil_session')?.value ?? '').toBe('');
  });

  it('refuses the token endpoint and the tokens it gave before', async () => {
    const { request } = await oauthClient(org);
    expectError(await request(), 403, 'organization_suspended');
    expectError(
      await harness.app.inject({
        method: 'GET',
        url: '/api/v1/usage',
        headers: { authorization: `Bearer ${earlierToken}` },
      }),
      403,
      'organization_suspended',
    );
  });

  it('refuses new envelopes everywhere they are created, and shows the subscription suspended', async () => {
    await expect(
      createEnvelope(harness.ctx, {
        organizationId: org,
        templateId,
        title: 'Refused',
        recipients: TWO_SIGNERS,
      }),
    ).rejects.toMatchObject({ status: 403, code: 'organization_suspended' });
    expect(await harness.ctx.orm.em.fork().count(Envelope, { organizationId: org, title: 'Refused' })).toBe(
      0,
    );
    expect((await usageSummary(harness.ctx, org)).subscriptionStatus).toBe('suspended');
  });

  it('lets the running envelope’s signers sign it to completion', async () => {
    for (const link of links) {
      const token = link.url.split('/sign/')[1] as string;
      const done = await sign(token, link.fullName);
      expect(done.statusCode, done.body).toBe(200);
    }
    await waitForStatus(running.id, 'Completed');
  });

  it('works again once reactivated: sign-in, tokens, envelopes, an active subscription', async () => {
    await callAs(harness.app, admin, 'PUT', `${BASE}/${org}`, { status: 'active' });
    const signedIn = await login(owner);
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    const { request } = await oauthClient(org);
    const token = expectJson<{ access_token: string }>(await request()).access_token;
    const usage = expectJson<{ subscriptionStatus: string }>(
      await harness.app.inject({
        method: 'GET',
        url: '/api/v1/usage',
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    expect(usage.subscriptionStatus).toBe('active');
    const made = await createEnvelope(harness.ctx, {
      organizationId: org,
      templateId,
      title: 'After',
      recipients: TWO_SIGNERS,
    });
    expect(made.status).toBe('Draft');
    expect((await usageSummary(harness.ctx, org)).subscriptionStatus).toBe('active');
  });
});

describe('a deleted organization', () => {
  let org: string;
  let owner: SignedInUser;
  let signing: string;
  let draft: string;

  beforeAll(async () => {
    const made = await createOrganizationWithTemplate(harness.ctx);
    org = made.organization.id;
    await sql('update organization set name = ? where id = ?', [`${RUN} Deleted`, org]);
    owner = await signedInUser(harness, { role: 'owner', organizationId: org });
    const envelope = (title: string) =>
      createEnvelope(harness.ctx, {
        organizationId: org,
        templateId: made.template.id,
        title,
        recipients: TWO_SIGNERS,
      });
    draft = (await envelope('Draft')).id;
    signing = (await envelope('Being signed')).id;
    // As its workflow leaves it: sent, not ended.
    await sql(`update envelope set status = 'Sent', sent_at = now() where id = ?`, [signing]);
  });

  it('is hidden from the list but under status=deleted, refused everywhere, and cannot be changed', async () => {
    const { request } = await oauthClient(org);
    await callAs(harness.app, admin, 'DELETE', `${BASE}/${org}`);
    expect((await list(`search=${org}`)).organizations).toEqual([]);
    expect((await list(`search=${RUN}`)).organizations.map((r) => r.id)).not.toContain(org);
    expect((await list(`search=${org}&status=deleted`)).organizations).toMatchObject([
      { id: org, status: 'deleted' },
    ]);
    const detail = await callAs<Detail>(harness.app, admin, 'GET', `${BASE}/${org}`);
    expect(detail.status).toBe('deleted');
    const deletedAt = Date.parse(detail.deletedAt as string);
    expect(Date.parse(detail.purgeAfter as string) - deletedAt).toBe(30 * 24 * 60 * 60 * 1000);

    expectError(
      await harness.app.inject({ method: 'GET', url: '/api/billing/summary', headers: owner.headers }),
      401,
      'unauthorized',
    );
    expectError(await login(owner), 403, 'organization_deleted');
    expectError(await request(), 403, 'organization_deleted');

    expectError(
      await asUser(harness.app, admin, 'PUT', `${BASE}/${org}`, { status: 'active' }),
      404,
      'not_found',
    );
    expectError(await asUser(harness.app, admin, 'DELETE', `${BASE}/${org}`), 404, 'not_found');
    expectError(
      await asUser(harness.app, admin, 'POST', `${BASE}/${org}/credits`, { amount: 1, reason: 'Late' }),
      404,
      'not_found',
    );
    const [event, ...more] = await auditEvents(org, 'organization.deleted');
    expect(more).toEqual([]);
    expect(event?.details).toMatchObject({ name: `${RUN} Deleted`, plan: 'Business', status: 'active' });
  });

  it('is purged by the retention run 30 days after its deletion, once no envelope of it is being signed', async () => {
    const em = harness.ctx.orm.em.fork();
    const day = 24 * 60 * 60 * 1000;
    const [row] = await sql<{ deleted_at: Date }>('select deleted_at from organization where id = ?', [org]);
    const deletedAt = new Date(row?.deleted_at as Date).getTime();
    const soon = new Date(deletedAt + 29 * day);
    const later = new Date(deletedAt + 31 * day);
    expect(await organizationsDueForPurge(em, soon, null, 10_000)).not.toContain(org);
    // An envelope still being signed holds it back.
    expect(await organizationsDueForPurge(em, later, null, 10_000)).not.toContain(org);
    expect(await purgeOrganization(em, org, later)).toBeNull();
    await sql(`update envelope set status = 'Completed', completed_at = now() where id = ?`, [signing]);
    expect(await organizationsDueForPurge(em, later, null, 10_000)).toContain(org);

    const count = async (table: string) =>
      Number(
        (
          await sql<{ n: number }>(`select count(*)::int as n from ${table} where organization_id = ?`, [org])
        )[0]?.n,
      );
    expect(await count('envelope')).toBe(2);
    expect(await count('stored_file')).toBeGreaterThan(0);
    const purged = await purgeOrganization(em, org, later);
    expect(purged).toMatchObject({ organizationId: org, envelopes: 2 });
    expect(purged?.files).toBeGreaterThan(0);
    for (const table of [
      'envelope',
      'audit_event',
      'stored_file',
      'template',
      'app_user',
      'role',
      'user_session',
      'oauth_client',
      'sms_credit_grant',
    ]) {
      expect(await count(table), table).toBe(0);
    }
    expect(await sql('select 1 from recipient where envelope_id in (?, ?)', [draft, signing])).toEqual([]);
    expect(await sql('select 1 from organization where id = ?', [org])).toEqual([]);
    // A second run finds nothing; the backoffice audit log keeps the deletion.
    expect(await purgeOrganization(em, org, later)).toBeNull();
    expect(await auditEvents(org, 'organization.deleted')).toHaveLength(1);
    expectError(await asUser(harness.app, admin, 'GET', `${BASE}/${org}`), 404, 'not_found');
  });
});

describe('the integrations view', () => {
  it('shows the OAuth clients and webhook endpoints with their diagnostics, never a secret', async () => {
    const org = await organization('Integrations', 'Business', true);
    const client = await createOAuthClient(harness.ctx, {
      organizationId: org,
      name: 'ERP connector',
      scopes: ['envelopes.read'],
    });
    const endpoint = await createWebhookEndpoint(harness.ctx, {
      organizationId: org,
      url: 'http://127.0.0.1:9/hooks',
    });
    const answer = await asUser(harness.app, admin, 'GET', `${BASE}/${org}/integrations`);
    const body = expectJson<{
      organizationId: string;
      apiKeys: { apiAccess: { available: boolean }; apiKeys: { clientId: string; name: string }[] };
      webhooks: { endpoints: { id: string; url: string }[] };
      diagnostics: Record<string, unknown>;
    }>(answer);
    expect(body.organizationId).toBe(org);
    expect(body.apiKeys.apiAccess.available).toBe(true);
    expect(body.apiKeys.apiKeys).toMatchObject([{ clientId: client.clientId, name: 'ERP connector' }]);
    expect(body.webhooks.endpoints).toMatchObject([{ id: endpoint.id, url: 'http://127.0.0.1:9/hooks' }]);
    expect(body.diagnostics).toBeTypeOf('object');
    expect(answer.body).not.toContain(client.clientSecret);
    expect(answer.body).not.toContain(endpoint.secret);

    // Both looks are recorded for the organization's owner to see (support.accessed in its security log).
    expectJson(await asUser(harness.app, admin, 'GET', `${BASE}/${org}`));
    const looks = await harness.ctx.orm.em
      .fork()
      .find(
        SecurityEvent,
        { organizationId: org, type: 'support.accessed' },
        { orderBy: { occurredAt: 'asc' } },
      );
    expect(looks.map((event) => event.details.action)).toEqual([
      'organization.integrations_viewed',
      'organization.viewed',
    ]);
    expect(looks[0]?.details).toMatchObject({ staff: admin.admin.email, targetId: org });
  });
});

interface Ledger {
  planAllowance: number;
  granted: number;
  grants: { id: string; amount: number; reason: string; grantedBy: { email: string | null } }[];
  uses: { sms: number; whatsApp: number; total: number };
  balance: number;
  remaining: number;
}

describe('SMS credits', () => {
  let org: string;
  let owner: SignedInUser;
  let bearer: { authorization: string };

  const remaining = async () => {
    const billing = expectJson<{ remainingSmsCredits: number; smsCreditsIncluded: number }>(
      await harness.app.inject({ method: 'GET', url: '/api/billing/summary', headers: owner.headers }),
    );
    const usage = expectJson<{ remainingSmsCredits: number; smsCreditsIncluded: number }>(
      await harness.app.inject({ method: 'GET', url: '/api/v1/usage', headers: bearer }),
    );
    expect(usage.remainingSmsCredits).toBe(billing.remainingSmsCredits);
    expect(usage.smsCreditsIncluded).toBe(billing.smsCreditsIncluded);
    return billing.remainingSmsCredits;
  };

  beforeAll(async () => {
    org = await organization('Credits', 'Professional', true);
    owner = await signedInUser(harness, { role: 'owner', organizationId: org });
    const { request } = await oauthClient(org);
    bearer = {
      authorization: `Bearer ${expectJson<{ access_token: string }>(await request()).access_token}`,
    };
    await notification(org, 'Sms', 'sent', thisMonth);
    await notification(org, 'Sms', 'sent', thisMonth);
    await notification(org, 'Sms', 'sent', thisMonth);
    await notification(org, 'WhatsApp', 'sent', thisMonth);
    await notification(org, 'Sms', 'failed', null);
    await notification(org, 'Sms', 'sent', lastMonth);
  });

  it('raises the remaining credits of the billing summary and of /api/v1/usage by exactly the grant', async () => {
    const before = await remaining();
    expect(before).toBe(100 - 4);
    const granted = await callAs<{ grant: { amount: number; reason: string }; ledger: Ledger }>(
      harness.app,
      admin,
      'POST',
      `${BASE}/${org}/credits`,
      { amount: 250, reason: 'Campaign launch' },
    );
    expect(granted.grant).toMatchObject({ amount: 250, reason: 'Campaign launch' });
    expect(granted.ledger.remaining).toBe(before + 250);
    expect(await remaining()).toBe(before + 250);
    await callAs(harness.app, admin, 'POST', `${BASE}/${org}/credits`, { amount: 7, reason: 'Goodwill' });
    expect(await remaining()).toBe(before + 257);
    const [event] = await auditEvents(org, 'organization.credits_granted');
    expect(event?.details).toMatchObject({ amount: 250, reason: 'Campaign launch' });
  });

  it('keeps a ledger of the month that sums to the remaining credits', async () => {
    const ledger = await callAs<Ledger>(harness.app, admin, 'GET', `${BASE}/${org}/credits`);
    expect(ledger).toMatchObject({
      planAllowance: 100,
      granted: 257,
      uses: { sms: 3, whatsApp: 1, total: 4 },
      balance: 353,
      remaining: 353,
    });
    expect(ledger.grants.map((grant) => [grant.amount, grant.reason, grant.grantedBy.email])).toEqual([
      [250, 'Campaign launch', admin.admin.email],
      [7, 'Goodwill', admin.admin.email],
    ]);
    expect(
      ledger.planAllowance + ledger.grants.reduce((sum, g) => sum + g.amount, 0) - ledger.uses.total,
    ).toBe(await remaining());
    // The list and the detail show the same credits.
    const [row] = (await list(`search=${org}`)).organizations;
    expect(row?.usage).toMatchObject({
      smsCreditsIncluded: 357,
      smsCreditsUsed: 4,
      smsCreditsRemaining: 353,
    });
  });

  it('counts a grant in the month it was given only', async () => {
    await sql('update sms_credit_grant set created_at = ? where organization_id = ? and amount = 7', [
      lastMonth,
      org,
    ]);
    expect(await remaining()).toBe(100 - 4 + 250);
    const ledger = await callAs<Ledger>(harness.app, admin, 'GET', `${BASE}/${org}/credits`);
    expect(ledger.grants.map((grant) => grant.amount)).toEqual([250]);
    expect(ledger.remaining).toBe(346);
  });

  it('answers 400 naming the field for a bad grant, and grants nothing', async () => {
    const count = await harness.ctx.orm.em.fork().count(SmsCreditGrant, { organizationId: org });
    const cases: [unknown, string][] = [
      [{ amount: 0, reason: 'Zero' }, 'body.amount'],
      [{ amount: -5, reason: 'Negative' }, 'body.amount'],
      [{ amount: 2.5, reason: 'Half' }, 'body.amount'],
      [{ amount: 1_000_001, reason: 'Too many' }, 'body.amount'],
      [{ amount: '10', reason: 'Text' }, 'body.amount'],
      [{ amount: 10 }, 'body.reason'],
      [{ amount: 10, reason: '   ' }, 'body.reason'],
      [{ amount: 10, reason: 'Extra', free: true }, 'body.free'],
    ];
    for (const [body, field] of cases) {
      const answer = await asUser(harness.app, admin, 'POST', `${BASE}/${org}/credits`, body);
      expect(answer.statusCode, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(answer), JSON.stringify(body)).toContain(field);
    }
    expect(await harness.ctx.orm.em.fork().count(SmsCreditGrant, { organizationId: org })).toBe(count);
  });
});

// The business app's documents (docs/documents.md) through HTTP, on real PostgreSQL and the Temporal test
// environment's workflows: one organization with two teams, senders, a read-only member, a role that reads every
// envelope and an owner; envelopes in every tab, made by the real services (as the send page will make them,
// with their sender and team) and one by the public API (no sending user). Checked: who sees which envelope (a
// role, a team, the public API's, another organization's: 404), the tabs and their counts, "action needed" as a
// recipient and as a sender, the search in each field, the filters, cursor pagination, the envelope page's
// recipients, rounds, timeline, allowed actions and workflow link, the actions through the envelope services
// (and their 409s when the status does not allow them), a signing link for a ManualLink recipient, the
// downloads, the live view (a Temporal Query) and the ETag that makes polling cheap.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppUser, AuditEvent, Envelope, Template } from '../../db/entities/index.ts';
import type { TemplateDefinition } from '../../domain/template.ts';
import { eventActor } from '../../pdf/render-audit-trail.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { createEnvelope, type EnvelopeSender } from '../../services/envelopes/create-envelope.ts';
import { declineRecipient } from '../../services/envelopes/decline-recipient.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectJson } from '../support/app-requests.ts';
import { createOrganizationWithTemplate } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';
import { replaceStoredBytes, storedBytes } from '../support/stored-files.ts';

let harness: ApiHarness;
let organizationId: string;
let templateId: string;
let owner: SignedInUser;
let senderA: SignedInUser;
let senderB: SignedInUser;
let senderC: SignedInUser;
let loner: SignedInUser;
let member: SignedInUser;
let auditor: SignedInUser;
let stranger: SignedInUser;
let sales: string;
let support: string;

/** The envelopes of the organization, by what they are for. */
const E = {} as Record<
  | 'draftA'
  | 'waitingOnB'
  | 'completedB'
  | 'declinedC'
  | 'cancelledC'
  | 'expiredLoner'
  | 'failedA'
  | 'archivedB'
  | 'api',
  string
>;

const SIGNERS = [
  { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'ManualLink' },
  { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', deliveryChannel: 'ManualLink' },
] as const;

const senderOf = (user: SignedInUser, teamId: string | null): EnvelopeSender => ({
  userId: user.user.id,
  teamId,
});

async function draft(
  sender: EnvelopeSender | undefined,
  options: {
    title?: string;
    externalReference?: string;
    recipients?: unknown[];
    expiresAt?: string;
    template?: string;
  } = {},
): Promise<string> {
  const envelope = await createEnvelope(
    harness.ctx,
    {
      organizationId,
      templateId: options.template ?? templateId,
      title: options.title ?? 'Services agreement',
      recipients: (options.recipients ?? SIGNERS) as never,
      ...(options.externalReference ? { externalReference: options.externalReference } : {}),
      ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}),
    },
    sender,
  );
  return envelope.id;
}

async function sent(sender: EnvelopeSender | undefined, options: Parameters<typeof draft>[1] = {}) {
  const id = await draft(sender, options);
  await sendEnvelope(harness.ctx, organizationId, id);
  return id;
}

async function statusOf(id: string): Promise<string> {
  return (await findEnvelope(harness.ctx, organizationId, id)).envelope.status;
}

/** Waits (in a hook too, where expect.poll is not allowed) until the envelope has the status. */
async function reaches(id: string, status: string): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if ((await statusOf(id)) === status) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`envelope ${id} is ${await statusOf(id)}, not ${status}`);
}

async function recipientsOf(id: string) {
  return (await findEnvelope(harness.ctx, organizationId, id)).recipients;
}

interface Row {
  id: string;
  title: string;
  status: string;
  actionNeeded: string | null;
  sender: { id: string; fullName: string } | null;
  team: { id: string; name: string } | null;
  createdAt: string;
}

/** Every envelope of the list for the user with the query, all pages. */
async function listed(user: SignedInUser, query = ''): Promise<Row[]> {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const separator = query ? '&' : '';
    const page: { documents: Row[]; nextCursor: string | null } = await callAs(
      harness.app,
      user,
      'GET',
      `/api/documents?${query}${separator}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    rows.push(...page.documents);
    cursor = page.nextCursor;
  } while (cursor);
  return rows;
}

async function ids(user: SignedInUser, query = ''): Promise<string[]> {
  return (await listed(user, query)).map((row) => row.id).sort();
}

const sorted = (...values: string[]) => [...values].sort();

beforeAll(async () => {
  harness = await openApiHarness();
  const made = await createOrganizationWithTemplate(harness.ctx);
  organizationId = made.organization.id;
  templateId = made.template.id;
  owner = await signedInUser(harness, { role: 'owner', organizationId, fullName: 'Olivia Owner' });
  const team = async (name: string) =>
    (await callAs<{ id: string }>(harness.app, owner, 'POST', '/api/teams', { name })).id;
  sales = await team('Sales');
  support = await team('Support');
  const user = async (role: string, fullName: string, teamId: string | null) => {
    const made = await signedInUser(harness, { role, organizationId, fullName });
    if (teamId) await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: made.user.id }, { teamId });
    return made;
  };
  senderA = await user('sender', 'Avi Sender', sales);
  senderB = await user('sender', 'Bella Sender', sales);
  senderC = await user('sender', 'Carmel Sender', support);
  loner = await user('sender', 'Lior Loner', null);
  member = await user('member', 'Mor Member', sales);
  const auditorRole = await callAs<{ id: string }>(harness.app, owner, 'POST', '/api/roles', {
    name: 'Auditor',
    permissions: ['documents:read', 'documents:read_all'],
  });
  auditor = await user(auditorRole.id, 'Ayelet Auditor', support);
  stranger = await signedInUser(harness, { role: 'owner', fullName: 'Someone Else' });

  const A = senderOf(senderA, sales);
  const B = senderOf(senderB, sales);
  const C = senderOf(senderC, support);
  E.draftA = await draft(A, { title: 'Alpha lease 50%_off', externalReference: 'PO-1001' });
  E.waitingOnB = await sent(A, {
    title: 'Beta purchase order',
    recipients: [
      {
        roleName: 'Client',
        fullName: 'Bella Sender',
        email: senderB.email.toUpperCase(),
        deliveryChannel: 'ManualLink',
      },
      { roleName: 'Provider', fullName: 'Sam Cohen', email: 'sam@example.com', deliveryChannel: 'Email' },
    ],
  });
  E.completedB = await sent(B, { title: 'Gamma NDA', externalReference: 'NDA-7' });
  for (const recipient of await recipientsOf(E.completedB)) {
    await completeRecipient(harness.ctx, organizationId, E.completedB, recipient.id);
  }
  E.declinedC = await sent(C, { title: 'Delta quote' });
  const [declining] = await recipientsOf(E.declinedC);
  await declineRecipient(harness.ctx, organizationId, E.declinedC, declining?.id as string, {
    reason: 'Wrong price',
  });
  E.cancelledC = await sent(C, { title: 'Epsilon order' });
  await callAs(harness.app, senderC, 'POST', `/api/documents/${E.cancelledC}/cancel`, {
    reason: 'Replaced by a new quote',
  });
  E.expiredLoner = await sent(senderOf(loner, null), {
    title: 'Zeta short deadline',
    expiresAt: new Date(Date.now() + 3000).toISOString(),
  });
  // A template whose PDF no longer parses: the last signature's rendering fails for good (FinalPdfFailed).
  const broken = await createTemplate(harness.ctx, {
    organizationId,
    pdf: await buildDemoPdf(),
    filename: 'broken.pdf',
    definition: DEMO_TEMPLATE_DEFINITION as unknown as TemplateDefinition,
    publish: true,
  });
  E.failedA = await sent(A, { title: 'Eta broken render', template: broken.id });
  await replaceStoredBytes(harness.ctx, broken.fileId, Buffer.from('%PDF-1.7 broken'));
  for (const recipient of await recipientsOf(E.failedA)) {
    await completeRecipient(harness.ctx, organizationId, E.failedA, recipient.id);
  }
  // Archived through the lifecycle route (api/trpc/procedures/document-lifecycle.ts, tested with it).
  E.archivedB = await sent(B, { title: 'Theta archived' });
  for (const recipient of await recipientsOf(E.archivedB)) {
    await completeRecipient(harness.ctx, organizationId, E.archivedB, recipient.id);
  }
  // The public API: an integration's envelope has no sending user.
  const client = await createOAuthClient(harness.ctx, {
    organizationId,
    name: 'ERP',
    scopes: ['envelopes.write', 'envelopes.read'],
  });
  const token = await harness.app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: 'grant_type=client_credentials',
  });
  const created = await harness.app.inject({
    method: 'POST',
    url: '/api/v1/envelopes/from-template',
    headers: { authorization: `Bearer ${token.json().access_token}` },
    payload: { title: 'Iota from the ERP', templateId, recipients: SIGNERS, externalReference: 'ERP-42' },
  });
  E.api = expectJson<{ id: string }>(created, 201).id;

  await reaches(E.completedB, 'Completed');
  await reaches(E.archivedB, 'Completed');
  await callAs(harness.app, senderB, 'POST', `/api/documents/${E.archivedB}/archive`, {});
  await reaches(E.failedA, 'FinalPdfFailed');
  await reaches(E.expiredLoner, 'Expired');
  expect(await statusOf(E.declinedC)).toBe('Declined');
  expect(await statusOf(E.cancelledC)).toBe('Cancelled');
});
afterAll(() => harness?.close());

describe('who sees which envelope', () => {
  it('records the sender and their team on envelopes of the app, and none on the public API’s', async () => {
    const em = harness.ctx.orm.em.fork();
    expect(await em.findOneOrFail(Envelope, { id: E.draftA })).toMatchObject({
      createdByUserId: senderA.user.id,
      teamId: sales,
    });
    expect(await em.findOneOrFail(Envelope, { id: E.expiredLoner })).toMatchObject({
      createdByUserId: loner.user.id,
      teamId: null,
    });
    expect(await em.findOneOrFail(Envelope, { id: E.api })).toMatchObject({
      createdByUserId: null,
      teamId: null,
    });
  });

  it('shows a role that reads everything every envelope, the public API’s included', async () => {
    const everything = sorted(...Object.values(E).filter((id) => id !== E.archivedB));
    expect(await ids(owner)).toEqual(everything);
    expect(await ids(auditor)).toEqual(everything);
    const api = (await listed(owner)).find((row) => row.id === E.api);
    expect(api?.sender).toBeNull();
  });

  it('shows a sender their own envelopes and their team’s, nothing else', async () => {
    const salesEnvelopes = sorted(E.draftA, E.waitingOnB, E.completedB, E.failedA);
    expect(await ids(senderA)).toEqual(salesEnvelopes);
    expect(await ids(senderB)).toEqual(salesEnvelopes);
    expect(await ids(member)).toEqual(salesEnvelopes);
    expect(await ids(senderC)).toEqual(sorted(E.declinedC, E.cancelledC));
    expect(await ids(loner)).toEqual([E.expiredLoner]);
    const row = (await listed(senderB)).find((candidate) => candidate.id === E.draftA);
    expect(row).toMatchObject({
      sender: { id: senderA.user.id, fullName: 'Avi Sender' },
      team: { id: sales, name: 'Sales' },
    });
  });

  it('answers 404 for an envelope the user does not see, as for another organization’s or an unknown one', async () => {
    for (const [user, id] of [
      [senderC, E.draftA],
      [senderA, E.api],
      [loner, E.completedB],
      [stranger, E.draftA],
      [owner, randomUUID()],
    ] as const) {
      for (const path of ['', '/live', '/files/source']) {
        const response = await asUser(harness.app, user, 'GET', `/api/documents/${id}${path}`);
        expect(response.statusCode, `${path} ${response.body}`).toBe(404);
        expect(response.json().error).toMatchObject({
          code: 'not_found',
          message: `Envelope ${id} was not found.`,
        });
      }
      const before = await statusOf(E.draftA);
      const send = await asUser(harness.app, user, 'POST', `/api/documents/${id}/send`, {});
      expect(send.statusCode).toBe(404);
      expect(await statusOf(E.draftA)).toBe(before);
    }
    expect(await ids(stranger)).toEqual([]);
    const malformed = await asUser(harness.app, owner, 'GET', '/api/documents/not-a-uuid');
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.details[0].field).toBe('params.id');
  });
});

describe('tabs', () => {
  it('puts each envelope in its tab, archived ones only under archived', async () => {
    expect(await ids(owner, 'tab=drafts')).toEqual(sorted(E.draftA, E.api));
    expect(await ids(owner, 'tab=in_progress')).toEqual(sorted(E.waitingOnB, E.failedA));
    expect(await ids(owner, 'tab=completed')).toEqual([E.completedB]);
    expect(await ids(owner, 'tab=declined')).toEqual([E.declinedC]);
    expect(await ids(owner, 'tab=cancelled')).toEqual([E.cancelledC]);
    expect(await ids(owner, 'tab=expired')).toEqual([E.expiredLoner]);
    expect(await ids(owner, 'tab=archived')).toEqual([E.archivedB]);
    expect(await ids(senderC, 'tab=archived')).toEqual([]);
    expect(await ids(senderA, 'tab=drafts')).toEqual([E.draftA]);
  });

  it('"action needed": waiting on the user as a recipient in turn (by address, any case), or failed and theirs to act on', async () => {
    const rowsOfB = await listed(senderB, 'tab=action_needed');
    expect(rowsOfB.map((row) => [row.id, row.actionNeeded])).toEqual([[E.waitingOnB, 'recipient']]);
    const rowsOfA = await listed(senderA, 'tab=action_needed');
    expect(rowsOfA.map((row) => [row.id, row.actionNeeded])).toEqual([[E.failedA, 'sender']]);
    // The owner reads everything but sent neither; a read-only member cannot act on a failed envelope.
    expect(await ids(owner, 'tab=action_needed')).toEqual([]);
    expect(await ids(member, 'tab=action_needed')).toEqual([]);
    // In the other tabs the row says why it needs the user.
    const inAll = (await listed(senderB)).find((row) => row.id === E.waitingOnB);
    expect(inAll?.actionNeeded).toBe('recipient');
  });

  it('counts each tab for the user and offers the senders, teams and templates they see', async () => {
    const filters = await callAs<{
      counts: Record<string, number>;
      senders: { fullName: string }[];
      teams: { name: string }[];
      templates: { id: string }[];
      integrations: boolean;
    }>(harness.app, owner, 'GET', '/api/documents/filters');
    expect(filters.counts).toEqual({
      all: 8,
      action_needed: 0,
      in_progress: 2,
      completed: 1,
      declined: 1,
      cancelled: 1,
      expired: 1,
      drafts: 2,
      archived: 1,
    });
    expect(filters.senders.map((sender) => sender.fullName)).toEqual([
      'Avi Sender',
      'Bella Sender',
      'Carmel Sender',
      'Lior Loner',
    ]);
    expect(filters.teams.map((team) => team.name)).toEqual(['Sales', 'Support']);
    expect(filters.templates.map((template) => template.id)).toContain(templateId);
    expect(filters.integrations).toBe(true);

    const ofB = await callAs<typeof filters>(harness.app, senderB, 'GET', '/api/documents/filters');
    expect(ofB.counts).toMatchObject({ all: 4, action_needed: 1, drafts: 1, archived: 1, in_progress: 2 });
    expect(ofB.senders.map((sender) => sender.fullName)).toEqual(['Avi Sender', 'Bella Sender']);
    expect(ofB.teams.map((team) => team.name)).toEqual(['Sales']);
    expect(ofB.integrations).toBe(false);
  });
});

describe('search and filters', () => {
  it('finds by title, external reference, recipient name and address, without regard to case', async () => {
    expect(await ids(owner, 'search=ALPHA')).toEqual([E.draftA]);
    expect(await ids(owner, 'search=po-10')).toEqual([E.draftA]);
    expect(await ids(owner, 'search=erp-4')).toEqual([E.api]);
    expect(await ids(owner, `search=${encodeURIComponent('bella sender')}`)).toEqual([E.waitingOnB]);
    expect(await ids(owner, `search=${encodeURIComponent(senderB.email.slice(0, 12))}`)).toEqual([
      E.waitingOnB,
    ]);
    // `%` and `_` are letters here, not wildcards.
    expect(await ids(owner, `search=${encodeURIComponent('50%_off')}`)).toEqual([E.draftA]);
    expect(await ids(owner, `search=${encodeURIComponent('%')}`)).toEqual([E.draftA]);
    expect(await ids(owner, 'search=nothing-like-this')).toEqual([]);
    // A search within a tab, and within what the user sees.
    expect(await ids(owner, 'search=sam%40example&tab=drafts')).toEqual(sorted(E.draftA, E.api));
    expect(await ids(senderC, 'search=alpha')).toEqual([]);
  });

  it('narrows by sender (a user, or the public API), team, template and creation time', async () => {
    expect(await ids(owner, `sender=${senderA.user.id}`)).toEqual(sorted(E.draftA, E.waitingOnB, E.failedA));
    expect(await ids(owner, 'sender=api')).toEqual([E.api]);
    expect(await ids(senderA, 'sender=api')).toEqual([]);
    expect(await ids(owner, `teamId=${support}`)).toEqual(sorted(E.declinedC, E.cancelledC));
    const failed = (await harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id: E.failedA })).templateId;
    expect(await ids(owner, `templateId=${failed}`)).toEqual([E.failedA]);
    const rows = await listed(owner);
    const newest = rows[0] as Row;
    expect(await ids(owner, `from=${encodeURIComponent(newest.createdAt)}`)).toEqual([newest.id]);
    expect(await ids(owner, `to=${encodeURIComponent(newest.createdAt)}`)).toEqual(
      rows
        .slice(1)
        .map((row) => row.id)
        .sort(),
    );
  });

  it('refuses a bad query with 400 naming the field', async () => {
    const cases: [string, string][] = [
      ['tab=everything', 'querystring.tab'],
      ['limit=0', 'querystring.limit'],
      ['limit=101', 'querystring.limit'],
      ['cursor=not-a-cursor', 'querystring.cursor'],
      [`cursor=${Buffer.from('2020|x').toString('base64url')}`, 'querystring.cursor'],
      ['from=yesterday', 'querystring.from'],
      ['from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'querystring.to'],
      ['sender=someone', 'querystring.sender'],
      ['teamId=1', 'querystring.teamId'],
      [`search=${'x'.repeat(201)}`, 'querystring.search'],
      ['search=a%00b', 'querystring.search'],
    ];
    for (const [query, field] of cases) {
      const response = await asUser(harness.app, owner, 'GET', `/api/documents?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().error.code).toBe('invalid_request');
      expect(
        response.json().error.details.map((detail: { field: string }) => detail.field),
        query,
      ).toContain(field);
    }
  });
});

describe('cursor pagination', () => {
  it('walks every envelope once, newest first, a page at a time', async () => {
    const everything = await listed(owner);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { documents: Row[]; nextCursor: string | null } = await callAs(
        harness.app,
        owner,
        'GET',
        `/api/documents?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.documents.length).toBeLessThanOrEqual(3);
      seen.push(...page.documents.map((row) => row.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(everything.map((row) => row.id));
    const times = everything.map((row) => Date.parse(row.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // Within a filter too.
    const first = await callAs<{ documents: Row[]; nextCursor: string }>(
      harness.app,
      owner,
      'GET',
      `/api/documents?sender=${senderA.user.id}&limit=2`,
    );
    const second = await callAs<{ documents: Row[]; nextCursor: string | null }>(
      harness.app,
      owner,
      'GET',
      `/api/documents?sender=${senderA.user.id}&limit=2&cursor=${first.nextCursor}`,
    );
    expect(second.nextCursor).toBeNull();
    expect([...first.documents, ...second.documents].map((row) => row.id).sort()).toEqual(
      sorted(E.draftA, E.waitingOnB, E.failedA),
    );
  });
});

interface Detail {
  id: string;
  status: string;
  expiresAt: string;
  reminderCount: number;
  sender: { fullName: string } | null;
  rounds: number;
  currentRound: number | null;
  files: { source: boolean; finalPdf: boolean; auditTrail: boolean };
  recipients: { id: string; fullName: string; round: number | null; status: string; signingLink: boolean }[];
  timeline: { type: string; recipient: { fullName: string } | null; data: Record<string, unknown> }[];
  actions: Record<string, boolean>;
  workflow: { id: string; namespace: string; webUiUrl: string | null } | null;
}

describe('the envelope page', () => {
  it('shows the recipients with their rounds, the timeline, the downloads and what the status allows', async () => {
    const detail = await callAs<Detail>(harness.app, senderA, 'GET', `/api/documents/${E.waitingOnB}`);
    expect(detail).toMatchObject({
      status: 'Sent',
      rounds: 2,
      currentRound: 1,
      sender: { fullName: 'Avi Sender' },
    });
    expect(detail.recipients.map((r) => [r.fullName, r.round, r.status, r.signingLink])).toEqual([
      ['Bella Sender', 1, 'Pending', true],
      ['Sam Cohen', 2, 'WaitingForTurn', false],
    ]);
    expect(detail.timeline.map((event) => event.type)).toContain('envelope.sent');
    expect(detail.files).toEqual({ source: true, finalPdf: false, auditTrail: false });
    expect(detail.actions).toEqual({
      send: false,
      remind: true,
      cancel: true,
      extend: true,
      retryFinalPdf: false,
      changeSettings: true,
    });
    // The workflow link is for settings:read (the owner), not for a sender.
    expect(detail.workflow).toBeNull();
    const asOwner = await callAs<Detail>(harness.app, owner, 'GET', `/api/documents/${E.waitingOnB}`);
    expect(asOwner.workflow).toEqual({
      id: envelopeWorkflowId(E.waitingOnB),
      namespace: 'default',
      webUiUrl: `http://localhost:8233/namespaces/default/workflows/${encodeURIComponent(envelopeWorkflowId(E.waitingOnB))}`,
    });
    // A read-only member sees the page without actions.
    const asMember = await callAs<Detail>(harness.app, member, 'GET', `/api/documents/${E.waitingOnB}`);
    expect(Object.values(asMember.actions).every((allowed) => !allowed)).toBe(true);
    expect(asMember.recipients.every((recipient) => !recipient.signingLink)).toBe(true);

    const declined = await callAs<Detail>(harness.app, senderC, 'GET', `/api/documents/${E.declinedC}`);
    const event = declined.timeline.find((candidate) => candidate.type === 'recipient.declined');
    expect(event).toMatchObject({ recipient: { fullName: 'Dana Levi' }, data: { reason: 'Wrong price' } });
    expect(declined.actions).toEqual({
      send: false,
      remind: false,
      cancel: false,
      extend: false,
      retryFinalPdf: false,
      changeSettings: false,
    });
    expect(declined.currentRound).toBeNull();
    const completed = await callAs<Detail>(harness.app, senderB, 'GET', `/api/documents/${E.completedB}`);
    expect(completed.files).toEqual({ source: true, finalPdf: true, auditTrail: true });
    const draftDetail = await callAs<Detail>(harness.app, senderA, 'GET', `/api/documents/${E.draftA}`);
    expect(draftDetail.actions).toEqual({
      send: true,
      remind: false,
      cancel: false,
      extend: true,
      retryFinalPdf: false,
      changeSettings: true,
    });
    expect(draftDetail.workflow).toBeNull();
  });

  it('carries an ETag: the same answer is 304 until the envelope changes', async () => {
    const first = await asUser(harness.app, senderA, 'GET', `/api/documents/${E.waitingOnB}`);
    const tag = first.headers.etag as string;
    expect(tag).toMatch(/^"[\w-]+"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const again = await asUser(harness.app, senderA, 'GET', `/api/documents/${E.waitingOnB}`, undefined, {
      headers: { 'if-none-match': tag },
    });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const other = await asUser(harness.app, senderA, 'GET', `/api/documents/${E.waitingOnB}`, undefined, {
      headers: { 'if-none-match': '"stale"' },
    });
    expect(other.statusCode).toBe(200);
    await callAs(harness.app, senderA, 'POST', `/api/documents/${E.waitingOnB}/remind`, {});
    const changed = await asUser(harness.app, senderA, 'GET', `/api/documents/${E.waitingOnB}`, undefined, {
      headers: { 'if-none-match': tag },
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(tag);
    expect(changed.json().reminderCount).toBe(1);
  });

  it('asks the workflow for its live view while it runs', async () => {
    const { live } = await callAs<{ live: Record<string, unknown> | null }>(
      harness.app,
      senderA,
      'GET',
      `/api/documents/${E.waitingOnB}/live`,
    );
    const [bella] = await recipientsOf(E.waitingOnB);
    expect(live).toMatchObject({
      status: 'Sent',
      waitingFor: 'recipients',
      openRound: { number: 1, of: 2, recipientIds: [bella?.id] },
      awaitedRecipientIds: [bella?.id],
      nextReminderAt: null,
      projection: { parked: null },
    });
    expect(Date.parse(live?.deadline as string)).toBeGreaterThan(Date.now());
    const failed = await callAs<{ live: Record<string, unknown> }>(
      harness.app,
      senderA,
      'GET',
      `/api/documents/${E.failedA}/live`,
    );
    expect(failed.live).toMatchObject({
      status: 'FinalPdfFailed',
      waitingFor: 'final_pdf_retry',
      openRound: null,
    });
    expect(await callAs(harness.app, senderA, 'GET', `/api/documents/${E.draftA}/live`)).toEqual({
      live: null,
    });
    expect(await callAs(harness.app, senderB, 'GET', `/api/documents/${E.completedB}/live`)).toEqual({
      live: null,
    });
  });
});

describe('actions through the envelope services', () => {
  it('sends a draft, and refuses with 409 what the status does not allow', async () => {
    const id = await draft(senderOf(senderA, sales), { title: 'Kappa to send' });
    const conflict = async (path: string, body: Record<string, unknown> = {}) => {
      const response = await asUser(harness.app, senderA, 'POST', `/api/documents/${id}/${path}`, body);
      expect(response.statusCode, `${path}: ${response.body}`).toBe(409);
      expect(response.json().error.code).toBe('conflict');
    };
    await conflict('remind');
    await conflict('cancel');
    await conflict('retry-final-pdf');
    const detail = await callAs<Detail>(harness.app, senderA, 'POST', `/api/documents/${id}/send`, {});
    expect(detail.status).toBe('Sent');
    expect(detail.timeline[0]?.type).toBe('envelope.sent');
    const member403 = await asUser(harness.app, member, 'POST', `/api/documents/${id}/remind`, {});
    expect(member403.statusCode).toBe(403);
    expect(member403.json().error.details[0].permission).toBe('documents:manage');

    const later = new Date(Date.now() + 60 * 86_400_000).toISOString();
    const extended = await callAs<Detail>(harness.app, senderA, 'POST', `/api/documents/${id}/extend`, {
      expiresAt: later,
    });
    expect(extended.expiresAt).toBe(later);
    expect(extended.timeline.at(-1)?.type).toBe('envelope.extended');
    const past = await asUser(harness.app, senderA, 'POST', `/api/documents/${id}/extend`, {
      expiresAt: '2001-01-01T00:00:00Z',
    });
    expect(past.statusCode).toBe(400);
    expect(past.json().error.details[0].field).toBe('body.expiresAt');
    const unknown = await asUser(harness.app, senderA, 'POST', `/api/documents/${id}/extend`, {
      expiresAt: later,
      extra: 1,
    });
    expect(unknown.statusCode).toBe(400);

    const cancelled = await callAs<Detail>(harness.app, senderA, 'POST', `/api/documents/${id}/cancel`, {
      reason: 'Sent to the wrong client',
    });
    expect(cancelled.status).toBe('Cancelled');
    expect(cancelled.timeline.at(-1)).toMatchObject({
      type: 'envelope.cancelled',
      data: { reason: 'Sent to the wrong client' },
    });
    await conflict('cancel');
    await conflict('remind');
    await conflict('extend', { expiresAt: later });
    const sendAgain = await asUser(harness.app, senderA, 'POST', `/api/documents/${id}/send`, {});
    expect(sendAgain.statusCode).toBe(409);
  });

  it('gives a fresh signing link for a ManualLink recipient only', async () => {
    const [bella, sam] = await recipientsOf(E.waitingOnB);
    const link = await callAs<{ recipientId: string; url: string }>(
      harness.app,
      senderA,
      'POST',
      `/api/documents/${E.waitingOnB}/recipients/${bella?.id}/signing-link`,
      {},
    );
    expect(link).toMatchObject({ recipientId: bella?.id, fullName: 'Bella Sender' });
    expect(link.url).toMatch(/^http:\/\/localhost:3000\/sign\/[\w-]{43}$/);
    const token = link.url.split('/sign/')[1];
    const signer = await harness.app.inject({ method: 'GET', url: `/api/signing/${token}` });
    expect(signer.statusCode).toBe(200);
    expect(signer.json().state).toBe('ready');
    // A second link replaces the first.
    await callAs(
      harness.app,
      senderA,
      'POST',
      `/api/documents/${E.waitingOnB}/recipients/${bella?.id}/signing-link`,
      {},
    );
    expect((await harness.app.inject({ method: 'GET', url: `/api/signing/${token}` })).statusCode).toBe(404);
    const byEmail = await asUser(
      harness.app,
      senderA,
      'POST',
      `/api/documents/${E.waitingOnB}/recipients/${sam?.id}/signing-link`,
      {},
    );
    expect(byEmail.statusCode).toBe(409);
    const noSuch = await asUser(
      harness.app,
      senderA,
      'POST',
      `/api/documents/${E.waitingOnB}/recipients/${randomUUID()}/signing-link`,
      {},
    );
    expect(noSuch.statusCode).toBe(404);
    const invisible = await asUser(
      harness.app,
      senderC,
      'POST',
      `/api/documents/${E.waitingOnB}/recipients/${bella?.id}/signing-link`,
      {},
    );
    expect(invisible.statusCode).toBe(404);
  });

  it('retries a failed final PDF once fixed; the audit trail names the sender', async () => {
    const envelope = await harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id: E.failedA });
    const template = await harness.ctx.orm.em
      .fork()
      .findOneOrFail(Template, { id: envelope.templateId as string });
    await replaceStoredBytes(harness.ctx, template.fileId, await buildDemoPdf());
    const retried = await callAs<Detail>(
      harness.app,
      senderA,
      'POST',
      `/api/documents/${E.failedA}/retry-final-pdf`,
      {},
    );
    expect(['ProcessingFinalPdf', 'Completed']).toContain(retried.status);
    await harness.ctx.temporal.workflow.getHandle(envelopeWorkflowId(E.failedA)).result();
    const event = await harness.ctx.orm.em
      .fork()
      .findOneOrFail(AuditEvent, { envelopeId: E.failedA, type: 'envelope.final_pdf_retried' });
    expect(event.data).toEqual({ requested_by: 'sender' });
    expect(eventActor(event.type, event.data)).toBe('sender');
    expect(eventActor(event.type, {})).toBe('operator');
    const done = await callAs<Detail>(harness.app, senderA, 'GET', `/api/documents/${E.failedA}`);
    expect(done.status).toBe('Completed');
    expect(done.files.finalPdf).toBe(true);
    expect(await ids(senderA, 'tab=action_needed')).toEqual([]);
    const again = await asUser(
      harness.app,
      senderA,
      'POST',
      `/api/documents/${E.failedA}/retry-final-pdf`,
      {},
    );
    expect(again.statusCode).toBe(409);
  });
});

describe('downloads', () => {
  it('answers the source, the final PDF and the audit trail as PDFs named after the title, 404 before they exist', async () => {
    const source = await asUser(harness.app, senderA, 'GET', `/api/documents/${E.draftA}/files/source`);
    expect(source.statusCode).toBe(200);
    expect(source.headers['content-type']).toBe('application/pdf');
    expect(source.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(source.headers['content-disposition']).toContain('filename="Alpha lease 50%_off.pdf"');
    expect(source.headers['x-content-type-options']).toBe('nosniff');
    for (const kind of ['final-pdf', 'audit-trail']) {
      const missing = await asUser(harness.app, senderA, 'GET', `/api/documents/${E.draftA}/files/${kind}`);
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('not_found');
      const file = await asUser(harness.app, member, 'GET', `/api/documents/${E.completedB}/files/${kind}`);
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe('application/pdf');
      expect(file.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    }
    const signed = await asUser(harness.app, member, 'GET', `/api/documents/${E.completedB}/files/final-pdf`);
    expect(signed.headers['content-disposition']).toContain('filename="Gamma NDA (signed).pdf"');
    const stored = await storedBytes(
      harness.ctx,
      (await harness.ctx.orm.em.fork().findOneOrFail(Envelope, { id: E.completedB }))
        .finalPdfFileId as string,
    );
    expect(Buffer.compare(signed.rawPayload, stored)).toBe(0);
  });
});

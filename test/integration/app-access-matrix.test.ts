// Who may call which application route, generated from the router itself (api/trpc/router.ts): every
// procedure's declared `access` (route(...) in api/trpc/procedures/) is called, with a minimal request, by
// every built-in role, a custom role holding a subset of the permissions, a session waiting for its second
// sign-in step, a session held at MFA enrolment, and nobody. A route whose access is a permission answers
// 403 `forbidden` naming it exactly when the role lacks it, and never 401 or 403 when the role has it; public
// routes never refuse for access; without a session every other route is 401. The tenant matrix: every route
// with an `{id}` in its path answers an id of another organization with 404 `not_found`, exactly as a random
// id, and changes nothing there. Routes added later are walked too: a new `{id}` route fails here until it
// gets a fixture below.
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Access, proceduresOf } from '../../api/trpc/init.ts';
import { appRouter } from '../../api/trpc/router.ts';
import { insertBulkSend } from '../../db/bulk-sends.ts';
import {
  AccountToken,
  AppUser,
  Contact,
  Envelope,
  OAuthClient,
  Passkey,
  Role,
  SecurityEvent,
  SigningLink,
  Team,
  Template,
  TemplateField,
  UserNotification,
  UserSession,
  UserStamp,
  UserStampVersion,
  WebhookDelivery,
  WebhookEndpoint,
} from '../../db/entities/index.ts';
import {
  eventPermissions,
  lackedPermissions,
  SCOPE_PERMISSIONS,
} from '../../domain/credential-permissions.ts';
import {
  BUILT_IN_ROLE_PERMISSIONS,
  BUILT_IN_ROLES,
  isPermission,
  type Permission,
} from '../../domain/permissions.ts';
import { SCOPES } from '../../domain/scopes.ts';
import { WEBHOOK_EVENT_TYPES } from '../../domain/vocabulary.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs } from '../support/app-requests.ts';
import { completedDocument, documentTemplate } from '../support/documents.ts';
import { lifecycleDocuments } from '../support/lifecycle-documents.ts';
import { encodePng } from '../support/png.ts';
import { newSession, type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

interface AppRoute {
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  access: Access;
}

/** Every application route, as the router declares it. */
const ROUTES: AppRoute[] = proceduresOf(appRouter).map(([name, procedure]) => {
  const { meta } = procedure;
  if (!meta?.openapi) throw new Error(`${name} has no route`);
  return {
    name,
    method: meta.openapi.method as AppRoute['method'],
    path: meta.openapi.path,
    access: meta.access,
  };
});

const CUSTOM_PERMISSIONS: Permission[] = [
  'documents:read',
  'settings:read',
  'teams:read',
  'users:manage',
  'users:read',
];

type SessionState = 'active' | 'mfa_pending' | 'mfa_enrolment_required';

interface Principal {
  label: string;
  /** null: signed out. */
  user: SignedInUser | null;
  state: SessionState;
  permissions: readonly Permission[];
}

let harness: ApiHarness;
let owner: SignedInUser;
const principals: Principal[] = [];

beforeAll(async () => {
  harness = await openApiHarness();
  owner = await signedInUser(harness, { role: 'owner' });
  const organizationId = owner.organization.id;
  for (const role of BUILT_IN_ROLES) {
    const user = role === 'owner' ? owner : await signedInUser(harness, { role, organizationId });
    const { permissions } = await roleOf(user);
    principals.push({ label: role, user, state: 'active', permissions });
  }
  const custom = await harness.app.inject({
    method: 'POST',
    url: '/api/roles',
    headers: owner.headers,
    payload: { name: 'Matrix subset', permissions: CUSTOM_PERMISSIONS },
  });
  expect(custom.statusCode, custom.body).toBe(200);
  const customUser = await signedInUser(harness, { role: custom.json().id, organizationId });
  principals.push({
    label: 'custom role',
    user: customUser,
    state: 'active',
    permissions: CUSTOM_PERMISSIONS,
  });
  principals.push({
    label: 'owner at the second sign-in step',
    user: owner,
    state: 'mfa_pending',
    permissions: [],
  });
  principals.push({
    label: 'owner held at MFA enrolment',
    user: owner,
    state: 'mfa_enrolment_required',
    permissions: [],
  });
  principals.push({ label: 'signed out', user: null, state: 'active', permissions: [] });
});
afterAll(() => harness?.close());

async function roleOf(user: SignedInUser): Promise<{ permissions: Permission[] }> {
  const me = await harness.app.inject({ method: 'GET', url: '/api/roles', headers: owner.headers });
  const role = me.json().roles.find((candidate: { id: string }) => candidate.id === user.role.id);
  return { permissions: role.permissions.filter(isPermission) };
}

/** The route's URL with its path parameters filled in: one id for all, or an id per parameter. */
function urlOf(route: AppRoute, id: PathIds): string {
  return route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    typeof id === 'string' ? id : (id[name] ?? randomUUID()),
  );
}

/** One id for every path parameter, or an id per parameter (`{ id, recipientId }`). */
type PathIds = string | Record<string, string>;

/** One request to the route with a new session of the principal (a route such as sign-out may end the one it got). */
async function routeAs(
  principal: Principal,
  route: AppRoute,
  options: { id?: PathIds; body?: unknown } = {},
): Promise<LightMyRequestResponse> {
  const caller = principal.user
    ? { headers: await newSession(harness, principal.user.user, principal.state) }
    : null;
  const url = urlOf(route, options.id ?? randomUUID());
  return asUser(
    harness.app,
    caller,
    route.method,
    url,
    route.method === 'GET' ? undefined : (options.body ?? {}),
  );
}

const ACCESS_CODES = ['unauthorized', 'forbidden', 'mfa_enrolment_required'];

/** What the principal must get from the route, as a problem description, or null when the answer fits. */
function problemOf(principal: Principal, route: AppRoute, response: LightMyRequestResponse): string | null {
  const status = response.statusCode;
  const code: string | undefined = status === 200 ? undefined : response.json().error?.code;
  const details: { permission?: string }[] = status === 200 ? [] : (response.json().error?.details ?? []);
  const answer = `${status} ${code ?? ''}`.trim();
  const where = `${route.method} ${route.path} (${route.access}) as ${principal.label}`;
  if (status >= 500) return `${where}: ${answer} ${response.body}`;
  const expect = (wanted: string, fits: boolean) =>
    fits ? null : `${where}: expected ${wanted}, got ${answer}`;
  const notRefused = () =>
    expect('no access refusal', status !== 401 && status !== 403 && !ACCESS_CODES.includes(code ?? ''));

  if (route.access === 'public') return notRefused();
  // The backoffice's routes take a platform administrator's own session: no organization session passes.
  if (route.access === 'platform-admin') {
    return expect('401 unauthorized', status === 401 && code === 'unauthorized');
  }
  if (!principal.user) return expect('401 unauthorized', status === 401 && code === 'unauthorized');
  const state = principal.state;
  if (route.access === 'mfa-pending') {
    return state === 'mfa_pending'
      ? expect(
          'the second step to be open',
          status !== 401 && status !== 403 && code !== 'no_pending_sign_in',
        )
      : expect('409 no_pending_sign_in', status === 409 && code === 'no_pending_sign_in');
  }
  if (state === 'mfa_pending') return expect('401 unauthorized', status === 401 && code === 'unauthorized');
  if (route.access === 'enrolling') return notRefused();
  if (state === 'mfa_enrolment_required') {
    return expect('403 mfa_enrolment_required', status === 403 && code === 'mfa_enrolment_required');
  }
  if (route.access === 'signed-in') return notRefused();
  if (principal.permissions.includes(route.access as Permission)) return notRefused();
  return expect(
    `403 forbidden naming ${route.access}`,
    status === 403 && code === 'forbidden' && details.some((detail) => detail.permission === route.access),
  );
}

describe('the access matrix of every application route', () => {
  it('walks the whole router: the administration routes and the rest', () => {
    const names = ROUTES.map((route) => route.name);
    expect(names).toEqual(
      expect.arrayContaining(['users.invite', 'roles.delete', 'organization.securityLog', 'plans.list']),
    );
    // Every route declares an access the one check knows.
    for (const route of ROUTES) {
      expect(
        ['public', 'mfa-pending', 'enrolling', 'signed-in', 'platform-admin'].includes(route.access) ||
          isPermission(route.access),
        route.name,
      ).toBe(true);
    }
  });

  const labels = [
    ...BUILT_IN_ROLES,
    'custom role',
    'owner at the second sign-in step',
    'owner held at MFA enrolment',
    'signed out',
  ];
  for (const label of labels) {
    it(`answers ${label} as each route's access says`, async () => {
      const principal = principals.find((candidate) => candidate.label === label) as Principal;
      const problems: string[] = [];
      for (const route of ROUTES) {
        const problem = problemOf(principal, route, await routeAs(principal, route));
        if (problem) problems.push(problem);
      }
      expect(problems).toEqual([]);
    });
  }

  it('lets each role through exactly its own permissions (the permission routes it may and may not call)', () => {
    const permissionRoutes = ROUTES.filter((route) => isPermission(route.access));
    const member = principals.find((principal) => principal.label === 'member') as Principal;
    const custom = principals.find((principal) => principal.label === 'custom role') as Principal;
    // Both sides occur, so neither half of the rule is checked vacuously.
    for (const principal of [member, custom]) {
      const allowed = permissionRoutes.filter((route) =>
        principal.permissions.includes(route.access as Permission),
      );
      expect(allowed.length, principal.label).toBeGreaterThan(0);
      expect(permissionRoutes.length - allowed.length, principal.label).toBeGreaterThan(0);
    }
  });
});

// ---- Credentials × roles (issue 30) ---------------------------------------------------------------------------

describe('the credentials matrix: no role gives an API key or an endpoint more than it holds', () => {
  /** Roles of an organization of their own (with API access), each with a user: built-in ones and two custom. */
  const CUSTOM_ROLES: Record<string, Permission[]> = {
    'integrations only': ['integrations:read', 'integrations:manage'],
    'integrations and every document': [
      'integrations:read',
      'integrations:manage',
      'documents:read',
      'documents:read_all',
    ],
  };

  it('refuses each scope and each event exactly to the roles whose permissions do not cover it (403 naming it)', async () => {
    const boss = await signedInUser(harness, { role: 'owner', apiEnabled: true });
    const organizationId = boss.organization.id;
    const users: { label: string; user: SignedInUser; permissions: readonly Permission[] }[] = [];
    for (const role of BUILT_IN_ROLES) {
      users.push({
        label: role,
        user: await signedInUser(harness, { role, organizationId }),
        permissions: BUILT_IN_ROLE_PERMISSIONS[role],
      });
    }
    for (const [name, permissions] of Object.entries(CUSTOM_ROLES)) {
      const made = await harness.app.inject({
        method: 'POST',
        url: '/api/roles',
        headers: boss.headers,
        payload: { name, permissions },
      });
      expect(made.statusCode, made.body).toBe(200);
      users.push({
        label: name,
        user: await signedInUser(harness, { role: made.json().id, organizationId }),
        permissions,
      });
    }
    const problems: string[] = [];
    for (const { label, user, permissions } of users) {
      const manages = permissions.includes('integrations:manage');
      for (const scope of SCOPES) {
        const response = await asUser(harness.app, user, 'POST', '/api/api-keys', {
          name: `Matrix ${scope}`,
          scopes: [scope],
        });
        const refusal = response.statusCode === 403 ? response.json().error : null;
        const lacking = manages ? lackedPermissions(SCOPE_PERMISSIONS[scope], permissions) : [];
        const named = (refusal?.details ?? []).filter((detail: { scope?: string }) => detail.scope === scope);
        if (!manages) {
          if (response.statusCode !== 403)
            problems.push(`${label} ${scope}: ${response.statusCode} without integrations:manage`);
        } else if (lacking.length > 0) {
          if (named.map((detail: { permission: string }) => detail.permission).join() !== lacking.join()) {
            problems.push(
              `${label} ${scope}: expected 403 naming ${lacking.join(', ')}, got ${response.body}`,
            );
          }
        } else if (response.statusCode === 200) {
          // Made: deleted again, so no limit on the organization's keys ever decides an answer.
          await harness.app.inject({
            method: 'DELETE',
            url: `/api/api-keys/${response.json().apiKey.id}`,
            headers: user.headers,
          });
        } else {
          problems.push(`${label} ${scope}: expected the key, got ${response.body}`);
        }
      }
      for (const eventType of WEBHOOK_EVENT_TYPES) {
        const response = await asUser(harness.app, user, 'POST', '/api/webhooks', {
          url: 'https://example.com/matrix',
          eventTypes: [eventType],
        });
        const lacking = manages ? lackedPermissions(eventPermissions(eventType), permissions) : [];
        const named =
          response.statusCode === 403
            ? response
                .json()
                .error.details.filter((detail: { eventType?: string }) => detail.eventType === eventType)
            : [];
        if (!manages) {
          if (response.statusCode !== 403)
            problems.push(`${label} ${eventType}: ${response.statusCode} without integrations:manage`);
        } else if (lacking.length > 0) {
          if (named.map((detail: { permission: string }) => detail.permission).join() !== lacking.join()) {
            problems.push(
              `${label} ${eventType}: expected 403 naming ${lacking.join(', ')}, got ${response.body}`,
            );
          }
        } else if (response.statusCode === 200) {
          // Made: deleted again, so the organization's endpoint limit (20) never decides an answer.
          await harness.app.inject({
            method: 'DELETE',
            url: `/api/webhooks/${response.json().id}`,
            headers: user.headers,
          });
        } else {
          problems.push(`${label} ${eventType}: expected the endpoint, got ${response.body}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

// ---- Tenant matrix -------------------------------------------------------------------------------------------

/** An id of the other organization for each resource a path names (`/api/<resource>/{id}…`). */
type Fixture = (other: OtherOrganization) => PathIds;
interface OtherOrganization {
  activeUser: string;
  invitedUser: string;
  customRole: string;
  team: string;
  /** A passkey of the other organization's owner (passkeys are their user's own). */
  ownerPasskey: string;
  contact: string;
  /** A personal stamp of the other organization's owner (`/api/me/stamps/{id}`: a user's own). */
  ownerStamp: string;
  /** A sender notification of the other organization's owner (`/api/me/notifications/{id}`: a user's own). */
  ownerNotification: string;
  /** A Cancelled envelope (archive, unarchive) and a Draft (delete) of the other organization. */
  finishedDocument: string;
  draftDocument: string;
  /** A Completed envelope (its final PDF and audit trail exist) and one of its ManualLink recipients. */
  completedDocument: string;
  completedRecipient: string;
  /** A draft template of the other organization that can be published, and another one to archive. */
  template: string;
  archivableTemplate: string;
  /** A finished bulk send of the other organization (docs/bulk-send.md). */
  bulkSend: string;
  /** A webhook endpoint of the other organization and a failed delivery of it (docs/webhooks.md). */
  webhookEndpoint: string;
  webhookDelivery: string;
  /** An API key (OAuth client) of the other organization and its first secret (docs/integrations.md). */
  apiKey: string;
  apiKeySecret: string;
}
/** A stamp image that passes every check (docs/stamps.md). */
const STAMP_IMAGE = {
  contentType: 'image/png',
  imageBase64: encodePng(32, 32, (x, y) => [(x * 8) % 256, (y * 8) % 256, 0, 255]).toString('base64'),
};
const FIXTURES: Record<string, Fixture> = {
  users: (other) => other.activeUser,
  roles: (other) => other.customRole,
  teams: (other) => other.team,
  contacts: (other) => other.contact,
  me: (other) => other.ownerStamp,
  documents: (other) => other.completedDocument,
  templates: (other) => other.template,
  'bulk-sends': (other) => other.bulkSend,
  webhooks: (other) => other.webhookEndpoint,
  'api-keys': (other) => other.apiKey,
};
/** Per procedure, where the resource's usual id does not fit what the route acts on. */
const FIXTURE_OVERRIDES: Record<string, Fixture> = {
  'users.resendInvitation': (other) => other.invitedUser,
  'mfa.removePasskey': (other) => other.ownerPasskey,
  'notifications.markRead': (other) => other.ownerNotification,
  'documentLifecycle.archive': (other) => other.finishedDocument,
  'documentLifecycle.unarchive': (other) => other.finishedDocument,
  // Its own organization's call deletes it: a Draft of its own, so the other routes' envelope stays.
  'documentLifecycle.delete': (other) => other.draftDocument,
  // Its own organization's call archives it: a template of its own, so the other routes' template stays.
  'templates.archive': (other) => other.archivableTemplate,
  'webhooks.delivery': (other) => other.webhookDelivery,
  'webhooks.replay': (other) => other.webhookDelivery,
  'documents.signingLink': (other) => ({
    id: other.completedDocument,
    recipientId: other.completedRecipient,
  }),
  'documents.remindRecipient': (other) => ({
    id: other.completedDocument,
    recipientId: other.completedRecipient,
  }),
  'documents.correctRecipient': (other) => ({
    id: other.completedDocument,
    recipientId: other.completedRecipient,
  }),
  'apiKeys.deleteSecret': (other) => ({ id: other.apiKey, secretId: other.apiKeySecret }),
};
/** A template definition that can be published: one signing role with a signature. */
const TEMPLATE_DEFINITION = {
  roles: [{ name: 'Signer', required: true, defaultRecipientType: 'Signer', signingOrder: 1 }],
  fields: [
    {
      type: 'Signature',
      role: 'Signer',
      label: 'Sign',
      page: 1,
      x: 40,
      y: 40,
      width: 150,
      height: 40,
      required: true,
    },
  ],
};

/** A body that passes the route's schema, so the request reaches the lookup (and would change something). */
const VALID_BODIES: Record<string, unknown> = {
  'users.update': { status: 'deactivated', teamId: null },
  'roles.update': { name: 'Taken over', permissions: ['documents:read'] },
  'teams.update': { name: 'Taken over' },
  'contacts.update': { name: 'Taken over', email: 'taken-over@example.com' },
  'stamps.update': { name: 'Taken over' },
  'stamps.addVersion': STAMP_IMAGE,
  'mfa.removePasskey': { password: 'not the password', backupCode: 'aaaaa-aaaaa' },
  'documents.cancel': { reason: 'Taken over' },
  'documents.correctRecipient': { email: 'taken-over@example.com' },
  'documents.settings': { expiringSoonDays: 2 },
  'documents.extend': { expiresAt: new Date(Date.now() + 90 * 86_400_000).toISOString() },
  'templates.rename': { name: 'Taken over' },
  'templates.saveDefinition': TEMPLATE_DEFINITION,
  'templates.duplicate': {},
  'webhooks.update': { eventTypes: ['envelope.completed'] },
  'apiKeys.update': { name: 'Taken over', scopes: ['templates.read'], ipAllowlist: [] },
};

/** Two draft templates of an organization, made through its owner's routes (`headers`: the owner's). */
async function theirTemplates(headers: Record<string, string>) {
  const pdfBase64 = Buffer.from(await buildDemoPdf('Their template')).toString('base64');
  const owner = { headers };
  const template = await callAs<{ id: string }>(harness.app, owner, 'POST', '/api/templates', {
    name: 'Their template',
    pdfBase64,
  });
  await callAs(harness.app, owner, 'PUT', `/api/templates/${template.id}/definition`, TEMPLATE_DEFINITION);
  const archivable = await callAs<{ id: string }>(harness.app, owner, 'POST', '/api/templates', {
    name: 'Their other template',
    pdfBase64,
  });
  return { template: template.id, archivableTemplate: archivable.id };
}

/** A Completed envelope of the organization for the documents routes (test/support/documents.ts). */
async function theirCompletedDocument(organizationId: string) {
  const document = await completedDocument(
    harness.ctx,
    organizationId,
    await documentTemplate(harness.ctx, organizationId),
    { title: 'Their signed agreement' },
  );
  return { completedDocument: document.id, completedRecipient: document.recipientIds[0] as string };
}

/** The user's notification of an envelope of theirs that completed (docs/notifications.md). */
async function theirNotification(user: SignedInUser): Promise<string> {
  const organizationId = user.organization.id;
  const document = await completedDocument(
    harness.ctx,
    organizationId,
    await documentTemplate(harness.ctx, organizationId),
    { title: 'Their notified agreement', sender: { userId: user.user.id, teamId: null } },
  );
  const notification = await harness.ctx.orm.em
    .fork()
    .findOneOrFail(UserNotification, { envelopeId: document.id, userId: user.user.id });
  return notification.id;
}

/** A Completed bulk send of the user's organization with one sent row, stored as a run stores it. */
async function theirBulkSend(user: SignedInUser): Promise<string> {
  const organizationId = user.organization.id;
  const templateId = await documentTemplate(harness.ctx, organizationId);
  const envelope = await completedDocument(harness.ctx, organizationId, templateId, {
    title: 'Their bulk row',
  });
  const id = randomUUID();
  await harness.ctx.orm.em.fork().transactional(async (tx) => {
    await insertBulkSend(
      tx,
      {
        id,
        organizationId,
        templateId,
        createdByUserId: user.user.id,
        teamId: null,
        filename: 'theirs.csv',
        settings: { title: 'Their bulk send' },
        workflowId: `bulk-send/${id}`,
      },
      [{ row: 2, request: { templateId, title: 'Their bulk row', recipients: [] } }],
    );
    await tx.execute(`update bulk_send_row set status = 'Sent', envelope_id = ? where bulk_send_id = ?`, [
      envelope.id,
      id,
    ]);
    await tx.execute(`update bulk_send set status = 'Completed', finished_at = now() where id = ?`, [id]);
  });
  return id;
}

/** A webhook endpoint made through its owner's route, and a failed delivery of it (no workflow runs it). */
async function theirWebhook(headers: Record<string, string>, organizationId: string) {
  const created = await harness.app.inject({
    method: 'POST',
    url: '/api/webhooks',
    headers,
    payload: { url: 'http://127.0.0.1:9/their-hook', eventTypes: ['envelope.completed'] },
  });
  expect(created.statusCode, created.body).toBe(200);
  const endpoint = created.json() as { id: string; url: string };
  const em = harness.ctx.orm.em.fork();
  const delivery = em.create(WebhookDelivery, {
    id: randomUUID(),
    endpointId: endpoint.id,
    organizationId,
    kind: 'test',
    eventId: randomUUID(),
    eventType: 'envelope.completed',
    eventCreatedAt: new Date(),
    payload: '{}',
    endpointUrl: endpoint.url,
    status: 'failed',
    attemptCount: 5,
    lastStatusCode: 500,
    lastError: 'HTTP 500: their receiver failed',
  });
  await em.flush();
  return { webhookEndpoint: endpoint.id, webhookDelivery: delivery.id };
}

describe('the tenant matrix', () => {
  // The backoffice's routes belong to no organization (test/integration/backoffice-admins.test.ts).
  const tenantRoutes = ROUTES.filter((route) => route.access !== 'platform-admin');
  const idRoutes = tenantRoutes.filter((route) => route.path.includes('{id}'));
  let other: OtherOrganization;
  let otherOwner: SignedInUser;

  beforeAll(async () => {
    // With API access, so that its API keys can be made (and its owner's own calls reach them).
    otherOwner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
    const headers = otherOwner.headers;
    const team = await callAs(harness.app, otherOwner, 'POST', '/api/teams', { name: 'Their team' });
    const role = await callAs(harness.app, otherOwner, 'POST', '/api/roles', {
      name: 'Their role',
      permissions: ['documents:read'],
    });
    const active = await signedInUser(harness, { role: role.id, organizationId: otherOwner.organization.id });
    const invited = await callAs(harness.app, otherOwner, 'POST', '/api/users/invite', {
      fullName: 'Their invitee',
      email: `invitee-${randomUUID()}@example.com`,
      roleId: role.id,
      teamId: team.id,
    });
    const em = harness.ctx.orm.em.fork();
    const passkey = em.create(Passkey, {
      id: randomUUID(),
      userId: otherOwner.user.id,
      credentialId: randomUUID(),
      publicKey: 'AAAA',
      counter: 0,
      transports: [],
      name: 'Their passkey',
      lastUsedAt: null,
    });
    await em.flush();
    const apiKey = await callAs(harness.app, otherOwner, 'POST', '/api/api-keys', {
      name: 'Their API key',
      scopes: ['templates.read'],
    });
    other = {
      activeUser: active.user.id,
      invitedUser: invited.id,
      customRole: role.id,
      team: team.id,
      ownerPasskey: passkey.id,
      contact: (
        await callAs(harness.app, otherOwner, 'POST', '/api/contacts', {
          name: 'Their contact',
          email: 'their-contact@example.com',
        })
      ).id,
      ownerStamp: (
        await callAs(harness.app, otherOwner, 'POST', '/api/me/stamps', {
          name: 'Their stamp',
          ...STAMP_IMAGE,
        })
      ).id,
      ...(await lifecycleDocuments(harness.ctx, otherOwner.organization.id)),
      ...(await theirCompletedDocument(otherOwner.organization.id)),
      ownerNotification: await theirNotification(otherOwner),
      ...(await theirTemplates(headers)),
      bulkSend: await theirBulkSend(otherOwner),
      ...(await theirWebhook(headers, otherOwner.organization.id)),
      apiKey: apiKey.apiKey.id,
      apiKeySecret: apiKey.secret.id,
    };
  });

  /** Everything of the other organization a route could change. */
  async function snapshot(organizationId: string) {
    const em = harness.ctx.orm.em.fork();
    const users = await em.find(AppUser, { organizationId }, { orderBy: { id: 'asc' } });
    const userIds = users.map((user) => user.id);
    return {
      users: users.map((user) => [
        user.id,
        user.email,
        user.status,
        user.roleId,
        user.teamId,
        user.invitedAt,
      ]),
      roles: (await em.find(Role, { organizationId }, { orderBy: { id: 'asc' } })).map((role) => [
        role.id,
        role.name,
        role.permissions,
      ]),
      teams: (await em.find(Team, { organizationId }, { orderBy: { id: 'asc' } })).map((team) => [
        team.id,
        team.name,
      ]),
      events: await em.count(SecurityEvent, { organizationId }),
      openSessions: await em.count(UserSession, { organizationId, endedAt: null }),
      unusedTokens: await em.count(AccountToken, { userId: { $in: userIds }, usedAt: null }),
      passkeys: await em.count(Passkey, { userId: { $in: userIds } }),
      contacts: (await em.find(Contact, { organizationId }, { orderBy: { id: 'asc' } })).map((contact) => [
        contact.id,
        contact.name,
        contact.email,
        contact.updatedAt,
      ]),
      stamps: (await em.find(UserStamp, { organizationId }, { orderBy: { id: 'asc' } })).map((stamp) => [
        stamp.id,
        stamp.name,
        stamp.deletedAt,
        stamp.updatedAt,
      ]),
      stampVersions: await em.count(UserStampVersion, {
        stampId: { $in: (await em.find(UserStamp, { organizationId })).map((stamp) => stamp.id) },
      }),
      envelopes: (await em.find(Envelope, { organizationId }, { orderBy: { id: 'asc' } })).map((envelope) => [
        envelope.id,
        envelope.status,
        envelope.previousStatus,
        envelope.archivedAt,
        envelope.deletedAt,
        envelope.expiresAt,
        envelope.reminderCount,
        envelope.projectedSequence,
      ]),
      signingLinks: await em.count(SigningLink, { organizationId }),
      notifications: (await em.find(UserNotification, { organizationId }, { orderBy: { id: 'asc' } })).map(
        (notification) => [notification.id, notification.readAt],
      ),
      templates: (await em.find(Template, { organizationId }, { orderBy: { id: 'asc' } })).map((template) => [
        template.id,
        template.name,
        template.status,
        template.version,
        template.archivedAt,
        template.updatedAt,
      ]),
      bulkSends: await em.execute(
        `select b.id, b.status, b.finished_at, r.row_number, r.status as row_status, r.envelope_id
           from bulk_send b join bulk_send_row r on r.bulk_send_id = b.id
          where b.organization_id = ? order by b.id, r.row_number`,
        [organizationId],
      ),
      webhookEndpoints: (await em.find(WebhookEndpoint, { organizationId }, { orderBy: { id: 'asc' } })).map(
        (endpoint) => [
          endpoint.id,
          endpoint.url,
          endpoint.eventTypes,
          endpoint.enabled,
          endpoint.secretRotatedAt,
          endpoint.updatedAt,
        ],
      ),
      webhookDeliveries: (await em.find(WebhookDelivery, { organizationId }, { orderBy: { id: 'asc' } })).map(
        (delivery) => delivery.id,
      ),
      apiKeys: (await em.find(OAuthClient, { organizationId }, { orderBy: { id: 'asc' } })).map((client) => [
        client.id,
        client.name,
        client.scopes,
        client.ipAllowlist,
      ]),
      apiKeySecrets: await em.execute(
        `select s.id, s.deleted_at from oauth_client_secret s join oauth_client c on c.id = s.oauth_client_id
          where c.organization_id = ? order by s.id`,
        [organizationId],
      ),
      templateFields: await em.count(TemplateField, {
        templateId: { $in: (await em.find(Template, { organizationId })).map((template) => template.id) },
      }),
    };
  }

  it('has routes with an {id} to check', () => {
    expect(idRoutes.map((route) => route.name)).toEqual(
      expect.arrayContaining(['users.update', 'users.delete', 'roles.update', 'teams.delete']),
    );
  });

  for (const route of tenantRoutes.filter((candidate) => candidate.path.includes('{id}'))) {
    it(`${route.method} ${route.path}: another organization's id is not found, like a random one, and changes nothing`, async () => {
      const resource = route.path.split('/')[2] as string;
      const fixture = FIXTURE_OVERRIDES[route.name] ?? FIXTURES[resource];
      if (!fixture) {
        throw new Error(
          `No fixture for ${route.path}: add an id of another organization's "${resource}" to FIXTURES in this file.`,
        );
      }
      const ownerPrincipal: Principal = { label: 'owner', user: owner, state: 'active', permissions: [] };
      const body = VALID_BODIES[route.name];
      const random = await routeAs(ownerPrincipal, route, { body });
      expect(random.statusCode, `a random id: ${random.body}`).toBe(404);
      expect(random.json().error.code).toBe('not_found');

      const before = await snapshot(otherOwner.organization.id);
      const foreign = await routeAs(ownerPrincipal, route, { id: fixture(other), body });
      expect(foreign.statusCode, `another organization's id: ${foreign.body}`).toBe(404);
      expect(foreign.json().error.code).toBe('not_found');
      expect(foreign.json().error.message).toMatch(/was not found/);
      expect(await snapshot(otherOwner.organization.id)).toEqual(before);

      // The same id works for its own organization's owner (the fixture is real, the refusal is the tenant's).
      if (route.method !== 'DELETE') {
        const own = await routeAs({ ...ownerPrincipal, user: otherOwner }, route, {
          id: fixture(other),
          body,
        });
        expect(own.statusCode, `its own organization: ${own.body}`).not.toBe(404);
        expect(own.statusCode, `its own organization: ${own.body}`).toBeLessThan(500);
      }
    });
  }

  // The send page's routes name their template or file in the body, not the path: the same rule holds.
  it("POST /api/documents/send-from-template and send-from-file: another organization's template or file is not found, and nothing is made", async () => {
    const theirTemplate = await documentTemplate(harness.ctx, otherOwner.organization.id);
    const pdfBase64 = Buffer.from(await buildDemoPdf('Their file')).toString('base64');
    const uploaded = await harness.app.inject({
      method: 'POST',
      url: '/api/documents/files',
      headers: otherOwner.headers,
      payload: { pdfBase64 },
    });
    expect(uploaded.statusCode, uploaded.body).toBe(200);
    const recipients = [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'ManualLink' },
      {
        roleName: 'Provider',
        fullName: 'Sam Cohen',
        email: 'sam@example.com',
        deliveryChannel: 'ManualLink',
      },
    ];
    const bodies: [string, Record<string, unknown>][] = [
      ['/api/documents/send-from-template', { title: 'Taken over', templateId: theirTemplate, recipients }],
      [
        '/api/documents/send-from-file',
        {
          title: 'Taken over',
          fileId: uploaded.json().fileId,
          fields: [
            {
              type: 'Signature',
              role: 'Client',
              label: 'Sign',
              page: 1,
              x: 40,
              y: 40,
              width: 150,
              height: 40,
            },
            {
              type: 'Signature',
              role: 'Provider',
              label: 'Sign',
              page: 1,
              x: 40,
              y: 90,
              width: 150,
              height: 40,
            },
          ],
          recipients,
        },
      ],
    ];
    for (const [url, payload] of bodies) {
      const before = await snapshot(otherOwner.organization.id);
      const mine = await snapshot(owner.organization.id);
      const foreign = await harness.app.inject({ method: 'POST', url, headers: owner.headers, payload });
      expect(foreign.statusCode, `${url}: ${foreign.body}`).toBe(404);
      expect(foreign.json().error.code).toBe('not_found');
      expect(await snapshot(otherOwner.organization.id)).toEqual(before);
      expect(await snapshot(owner.organization.id)).toEqual(mine);
      // The same body works for its own organization (kept a Draft).
      const own = await harness.app.inject({
        method: 'POST',
        url,
        headers: otherOwner.headers,
        payload: { ...payload, draft: true },
      });
      expect(own.statusCode, `${url} in its own organization: ${own.body}`).toBe(200);
      expect(own.json().status).toBe('Draft');
    }
  });
});

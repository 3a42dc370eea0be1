// Schemathesis against both OpenAPI documents of a running app: the public API (/api/openapi/v1/openapi.json)
// and the application routes (/api/openapi/app/openapi.json), with every check it has (`--checks all`). The
// result must be no server error (5xx) and no schema violation: every answer's status, content type, headers
// and body as the document describes them, invalid input refused, valid input accepted.
//
// The app runs with a production configuration (sandbox enabled, limits raised so the fuzzer is never 429'd)
// on the shared test PostgreSQL, Temporal server and worker. Before the run, the resources its path
// parameters can name are created through the real API and services: an organization with a published
// template, an OAuth client with every scope and its bearer token, envelopes in each state an operation acts
// on (Draft, Sent, Completed), synthetic sandbox envelopes, a webhook endpoint and a delivery. test/fuzz/hooks.py
// feeds their ids to the path parameters, so the fuzzer gets past the 404 of an id that names nothing.
//
// A deterministic seed and a bounded number of cases per operation keep the run reproducible and within a
// few minutes on two cores. On failure the test lists every finding: the operation, the check, and the curl
// command that reproduces it (docs/development.md, "The API fuzz test").
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_PATH } from '../../api/http/openapi.ts';
import { APP_OPENAPI_PATH } from '../../api/trpc/openapi.ts';
import { loadConfig } from '../../config/config.ts';
import { PlatformAdmin, UserNotification } from '../../db/entities/index.ts';
import { SCOPES } from '../../domain/scopes.ts';
import type { TemplateDefinition } from '../../domain/template.ts';
import { provisionSchemathesis } from '../../provisioning/schemathesis.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { startBackofficeSession } from '../../services/backoffice/backoffice-sessions.ts';
import { createPlatformAdmin } from '../../services/backoffice/platform-admins.ts';
import { addAllowedDomain } from '../../services/backoffice/security-policy.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { createWebhookEndpoint } from '../../services/webhooks/create-webhook-endpoint.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { buildTestApp, listenLocally, productionConfig } from '../support/api.ts';
import { bearer, callAs } from '../support/app-requests.ts';
import { openTestContext, type TestContext, TWO_SIGNERS } from '../support/context.ts';
import { completedDocument, documentTemplate, failedDocument } from '../support/documents.ts';
import { encodePng } from '../support/png.ts';
import { signedInUser } from '../support/signed-in-user.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import {
  findings,
  type Resources,
  runSchemathesis,
  type SchemathesisResult,
  summarize,
} from './run-schemathesis.ts';

/** The same seed every run, so a failure shows again (docs/development.md, "The API fuzz test"). */
const SEED = 20_261_124;
/**
 * How deep the runs go. `npm run fuzz` (SIGIL_FUZZ_DEEP=1): 100 cases per operation and phase, every phase, both
 * documents. The suite: the public API with 15 and every phase; the application document (about 130
 * operations) with 8 cases per operation in the examples and fuzzing phases, its coverage and stateful phases
 * left to the deep run — on a slow day (2026-11-27, ten times slower than usual) the suite's run of every phase
 * took over 25 minutes for that document alone. SIGIL_FUZZ_MAX_EXAMPLES sets the number for both.
 */
const DEEP = process.env.SIGIL_FUZZ_DEEP === '1';
const MAX_EXAMPLES = Number(process.env.SIGIL_FUZZ_MAX_EXAMPLES ?? (DEEP ? 100 : 15));
const APP_MAX_EXAMPLES = Number(process.env.SIGIL_FUZZ_MAX_EXAMPLES ?? (DEEP ? 100 : 8));
const APP_PHASES = DEEP ? [] : ['--phases', 'examples,fuzzing'];
/**
 * The allowed email domain's pattern (a DNS name) is hard for Hypothesis to hit, and its health check then aborts
 * the operation ("too many generated examples are filtered out"): a limit of the generator, not a finding.
 */
const APP_GENERATION = ['--suppress-health-check', 'filter_too_much'];
/**
 * One worker: with two, Hypothesis' source inspection (ast.parse in threads) fails now and then on Python 3.11
 * ("AST constructor recursion depth mismatch", a FlakyFailure in AST_LAMBDAS_CACHE), an error of the tool
 * that is not a finding about Sigil.
 */
const WORKERS = 1;
/**
 * How long one document's run may take before it counts as hung: with 25 cases the public API's operations
 * take a minute or two on two cores on a normal day, and up to ten times that on a slow machine.
 */
const RUN_TIMEOUT_MS = DEEP ? 3_600_000 : 1_200_000;
/** The application document has about five times as many operations (the backoffice's among them). */
const APP_RUN_TIMEOUT_MS = DEEP ? 5_400_000 : 1_500_000;
const SANDBOX = { 'x-service-sandbox': 'true' };

let st: string;
let ctx: TestContext;
let app: FastifyInstance;
let baseUrl: string;
let receiver: WebhookReceiver;
let workDir: string;
let token: string;
/** The application routes' headers: the Origin every mutation needs (the session cookie goes as auth). */
let appHeaders: Record<string, string>;
let sessionToken: string;
/** A platform administrator's backoffice session, for the `backoffice` security scheme. */
let backofficeSessionToken: string;
let resources: Resources;
let templateId: string;
const figures: string[] = [];
/** Set when a run failed: its reports stay on disk (the failure message names the directory). */
let keepWorkDir = false;

beforeAll(async () => {
  const cacheDir = loadConfig({ ...process.env, SIGIL_ENV: 'test' }).cacheDir;
  // `npm test` installs it beforehand (pretest); run alone, the first run installs it into the cache.
  st = (
    await provisionSchemathesis({ cacheDir, log: (line) => process.stdout.write(`[schemathesis] ${line}\n`) })
  ).path;
  workDir = await mkdtemp(join(tmpdir(), 'sigil-fuzz-'));
  ctx = await openTestContext();
  receiver = await startWebhookReceiver();
  app = await buildTestApp(
    ctx,
    productionConfig({
      SANDBOX_ENABLED: 'true',
      TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
      SIGNING_RATE_LIMIT_PER_MINUTE: '1000000',
      ENTERPRISE_RATE_LIMIT_PER_MINUTE: '1000000',
      ENTERPRISE_UPLOAD_RATE_LIMIT_PER_MINUTE: '1000000',
    }),
  );
  baseUrl = await listenLocally(app);
  ({ token, resources, appHeaders, sessionToken, backofficeSessionToken } = await createResources());
});

afterAll(async () => {
  if (figures.length > 0) process.stdout.write(`${figures.join('\n')}\n`);
  await app?.close();
  await receiver?.close();
  await ctx?.close();
  if (workDir && !keepWorkDir) await rm(workDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------------------------------------

interface Created {
  id: string;
  externalReference: string;
  recipientIds: string[];
}

async function envelope(options: { sandbox?: boolean; send?: boolean } = {}): Promise<Created> {
  const headers = options.sandbox ? SANDBOX : {};
  const externalReference = `FUZZ-${randomUUID().slice(0, 8)}`;
  const created = await callAs<Record<string, unknown>>(
    baseUrl,
    bearer(token),
    'POST',
    '/api/v1/envelopes/from-template',
    { title: 'Fuzzed agreement', templateId, recipients: TWO_SIGNERS, externalReference },
    { headers, status: 201 },
  );
  const id = created.id as string;
  if (options.send)
    await callAs(baseUrl, bearer(token), 'POST', `/api/v1/envelopes/${id}/send`, undefined, { headers });
  const recipientIds = (created.recipients as { id: string }[]).map((recipient) => recipient.id);
  return { id, externalReference, recipientIds };
}

async function createResources(): Promise<{
  token: string;
  resources: Resources;
  appHeaders: Record<string, string>;
  sessionToken: string;
  backofficeSessionToken: string;
}> {
  // Enterprise: its per-minute limits come from ENTERPRISE_*_RATE_LIMIT_PER_MINUTE, raised above.
  const organization = await createOrganization(ctx, {
    name: `Fuzz ${randomUUID().slice(0, 8)}`,
    plan: 'Enterprise',
    apiEnabled: true,
  });
  const organizationId = organization.id;
  const template = await createTemplate(ctx, {
    organizationId,
    pdf: await buildDemoPdf(),
    filename: 'fuzz.pdf',
    definition: DEMO_TEMPLATE_DEFINITION as unknown as TemplateDefinition,
    publish: true,
  });
  templateId = template.id;
  const client = await createOAuthClient(ctx, {
    organizationId,
    name: 'Fuzz client',
    scopes: [...SCOPES],
  });
  const answer = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  if (answer.status !== 200) throw new Error(`token: ${answer.status} ${await answer.text()}`);
  token = ((await answer.json()) as { access_token: string }).access_token;
  // A PDF uploaded through the API, for envelopes created from a file.
  const form = new FormData();
  form.append(
    'file',
    new Blob([await buildDemoPdf('Fuzzed upload')], { type: 'application/pdf' }),
    'fuzz.pdf',
  );
  const uploaded = await fetch(`${baseUrl}/api/v1/files/upload`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (uploaded.status !== 201) throw new Error(`upload: ${uploaded.status} ${await uploaded.text()}`);
  const fileId = ((await uploaded.json()) as { id: string }).id;

  // Production envelopes: one per state an operation reads or changes, and one target per change, so an
  // operation that ends an envelope (cancel) does not take it from the others.
  // Made side by side: each send waits for its workflow, and on a slow machine one after another took minutes.
  const sandbox = { sandbox: true };
  const [
    draft,
    sent,
    remindTarget,
    extendTarget,
    cancelTarget,
    completed,
    // Synthetic envelopes (X-Service-Sandbox: true), one per simulation and per change.
    sandboxDraft,
    sandboxSent,
    sandboxRemind,
    sandboxExtend,
    sandboxCancel,
    simulatedCompleted,
    simulatedDeclined,
    simulatedExpired,
    simulatedCancelled,
    sandboxCompleted,
  ] = await Promise.all([
    envelope(),
    ...Array.from({ length: 5 }, () => envelope({ send: true })),
    envelope(sandbox),
    ...Array.from({ length: 9 }, () => envelope({ ...sandbox, send: true })),
  ]);
  if (!draft || !sent || !remindTarget || !extendTarget || !cancelTarget || !completed) {
    throw new Error('an envelope was not made');
  }
  if (
    !sandboxDraft ||
    !sandboxSent ||
    !sandboxRemind ||
    !sandboxExtend ||
    !sandboxCancel ||
    !sandboxCompleted
  ) {
    throw new Error('a sandbox envelope was not made');
  }
  if (!simulatedCompleted || !simulatedDeclined || !simulatedExpired || !simulatedCancelled) {
    throw new Error('a simulated envelope was not made');
  }
  for (const recipientId of completed.recipientIds) {
    await completeRecipient(ctx, organizationId, completed.id, recipientId);
  }
  await ctx.temporal.workflow.getHandle(envelopeWorkflowId(completed.id)).result();
  const sandboxChanges = { remind: sandboxRemind, extend: sandboxExtend, cancel: sandboxCancel };
  const simulations = {
    Completed: simulatedCompleted,
    Declined: simulatedDeclined,
    Expired: simulatedExpired,
    Cancelled: simulatedCancelled,
  };
  await callAs(baseUrl, bearer(token), 'POST', `/api/v1/sandbox/envelopes/${sandboxCompleted.id}/Completed`);

  // Webhooks: an endpoint on a local receiver (created as the operator CLI does; private addresses are allowed
  // for the test environment's worker) and one delivery through the API.
  const endpoint = await createWebhookEndpoint(ctx, {
    organizationId,
    url: `${receiver.url}/hooks/fuzz`,
  });
  const delivery = await callAs(
    baseUrl,
    bearer(token),
    'POST',
    `/api/v1/webhooks/${endpoint.id}/test`,
    undefined,
    { status: 202 },
  );

  const id = (created: Created, headers?: Record<string, string>) => ({
    path: { id: created.id },
    ...(headers ? { headers } : {}),
  });
  // The application routes: an owner of the organization signed in, and what their ids can name — custom
  // roles, teams, and users (invited and active) of the same organization.
  const owner = await signedInUser({ ctx }, { role: 'owner', organizationId });
  const app = async (method: string, path: string, body: unknown) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...owner.headers, origin: baseUrl, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status !== 200)
      throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  const roles = [
    await app('POST', '/api/roles', { name: 'Fuzz reviewers', permissions: ['documents:read'] }),
    await app('POST', '/api/roles', {
      name: 'Fuzz senders',
      permissions: ['documents:read', 'documents:manage'],
    }),
  ];
  const teams = [
    await app('POST', '/api/teams', { name: 'Fuzz team A' }),
    await app('POST', '/api/teams', { name: 'Fuzz team B' }),
  ];
  const invited = [
    await app('POST', '/api/users/invite', {
      fullName: 'Fuzz Invitee',
      email: `fuzz-invitee-${randomUUID()}@example.com`,
      roleId: roles[0]?.id,
    }),
    await app('POST', '/api/users/invite', {
      fullName: 'Fuzz Invitee Two',
      email: `fuzz-invitee-${randomUUID()}@example.com`,
      roleId: roles[1]?.id,
      teamId: teams[0]?.id,
    }),
  ];
  const member = await signedInUser({ ctx }, { role: 'member', organizationId });
  // Contacts the address book's {id} routes can name (a deleted one answers 404 to later cases).
  const contacts = [
    await app('POST', '/api/contacts', {
      name: 'Fuzz Contact A',
      email: `fuzz-contact-${randomUUID()}@example.com`,
    }),
    await app('POST', '/api/contacts', { name: 'Fuzz Contact B', phone: '+972501234567', tags: ['fuzz'] }),
    await app('POST', '/api/contacts', {
      name: 'Fuzz Contact C',
      email: `fuzz-contact-${randomUUID()}@example.com`,
    }),
  ];
  // The owner's personal stamps for the stamp routes' {id} (a deleted one answers 404 to later cases).
  const stampImage = {
    contentType: 'image/png',
    imageBase64: encodePng(32, 32, (x, y) => [x * 8, y * 8, 0, 255]).toString('base64'),
  };
  const stamps = [
    await app('POST', '/api/me/stamps', { name: 'Fuzz stamp A', ...stampImage }),
    await app('POST', '/api/me/stamps', { name: 'Fuzz stamp B', ...stampImage }),
    await app('POST', '/api/me/stamps', { name: 'Fuzz stamp C', ...stampImage }),
  ];
  // Templates for the template routes' {id} (docs/templates.md): drafts with roles and fields that can be
  // published, and templates of their own to archive (an archived one answers 404 to later cases).
  const templatePdf = Buffer.from(await buildDemoPdf('Fuzz template')).toString('base64');
  const templateDefinition = {
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
  const defined = async (name: string) => {
    const template = await app('POST', '/api/templates', { name, pdfBase64: templatePdf });
    await app('PUT', `/api/templates/${template.id}/definition`, templateDefinition);
    return template;
  };
  const templates = [
    await defined('Fuzz template A'),
    await defined('Fuzz template B'),
    await defined('Fuzz template C'),
  ];
  const templatesToArchive = [
    await app('POST', '/api/templates', { name: 'Fuzz archive A', pdfBase64: templatePdf }),
    await app('POST', '/api/templates', { name: 'Fuzz archive B', pdfBase64: templatePdf }),
  ];
  const ids = (list: { id: string }[]) => list.map((item) => ({ path: { id: item.id } }));
  const users = ids([...invited, member.user]);
  // Envelopes of their own for archive, unarchive and delete, which use them up (an archived one answers 409
  // to a second archive, a deleted one 404): cancelled ones to archive, archived ones to bring back, drafts and
  // cancelled ones to delete. The envelopes of the public API's operations above are none of these.
  const cancelledEnvelope = async () => {
    const created = await envelope({ send: true });
    await callAs(baseUrl, bearer(token), 'POST', `/api/v1/envelopes/${created.id}/cancel`, {});
    return created;
  };
  const toArchive = [await cancelledEnvelope(), await cancelledEnvelope(), await cancelledEnvelope()];
  const toUnarchive = [await cancelledEnvelope(), await cancelledEnvelope(), await cancelledEnvelope()];
  for (const archived of toUnarchive) await app('POST', `/api/documents/${archived.id}/archive`, {});
  const toDelete = [await envelope(), await envelope(), await cancelledEnvelope(), await cancelledEnvelope()];
  // The documents routes (docs/documents.md), as the owner, who sees every envelope of the organization: the
  // public API's envelopes above to read and download, and targets of their own for the actions, each in the
  // state its action needs (a draft to send, sent ones to remind, extend, cancel and hand a link out, a
  // FinalPdfFailed one to retry), next to one in another state (409).
  const toSend = [await envelope(), await envelope()];
  // Drafts to edit (PATCH /api/v1/envelopes/{id}, GET /api/documents/{id}/draft, PATCH /api/documents/{id}),
  // beside a sent one (409 envelope_not_draft).
  const [v1Draft, documentDraft, sandboxToEdit] = await Promise.all([
    envelope(),
    envelope(),
    envelope({ sandbox: true }),
  ]);
  const toRemind = await envelope({ send: true });
  // Recipients to correct (issue 33) on envelopes of their own: a correction ends the recipient's links, which the
  // signing-link routes' envelope keeps; beside them the Completed envelope's recipients, who have acted (409).
  const [v1ToCorrect, documentToCorrect, sandboxToCorrect] = await Promise.all([
    envelope({ send: true }),
    envelope({ send: true }),
    envelope({ sandbox: true, send: true }),
  ]);
  const recipientsOf = (created: Created, headers?: Record<string, string>) =>
    created.recipientIds.map((recipientId) => ({
      path: { id: created.id, recipientId },
      ...(headers ? { headers } : {}),
    }));
  // Archived templates to restore and others to delete (a deleted one answers 404 to later cases, a restored one
  // 409 template_not_archived to a second restore).
  const archivedTemplate = async (name: string) => {
    const template = await app('POST', '/api/templates', { name, pdfBase64: templatePdf });
    await app('POST', `/api/templates/${template.id}/archive`, {});
    return template;
  };
  const templatesToRestore = [
    await archivedTemplate('Fuzz restore A'),
    await archivedTemplate('Fuzz restore B'),
  ];
  const templatesToDelete = [
    await archivedTemplate('Fuzz delete A'),
    await archivedTemplate('Fuzz delete B'),
  ];
  // A sender notification of the owner (docs/notifications.md): the creator of an envelope is told when it
  // completes.
  const notified = await completedDocument(ctx, organizationId, await documentTemplate(ctx, organizationId), {
    title: 'Fuzz notified agreement',
    sender: { userId: owner.user.id, teamId: null },
  });
  const notifications = (
    await ctx.orm.em.fork().find(UserNotification, { envelopeId: notified.id, userId: owner.user.id })
  ).map((notification) => ({ path: { id: notification.id } }));
  if (notifications.length === 0) throw new Error('the owner was not notified');
  const toExtend = await envelope({ send: true });
  const toCancel = [await envelope({ send: true }), await envelope({ send: true })];
  const toRetry = await failedDocument(ctx, organizationId);
  const documentReads = ids([sent, completed, draft]);

  // Bulk sends (docs/bulk-send.md) of one row each, by a handed-over link: to read, list the rows of and cancel
  // (a finished one answers 409).
  const bulkSend = (reference: string) =>
    app('POST', '/api/bulk-sends', {
      templateId,
      roles: [
        { roleName: 'Client', deliveryChannel: 'ManualLink' },
        { roleName: 'Provider', deliveryChannel: 'ManualLink' },
      ],
      csv: `externalReference,Client.name,Client.email,Provider.name,Provider.email\n${reference},Dana Levi,dana@example.com,Sam Cohen,sam@example.com\n`,
    });
  const bulkSends = ids([
    await bulkSend(`fuzz-bulk-${randomUUID()}`),
    await bulkSend(`fuzz-bulk-${randomUUID()}`),
  ]);

  // Webhooks in the business app (docs/webhooks.md): endpoints of their own on the local receiver to change,
  // rotate, test and delete (a deleted one answers 404 to later cases), and the delivery above to read and replay.
  // Made through the service with the test configuration: this app runs the production rules, which take only
  // public https targets, and the receiver is on the loopback.
  const webhookEndpoints = [
    await createWebhookEndpoint(ctx, { organizationId, url: `${receiver.url}/hooks/app-fuzz-a` }),
    await createWebhookEndpoint(ctx, { organizationId, url: `${receiver.url}/hooks/app-fuzz-b` }),
  ];
  const webhookDeliveries = [{ path: { id: delivery.id as string } }];
  // The public API's webhook management (issue 34): endpoints of its own, so the one above keeps its test and replay.
  const v1WebhookEndpoints = [
    await createWebhookEndpoint(ctx, { organizationId, url: `${receiver.url}/hooks/v1-fuzz-a` }),
    await createWebhookEndpoint(ctx, { organizationId, url: `${receiver.url}/hooks/v1-fuzz-b` }),
  ].map((created) => ({ path: { id: created.id } }));

  // API keys of the Integrations area (docs/integrations.md): keys of their own, so the public API's client above
  // keeps working, to change, rotate (a third active secret answers 409), delete a secret of, and delete (a
  // deleted key or secret answers 404 to later cases).
  const apiKey = async (name: string) =>
    (await app('POST', '/api/api-keys', { name, scopes: ['templates.read'] })) as unknown as {
      apiKey: { id: string };
      secret: { id: string };
    };
  const apiKeys = [await apiKey('Fuzz key A'), await apiKey('Fuzz key B'), await apiKey('Fuzz key C')];
  const apiKeyIds = apiKeys.map((key) => ({ path: { id: key.apiKey.id } }));

  // The backoffice (docs/backoffice.md): a platform administrator of its own (at a domain of its own) with a
  // backoffice session, administrators and allowed domains to remove or change, and organizations of their own
  // to change, suspend, delete and grant credits to (never this file's, whose owner the other routes need).
  const backofficeDomain = `fuzz-${randomUUID().slice(0, 8)}.example.test`;
  const backofficeAdmin = async (name: string) =>
    (
      await createPlatformAdmin(
        ctx,
        { kind: 'operator_cli' },
        {
          email: `${name}-${randomUUID().slice(0, 8)}@${backofficeDomain}`,
          fullName: name,
          allowDomain: true,
        },
      )
    ).admin;
  const fuzzAdmin = await backofficeAdmin('fuzz-admin');
  const spareAdmins = [await backofficeAdmin('fuzz-spare-a'), await backofficeAdmin('fuzz-spare-b')];
  const adminEm = ctx.orm.em.fork();
  const { token: backofficeSessionToken } = await startBackofficeSession(
    { em: adminEm },
    {
      admin: await adminEm.findOneOrFail(PlatformAdmin, { id: fuzzAdmin.id }),
      ipAddress: '127.0.0.1',
      userAgent: null,
    },
  );
  const adminActor = { kind: 'platform_admin' as const, admin: fuzzAdmin, ipAddress: '127.0.0.1' };
  const spareDomains = [
    await addAllowedDomain(ctx, adminActor, { domain: `fuzz-${randomUUID().slice(0, 8)}.example.test` }),
    await addAllowedDomain(ctx, adminActor, { domain: `fuzz-${randomUUID().slice(0, 8)}.example.test` }),
  ];
  const backofficeOrganization = async () =>
    createOrganization(ctx, {
      name: `Fuzz tenant ${randomUUID().slice(0, 8)}`,
      plan: 'Business',
      apiEnabled: true,
    });
  const tenants = ids([await backofficeOrganization(), await backofficeOrganization()]);

  const reads = [id(sent), id(completed), id(draft), id(sandboxSent, SANDBOX), id(sandboxCompleted, SANDBOX)];
  const documents = [id(completed), id(sent), id(sandboxCompleted, SANDBOX), id(sandboxSent, SANDBOX)];
  return {
    token,
    appHeaders: { Origin: baseUrl },
    sessionToken: owner.cookie.replace(/^sigil_session=/, ''),
    backofficeSessionToken,
    resources: {
      'PUT /api/roles/{id}': ids(roles),
      'DELETE /api/roles/{id}': ids(roles),
      'PUT /api/teams/{id}': ids(teams),
      'DELETE /api/teams/{id}': ids(teams),
      'PUT /api/contacts/{id}': ids(contacts),
      'DELETE /api/contacts/{id}': ids(contacts),
      'PUT /api/me/stamps/{id}': ids(stamps),
      'POST /api/me/stamps/{id}/versions': ids(stamps),
      'GET /api/me/stamps/{id}/image': ids(stamps),
      'DELETE /api/me/stamps/{id}': ids(stamps),
      'GET /api/templates/{id}': ids(templates),
      'GET /api/templates/{id}/pdf': ids(templates),
      'PUT /api/templates/{id}/name': ids(templates),
      'PUT /api/templates/{id}/definition': ids(templates),
      'POST /api/templates/{id}/publish': ids(templates),
      'POST /api/templates/{id}/duplicate': ids(templates),
      'POST /api/templates/{id}/archive': ids(templatesToArchive),
      'POST /api/documents/{id}/archive': ids(toArchive),
      'POST /api/documents/{id}/unarchive': ids(toUnarchive),
      'POST /api/documents/{id}/delete': ids(toDelete),
      'GET /api/documents/{id}': documentReads,
      'GET /api/documents/{id}/live': documentReads,
      'GET /api/documents/{id}/files/source': documentReads,
      'GET /api/documents/{id}/files/final-pdf': documentReads,
      'GET /api/documents/{id}/files/audit-trail': documentReads,
      'GET /api/documents/{id}/draft': ids([documentDraft, sent]),
      'PATCH /api/documents/{id}': ids([documentDraft, sent]),
      'POST /api/documents/{id}/send': ids([...toSend, completed]),
      'POST /api/documents/{id}/remind': ids([toRemind, completed]),
      'POST /api/documents/{id}/extend': ids([toExtend, completed]),
      'POST /api/documents/{id}/cancel': ids([...toCancel, completed]),
      'POST /api/documents/{id}/retry-final-pdf': ids([toRetry, completed]),
      'POST /api/documents/{id}/recipients/{recipientId}/signing-link': sent.recipientIds.map(
        (recipientId) => ({
          path: { id: sent.id, recipientId },
        }),
      ),
      'POST /api/documents/{id}/recipients/{recipientId}/correct': [
        ...recipientsOf(documentToCorrect),
        ...recipientsOf(completed),
      ],
      'POST /api/documents/{id}/recipients/{recipientId}/remind': [
        ...recipientsOf(toRemind),
        ...recipientsOf(completed),
      ],
      'POST /api/documents/{id}/settings': ids([sent, draft, completed]),
      'POST /api/me/notifications/{id}/read': notifications,
      'POST /api/templates/{id}/restore': ids(templatesToRestore),
      'DELETE /api/templates/{id}': ids(templatesToDelete),
      'GET /api/bulk-sends/{id}': bulkSends,
      'GET /api/bulk-sends/{id}/rows': bulkSends,
      'POST /api/bulk-sends/{id}/cancel': bulkSends,
      'POST /api/bulk-sends': [{ body: { templateId } }],
      'POST /api/bulk-sends/check': [{ body: { templateId } }],
      'PUT /api/webhooks/{id}': ids(webhookEndpoints),
      'DELETE /api/webhooks/{id}': ids(webhookEndpoints),
      'POST /api/webhooks/{id}/secret/rotate': ids(webhookEndpoints),
      'POST /api/webhooks/{id}/test': ids(webhookEndpoints),
      'GET /api/webhooks/deliveries/{id}': webhookDeliveries,
      'POST /api/webhooks/deliveries/{id}/replay': webhookDeliveries,
      'DELETE /api/backoffice/platform-admins/{id}': ids(spareAdmins),
      'PATCH /api/backoffice/platform-admins/{id}': ids(spareAdmins),
      // The lookup's page and the contents of envelopes of this organization; the repairs on the completed one
      // only (on a sent one, re-issued links would end the links other operations sign with).
      'GET /api/backoffice/envelopes/{id}': ids([sent, completed]),
      'POST /api/backoffice/envelopes/{id}/contents': ids([sent, completed]),
      'POST /api/backoffice/envelopes/{id}/resume-projection': ids([completed]),
      'POST /api/backoffice/envelopes/{id}/retry-final-pdf': ids([completed]),
      'POST /api/backoffice/envelopes/{id}/reissue-links': ids([completed]),
      'POST /api/backoffice/envelopes/{id}/verify-audit': ids([completed]),
      'GET /api/backoffice/organizations/{id}/users': [...tenants, { path: { id: organizationId } }],
      ...Object.fromEntries(
        ['reset-mfa', 'resend-invitation', 'unlock', 'resend-verification', 'deactivate'].map((action) => [
          `POST /api/backoffice/organizations/{id}/users/{userId}/${action}`,
          invited.map((user) => ({ path: { id: organizationId, userId: user.id } })),
        ]),
      ),
      'PUT /api/backoffice/platform-admins/allowed-domains/{id}': ids(spareDomains),
      'DELETE /api/backoffice/platform-admins/allowed-domains/{id}': ids(spareDomains),
      'GET /api/backoffice/organizations/{id}': tenants,
      'PUT /api/backoffice/organizations/{id}': tenants,
      'DELETE /api/backoffice/organizations/{id}': tenants,
      'GET /api/backoffice/organizations/{id}/integrations': tenants,
      'GET /api/backoffice/organizations/{id}/credits': tenants,
      'POST /api/backoffice/organizations/{id}/credits': tenants,
      'GET /api/backoffice/organizations/{id}/secure-signature-policy': tenants,
      'PUT /api/backoffice/organizations/{id}/secure-signature-policy': tenants,
      'PUT /api/api-keys/{id}': apiKeyIds,
      'DELETE /api/api-keys/{id}': apiKeyIds,
      'POST /api/api-keys/{id}/secrets/rotate': apiKeyIds,
      'DELETE /api/api-keys/{id}/secrets/{secretId}': apiKeys.map((key) => ({
        path: { id: key.apiKey.id, secretId: key.secret.id },
      })),
      'POST /api/users/{id}/resend-invitation': ids(invited),
      'POST /api/users/{id}/reset-mfa': users,
      'PUT /api/users/{id}': users,
      'DELETE /api/users/{id}': users,
      'GET /api/v1/templates/{id}': [{ path: { id: templateId } }],
      // Past the template's 404 to the checks of roles, recipients and initial values.
      'POST /api/v1/envelopes/from-template': [
        { body: { templateId } },
        { body: { templateId }, headers: SANDBOX },
      ],
      // Past the file's 404 to the checks of the fields' pages and boxes, roles and recipients.
      'POST /api/v1/envelopes/from-file': [{ body: { fileId } }, { body: { fileId }, headers: SANDBOX }],
      'GET /api/v1/envelopes/{id}': reads,
      'GET /api/v1/envelopes/{id}/recipients': reads,
      'GET /api/v1/envelopes/by-external-reference/{externalReference}': [
        { path: { externalReference: sent.externalReference } },
        { path: { externalReference: completed.externalReference } },
        { path: { externalReference: sandboxSent.externalReference }, headers: SANDBOX },
      ],
      'POST /api/v1/envelopes/{id}/recipients/{recipientId}/signing-link': sent.recipientIds.map(
        (recipientId) => ({ path: { id: sent.id, recipientId } }),
      ),
      'PATCH /api/v1/envelopes/{id}': [id(v1Draft), id(sent), id(sandboxToEdit, SANDBOX)],
      'PATCH /api/v1/envelopes/{id}/recipients/{recipientId}': [
        ...recipientsOf(v1ToCorrect),
        ...recipientsOf(completed),
        ...recipientsOf(sandboxToCorrect, SANDBOX),
      ],
      'POST /api/v1/envelopes/{id}/recipients/{recipientId}/remind': [
        ...recipientsOf(remindTarget),
        ...recipientsOf(completed),
        ...recipientsOf(sandboxChanges.remind, SANDBOX),
      ],
      'PUT /api/v1/envelopes/{id}/settings': [id(sent), id(draft), id(completed), id(sandboxSent, SANDBOX)],
      'POST /api/v1/envelopes/{id}/send': [id(draft), id(sent), id(sandboxDraft, SANDBOX)],
      'POST /api/v1/envelopes/{id}/remind': [id(remindTarget), id(sandboxChanges.remind, SANDBOX)],
      'POST /api/v1/envelopes/{id}/extend': [id(extendTarget), id(sandboxChanges.extend, SANDBOX)],
      'POST /api/v1/envelopes/{id}/cancel': [id(cancelTarget), id(sandboxChanges.cancel, SANDBOX)],
      'GET /api/v1/envelopes/{id}/documents/final-pdf': documents,
      'GET /api/v1/envelopes/{id}/documents/audit-trail': documents,
      'GET /api/v1/envelopes/{id}/documents/original': [id(draft), ...documents],
      'POST /api/v1/sandbox/envelopes/{id}/Completed': [id(simulations.Completed)],
      'POST /api/v1/sandbox/envelopes/{id}/Declined': [id(simulations.Declined)],
      'POST /api/v1/sandbox/envelopes/{id}/Expired': [id(simulations.Expired)],
      'POST /api/v1/sandbox/envelopes/{id}/Cancelled': [id(simulations.Cancelled)],
      'POST /api/v1/webhooks/{id}/test': [{ path: { id: endpoint.id } }],
      'POST /api/v1/webhooks/deliveries/{id}/replay': [{ path: { id: delivery.id as string } }],
      'PUT /api/v1/webhooks/{id}': v1WebhookEndpoints,
      'DELETE /api/v1/webhooks/{id}': v1WebhookEndpoints,
      'POST /api/v1/webhooks/{id}/secret/rotate': v1WebhookEndpoints,
      'GET /api/v1/webhooks/deliveries/{id}': webhookDeliveries,
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Runs
// ---------------------------------------------------------------------------------------------------------

/** Operations of a document whose path has parameters, as Schemathesis labels them. */
async function operationsWithPathParameters(documentPath: string): Promise<string[]> {
  const document = (await (await fetch(`${baseUrl}${documentPath}`)).json()) as {
    paths: Record<string, Record<string, unknown>>;
  };
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    path.includes('{') ? Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`) : [],
  );
}

async function fuzz(
  name: string,
  documentPath: string,
  headers: Record<string, string>,
  extraArgs: string[] = [],
  sessionToken?: string,
  workers = WORKERS,
  timeoutMs = RUN_TIMEOUT_MS,
  backofficeToken?: string,
  maxExamples = MAX_EXAMPLES,
) {
  // A documented route with an id in its path but no resource here would only ever answer 404: add one above.
  const excluded = extraArgs.filter((_, index) => extraArgs[index - 1] === '--exclude-name');
  const unfed = (await operationsWithPathParameters(documentPath)).filter(
    (label) => !resources[label] && !excluded.includes(label),
  );
  expect(unfed, 'operations with path parameters and no resources to name').toEqual([]);
  const result = await runSchemathesis({
    st,
    schemaUrl: `${baseUrl}${documentPath}`,
    baseUrl,
    headers,
    resources,
    seed: SEED,
    maxExamples,
    workers,
    workDir: join(workDir, name),
    timeoutMs,
    extraArgs,
    ...(sessionToken ? { sessionToken } : {}),
    ...(backofficeToken ? { backofficeSessionToken: backofficeToken } : {}),
  });
  figures.push(summarize(name, result));
  return result;
}

/** Application routes that end the fuzzer's own session. */
const SESSION_ENDING = [
  'POST /api/auth/logout',
  'POST /api/auth/mfa/disable',
  'POST /api/auth/mfa/backup-codes',
  'POST /api/auth/mfa/passkeys/{id}/remove',
  // The backoffice's sign-out ends the fuzzer's backoffice session.
  'DELETE /api/backoffice/session',
];

/**
 * Backoffice routes that change what every other test file running next to this one depends on: the backoffice
 * IP allowlist is one list for the whole platform (an accepted generated entry would refuse other files'
 * requests), and failed backoffice sign-ins count against the loopback address as every sign-in's throttle
 * does. test/integration/backoffice-admins.test.ts and text-safety.test.ts cover them with entries and
 * addresses of their own.
 */
const PLATFORM_WIDE = [
  'POST /api/backoffice/platform-admins/ip-allowlist',
  'PUT /api/backoffice/platform-admins/ip-allowlist/{id}',
  'DELETE /api/backoffice/platform-admins/ip-allowlist/{id}',
  'POST /api/backoffice/platform-admins/otp',
  'POST /api/backoffice/session',
  // The notification providers apply to every message of the platform (backoffice-providers.test.ts tests
  // them on a database of its own).
  'PUT /api/backoffice/smtp',
  'PUT /api/backoffice/sms',
  'PUT /api/backoffice/whatsapp',
  // So do the notification templates (backoffice-templates.test.ts tests them on a database of its own).
  'PUT /api/backoffice/notification-templates',
  // And a plan's limits, to every organization on it (backoffice-users-plans.test.ts tests them on plans of its own).
  'PUT /api/backoffice/plans/{plan}',
];

function expectClean(result: SchemathesisResult) {
  const problems = findings(result);
  if (problems.length > 0) keepWorkDir = true;
  expect(
    problems.length,
    `${problems.length} finding(s); reports in ${result.workDir}; command: ${result.command}\n\n${problems.join('\n\n')}\n`,
  ).toBe(0);
}

describe('Schemathesis', () => {
  it(
    'finds no server error and no schema violation in the public API (/api/v1)',
    async () => {
      const result = await fuzz('public-api', OPENAPI_PATH, { Authorization: `Bearer ${token}` });
      // Findings first: a run killed at its timeout says so there (and keeps its reports), before the figures.
      expectClean(result);
      expect(result.report?.operations?.tested).toBeGreaterThan(20);
    },
    RUN_TIMEOUT_MS + 30_000,
  );

  it(
    'finds no server error and no schema violation in the application routes',
    async () => {
      // As a signed-in owner, and the backoffice's routes as a platform administrator. Left out: the routes that
      // end the caller's own session (sign-out; turning MFA off, new backup codes and removing a passkey end it
      // after five wrong re-authentications), which would turn every later case into a 401 (accounts-sessions,
      // mfa, passkeys and backoffice-admins tests in test/integration cover them), and PLATFORM_WIDE.
      const result = await fuzz(
        'application-routes',
        APP_OPENAPI_PATH,
        appHeaders,
        [
          ...APP_PHASES,
          ...APP_GENERATION,
          ...[...SESSION_ENDING, ...PLATFORM_WIDE].flatMap((name) => ['--exclude-name', name]),
        ],
        sessionToken,
        WORKERS,
        APP_RUN_TIMEOUT_MS,
        backofficeSessionToken,
        APP_MAX_EXAMPLES,
      );
      // Findings first: a run killed at its timeout says so there (and keeps its reports), before the figures.
      expectClean(result);
      expect(result.report?.operations?.tested).toBeGreaterThan(25);
    },
    APP_RUN_TIMEOUT_MS + 30_000,
  );
});

// ---------------------------------------------------------------------------------------------------------
// The harness itself can fail
// ---------------------------------------------------------------------------------------------------------

describe('the fuzz harness', () => {
  it('reports a 500 reached through a fed id and an answer that breaks its schema, with curl to reproduce', async () => {
    const knownId = randomUUID();
    const server = createServer((request, response) => {
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        response.writeHead(status, { 'content-type': 'application/json', ...headers });
        response.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      const url = new URL(request.url ?? '/', 'http://localhost');
      if (url.pathname === '/openapi.json') return send(200, BROKEN_API);
      const item = /^\/items\/([^/]+)$/.exec(url.pathname);
      if (item && request.method === 'GET') {
        // Only the id the hooks feed reaches the "bug"; a generated uuid gets a 404.
        if (decodeURIComponent(item[1] ?? '') === knownId) return send(500, { error: 'boom' });
        return send(404, { error: 'not found' });
      }
      if (url.pathname === '/status' && request.method === 'GET') return send(200, { ok: 'yes' });
      return send(405, { error: 'method not allowed' }, { allow: 'GET' });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const result = await runSchemathesis({
        st,
        schemaUrl: `${url}/openapi.json`,
        baseUrl: url,
        resources: { 'GET /items/{id}': [{ path: { id: knownId } }] },
        seed: SEED,
        maxExamples: 5,
        workers: 1,
        workDir: join(workDir, 'harness'),
        timeoutMs: 120_000,
      });
      const problems = findings(result);
      const items = result.failures.find((finding) => finding.operation === 'GET /items/{id}');
      expect(items?.text, problems.join('\n\n')).toMatch(/Server error/);
      expect(items?.text).toContain(`curl -X GET ${url}/items/${knownId}`);
      const status = result.failures.find((finding) => finding.operation === 'GET /status');
      expect(status?.text, problems.join('\n\n')).toMatch(/Response violates schema/);
      expect(problems.some((problem) => problem.startsWith('GET /items/{id} — failed checks:'))).toBe(true);
      expect(result.exitCode).not.toBe(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** A two-route API whose server has a crash behind a real id and answers one route against its schema. */
const BROKEN_API = {
  openapi: '3.1.0',
  info: { title: 'Broken on purpose', version: '1' },
  paths: {
    '/items/{id}': {
      get: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: {
          200: { description: 'The item', content: { 'application/json': { schema: { type: 'object' } } } },
          404: { description: 'Unknown', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
    '/status': {
      get: {
        responses: {
          200: {
            description: 'Status',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['ok'],
                  properties: { ok: { type: 'boolean' } },
                  additionalProperties: false,
                },
              },
            },
          },
        },
      },
    },
  },
};

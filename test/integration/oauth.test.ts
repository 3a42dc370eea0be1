// The public API's authentication end to end on real PostgreSQL: the token endpoint (client credentials),
// secret rotation, token revocation (deleted secrets and clients, POST /oauth/revoke), and the bearer-token
// check with API flag, plan, IP allowlist, scopes and statistics.
// The /api/v1 routes here are test-only stand-ins that exercise the hooks.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createBearerAuth } from '../../api/auth/bearer-auth.ts';
import { createRequestStats } from '../../api/auth/request-stats.ts';
import type { AppDependencies } from '../../api/dependencies.ts';
import { registerRequestContext } from '../../api/http/request-context.ts';
import { createServer } from '../../api/http/server.ts';
import { oauthTokenRoutes } from '../../api/routes/oauth-token.ts';
import { createOrm, type Orm } from '../../db/orm.ts';
import type { Scope } from '../../domain/scopes.ts';
import { NotFound, RateLimited } from '../../services/errors.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import { deleteClientSecret } from '../../services/oauth-clients/delete-client-secret.ts';
import { deleteOAuthClient } from '../../services/oauth-clients/delete-oauth-client.ts';
import { listOAuthClients } from '../../services/oauth-clients/list-oauth-clients.ts';
import { rotateClientSecret } from '../../services/oauth-clients/rotate-client-secret.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { sha256Hex } from '../../services/security/secrets.ts';
import { expectError } from '../support/app-requests.ts';
import { servicesOn, testConfig } from '../support/context.ts';

const logger = pino({ level: 'silent' });
const config = testConfig();
const FORM = 'application/x-www-form-urlencoded';

let orm: Orm;
let app: FastifyInstance;
let proxiedApp: FastifyInstance;

async function buildTestApp(trustedProxies: string[]): Promise<FastifyInstance> {
  const server = createServer({ logger, trustedProxies });
  const api = { ...config.api, trustedProxies };
  const deps: AppDependencies = {
    config: { ...config, api },
    orm,
    // The token endpoint and the hooks never touch Temporal.
    temporal: {} as AppDependencies['temporal'],
    logger,
  };
  registerRequestContext(server, deps);
  await server.register(oauthTokenRoutes, deps);
  await server.register(
    async (v1) => {
      v1.addHook('onRequest', createBearerAuth({ orm, config: { api } }));
      const stats = createRequestStats({ orm });
      v1.addHook('onResponse', stats.record);
      v1.addHook('onClose', () => stats.flush());
      v1.get('/probe', { config: { scope: 'organization.read' } }, async (request) => ({
        principal: request.principal,
      }));
      v1.post<{ Params: { id: string } }>(
        '/envelopes/:id/send',
        { config: { scope: 'envelopes.write' } },
        async (request) => {
          if (request.params.id === 'missing') throw new NotFound('Envelope missing was not found.');
          if (request.params.id === 'throttled') throw new RateLimited('Too many requests.', 30);
          return { sent: request.params.id };
        },
      );
    },
    { prefix: '/api/v1' },
  );
  await server.ready();
  return server;
}

beforeAll(async () => {
  orm = await createOrm({ databaseUrl: inject('databaseUrl'), poolMax: 4 });
  app = await buildTestApp([]);
  proxiedApp = await buildTestApp(['127.0.0.1']);
});
afterAll(async () => {
  await app?.close();
  await proxiedApp?.close();
  await orm?.close();
});

const ALL_SCOPES: Scope[] = [
  'organization.read',
  'usage.read',
  'templates.read',
  'files.write',
  'envelopes.read',
  'envelopes.write',
  'webhooks.manage',
];

async function newOrganization(plan: 'Business' | 'Starter' = 'Business') {
  return createOrganization(servicesOn(orm), {
    name: `OAuth org ${Math.random().toString(36).slice(2, 8)}`,
    plan,
    apiEnabled: plan !== 'Starter',
  });
}

async function newClient(
  options: { scopes?: Scope[]; ipAllowlist?: string[]; organizationId?: string } = {},
) {
  const organizationId = options.organizationId ?? (await newOrganization()).id;
  return createOAuthClient(servicesOn(orm), {
    organizationId,
    name: 'ERP integration',
    scopes: options.scopes ?? ALL_SCOPES,
    ipAllowlist: options.ipAllowlist ?? [],
  });
}

function basic(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
}

function tokenRequest(
  form: Record<string, string>,
  options: {
    authorization?: string;
    headers?: Record<string, string>;
    target?: FastifyInstance;
    remoteAddress?: string;
  } = {},
) {
  return (options.target ?? app).inject({
    method: 'POST',
    url: '/oauth/token',
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
    headers: {
      'content-type': FORM,
      ...(options.authorization ? { authorization: options.authorization } : {}),
      ...options.headers,
    },
    payload: new URLSearchParams(form).toString(),
  });
}

async function accessToken(
  client: { clientId: string; clientSecret: string },
  scope?: string,
  remoteAddress?: string,
) {
  const response = await tokenRequest(
    { grant_type: 'client_credentials', ...(scope ? { scope } : {}) },
    { authorization: basic(client.clientId, client.clientSecret), remoteAddress },
  );
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ access_token: string; scope: string }>().access_token;
}

function callApi(
  token: string | undefined,
  options: { method?: 'GET' | 'POST'; url?: string; remoteAddress?: string; target?: FastifyInstance } = {},
  headers: Record<string, string> = {},
) {
  return (options.target ?? app).inject({
    method: options.method ?? 'GET',
    url: options.url ?? '/api/v1/probe',
    remoteAddress: options.remoteAddress,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
}

async function sql<T = Record<string, unknown>>(query: string, params: unknown[] = []): Promise<T[]> {
  return orm.em.fork().getConnection().execute<T[]>(query, params);
}

describe('POST /oauth/token', () => {
  it('issues a token to a client authenticated by HTTP Basic, in the specification’s shape', async () => {
    const client = await newClient({ scopes: ['envelopes.write', 'organization.read', 'envelopes.read'] });
    const before = Date.now();
    const response = await tokenRequest(
      { grant_type: 'client_credentials' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.pragma).toBe('no-cache');
    const body = response.json();
    expect(Object.keys(body).sort()).toEqual([
      'access_token',
      'expires_at',
      'expires_in',
      'scope',
      'token_type',
    ]);
    expect(body.access_token).toMatch(/^[\w-]{43}$/);
    expect(body.token_type).toBe('Bearer');
    expect(body.expires_in).toBe(3600);
    expect(Number.isInteger(body.expires_in)).toBe(true);
    // All the client's scopes, in the specification's order.
    expect(body.scope).toBe('organization.read envelopes.read envelopes.write');
    expect(body.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const expiresAt = Date.parse(body.expires_at);
    expect(expiresAt).toBeGreaterThanOrEqual(before + 3600_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + 3600_000);

    // Stored only as its SHA-256, with the grant.
    const rows = await sql<Record<string, unknown>>(
      'select * from oauth_access_token where oauth_client_id = ?',
      [client.id],
    );
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(row?.token_hash).toBe(sha256Hex(body.access_token));
    expect(row).toMatchObject({
      organization_id: client.organizationId,
      scopes: ['organization.read', 'envelopes.read', 'envelopes.write'],
    });
    expect(new Date(row?.expires_at as string).getTime()).toBe(expiresAt);
    expect(JSON.stringify(row)).not.toContain(body.access_token);
    const [plain] = await sql<{ count: string }>(
      'select count(*) from oauth_access_token where token_hash = ? or ? = any (scopes)',
      [body.access_token, body.access_token],
    );
    expect(Number(plain?.count)).toBe(0);

    const [stored] = await sql<{ last_used_at: Date | null }>(
      'select last_used_at from oauth_client where id = ?',
      [client.id],
    );
    expect(stored?.last_used_at).not.toBeNull();

    // The token opens the API.
    const probe = await callApi(body.access_token);
    expect(probe.statusCode, probe.body).toBe(200);
    expect(probe.json().principal).toEqual({
      organizationId: client.organizationId,
      oauthClientId: client.id,
      clientId: client.clientId,
      scopes: ['organization.read', 'envelopes.read', 'envelopes.write'],
      // Who last changed the client (whose role limits the webhooks it saves): nobody since it was made here.
      changedByUserId: null,
      // The organization's and its plan's rate limits, read with the token (api/plugins/rate-limit.ts).
      rateLimitSources: {
        plan: { ratePerMinute: 180, uploadRatePerMinute: 30 },
        organization: { ratePerMinute: null, uploadRatePerMinute: null },
      },
    });
  });

  it('decodes form-URL-encoded Basic credentials (RFC 6749 §2.3.1)', async () => {
    const client = await newClient();
    const encodedId = `%${client.clientId.charCodeAt(0).toString(16)}${client.clientId.slice(1)}`;
    const authorization = `Basic ${Buffer.from(`${encodedId}:${client.clientSecret}`).toString('base64')}`;
    const response = await tokenRequest({ grant_type: 'client_credentials' }, { authorization });
    expect(response.statusCode, response.body).toBe(200);
  });

  it('issues a token to a client authenticated by form fields', async () => {
    const client = await newClient({ scopes: ['templates.read'] });
    const response = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      token_type: 'Bearer',
      scope: 'templates.read',
      expires_in: 3600,
    });
  });

  it('refuses Basic and form credentials together, and missing or repeated parameters', async () => {
    const client = await newClient();
    const both = await tokenRequest(
      { grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret },
      {
        authorization: basic(client.clientId, client.clientSecret),
        headers: { 'x-request-id': 'req-both-1' },
      },
    );
    const error = expectError(both, 400, 'invalid_request');
    expect(error.message).toMatch(/not both/);
    expect(both.headers['x-request-id']).toBe('req-both-1');
    expect(both.headers['cache-control']).toBe('no-store');
    expect(both.headers.pragma).toBe('no-cache');

    const none = await tokenRequest({ grant_type: 'client_credentials' });
    expect(expectError(none, 400, 'invalid_request').message).toMatch(/Client authentication is required/);

    const noSecret = await tokenRequest({ grant_type: 'client_credentials', client_id: client.clientId });
    expect(expectError(noSecret, 400, 'invalid_request').message).toMatch(/client_secret is required/);

    const repeated = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': FORM, authorization: basic(client.clientId, client.clientSecret) },
      payload: 'grant_type=client_credentials&grant_type=client_credentials',
    });
    expect(expectError(repeated, 400, 'invalid_request').message).toMatch(
      /grant_type must be given only once/,
    );

    // Parameters the endpoint does not know are ignored, repeated or not (RFC 6749 §3.2).
    const extra = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': FORM, authorization: basic(client.clientId, client.clientSecret) },
      payload: 'grant_type=client_credentials&=x&=y&audience=a&audience=b',
    });
    expect(extra.statusCode, extra.body).toBe(200);

    const json = await app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { authorization: basic(client.clientId, client.clientSecret) },
      payload: { grant_type: 'client_credentials' },
    });
    expect(expectError(json, 400, 'invalid_request').message).toMatch(/x-www-form-urlencoded/);

    const garbled = await tokenRequest({ grant_type: 'client_credentials' }, { authorization: 'Basic !!!' });
    expect(expectError(garbled, 400, 'invalid_request').message).toMatch(/not valid HTTP Basic/);
  });

  it('answers unsupported_grant_type and a missing grant_type', async () => {
    const client = await newClient();
    const authorization = basic(client.clientId, client.clientSecret);
    const password = await tokenRequest({ grant_type: 'password' }, { authorization });
    expect(expectError(password, 400, 'unsupported_grant_type').message).toMatch(/"password"/);

    const missing = await tokenRequest({ scope: 'envelopes.read' }, { authorization });
    expect(expectError(missing, 400, 'invalid_request').message).toMatch(/grant_type is required/);

    const noBody = await app.inject({ method: 'POST', url: '/oauth/token', headers: { authorization } });
    expect(expectError(noBody, 400, 'invalid_request').message).toMatch(/grant_type is required/);
  });

  it('answers invalid_client for a wrong secret or unknown client, with a Basic challenge only for Basic', async () => {
    const client = await newClient();
    const wrongBasic = await tokenRequest(
      { grant_type: 'client_credentials' },
      { authorization: basic(client.clientId, `${client.clientSecret}x`) },
    );
    const basicError = expectError(wrongBasic, 401, 'invalid_client');
    expect(wrongBasic.headers['www-authenticate']).toBe('Basic realm="sigil"');
    expect(wrongBasic.headers['cache-control']).toBe('no-store');

    const wrongForm = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: client.clientId,
      client_secret: 'not-the-secret',
    });
    const formError = expectError(wrongForm, 401, 'invalid_client');
    expect(wrongForm.headers['www-authenticate']).toBeUndefined();

    const unknown = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: 'sigil_doesnotexist',
      client_secret: client.clientSecret,
    });
    // Never reveals whether the client exists.
    expect(expectError(unknown, 401, 'invalid_client').message).toBe(formError.message);
    expect(basicError.message).toBe(formError.message);

    // A client id PostgreSQL could not even store (NUL) is an unknown client, not a server error.
    const nul = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: `${client.clientId}\u0000`,
      client_secret: client.clientSecret,
    });
    expect(expectError(nul, 401, 'invalid_client').message).toBe(formError.message);
  });

  it('narrows the grant to the requested scopes and enforces them on routes', async () => {
    const client = await newClient({ scopes: ['organization.read', 'envelopes.read', 'envelopes.write'] });
    const response = await tokenRequest(
      { grant_type: 'client_credentials', scope: 'envelopes.read  organization.read' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    expect(response.statusCode, response.body).toBe(200);
    const { access_token: token, scope } = response.json();
    expect(scope).toBe('organization.read envelopes.read');
    const [row] = await sql<{ scopes: string[] }>(
      'select scopes from oauth_access_token where token_hash = ?',
      [sha256Hex(token)],
    );
    expect(row?.scopes).toEqual(['organization.read', 'envelopes.read']);

    expect((await callApi(token)).statusCode).toBe(200);
    const send = await callApi(token, { method: 'POST', url: '/api/v1/envelopes/abc/send' });
    const error = expectError(send, 403, 'forbidden');
    expect(error.message).toBe(
      'This token lacks the scope envelopes.write required by POST /api/v1/envelopes/{id}/send.',
    );

    // The full grant may send.
    const full = await accessToken(client);
    const sent = await callApi(full, { method: 'POST', url: '/api/v1/envelopes/abc/send' });
    expect(sent.statusCode, sent.body).toBe(200);
  });

  it('answers invalid_scope naming an unknown scope or one the client may not request', async () => {
    const client = await newClient({ scopes: ['envelopes.read'] });
    const authorization = basic(client.clientId, client.clientSecret);
    const unknown = await tokenRequest(
      { grant_type: 'client_credentials', scope: 'envelopes.read bogus.scope' },
      { authorization },
    );
    const unknownError = expectError(unknown, 400, 'invalid_scope');
    expect(unknownError.message).toMatch(/unknown scope bogus\.scope/);
    expect(unknownError.details).toEqual([expect.objectContaining({ field: 'scope', scope: 'bogus.scope' })]);

    const notAllowed = await tokenRequest(
      { grant_type: 'client_credentials', scope: 'webhooks.manage' },
      { authorization },
    );
    const notAllowedError = expectError(notAllowed, 400, 'invalid_scope');
    expect(notAllowedError.message).toMatch(/webhooks\.manage not allowed for this client/);
    expect(notAllowedError.message).not.toMatch(/envelopes\.read not allowed/);
  });

  it('refuses an expired secret', async () => {
    const client = await newClient();
    await sql(
      "update oauth_client_secret set expires_at = now() - interval '1 second' where oauth_client_id = ?",
      [client.id],
    );
    const response = await tokenRequest(
      { grant_type: 'client_credentials' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    expectError(response, 401, 'invalid_client');
  });

  it('refuses an organization whose API flag is off, and a plan without API access', async () => {
    const client = await newClient();
    await sql('update organization set api_enabled = false where id = ?', [client.organizationId]);
    const off = await tokenRequest(
      { grant_type: 'client_credentials' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    expect(expectError(off, 403, 'forbidden').message).toMatch(
      /API access is disabled for this organization/,
    );
    expect(off.headers['cache-control']).toBe('no-store');

    // A client is made only with API access: a Business client, then a downgrade to Starter that kept the flag
    // (a Starter organization cannot be created with the API on).
    const starterClient = await newClient();
    await sql("update organization set plan_name = 'Starter' where id = ?", [starterClient.organizationId]);
    const noPlan = await tokenRequest(
      { grant_type: 'client_credentials' },
      { authorization: basic(starterClient.clientId, starterClient.clientSecret) },
    );
    expect(expectError(noPlan, 403, 'forbidden').message).toMatch(
      /The Starter plan does not include API access/,
    );
  });
});

describe('secret rotation', () => {
  it('allows two active secrets, refuses a third, and a deleted secret stops working', async () => {
    const client = await newClient();
    const ctx = servicesOn(orm);
    const second = await rotateClientSecret(ctx, {
      organizationId: client.organizationId,
      client: client.clientId,
    });
    expect(second.clientSecret).toMatch(/^[\w-]{43}$/);
    expect(second.expiresAt.getTime()).toBeGreaterThan(Date.now() + 364 * 24 * 3600_000);
    // Both secrets work.
    await accessToken(client);
    await accessToken({ clientId: client.clientId, clientSecret: second.clientSecret });

    const third = rotateClientSecret(ctx, { organizationId: client.organizationId, client: client.id });
    await expect(third).rejects.toMatchObject({
      status: 409,
      code: 'secret_limit',
      message: expect.stringMatching(/already has two active secrets; delete one first/),
    });

    const [listed] = await listOAuthClients(ctx, client.organizationId);
    expect(listed?.secrets.map((s) => s.hint)).toEqual([
      client.clientSecret.slice(-4),
      second.clientSecret.slice(-4),
    ]);
    expect(listed?.secrets.every((s) => !s.expiresSoon)).toBe(true);
    const first = listed?.secrets[0];
    if (!first) throw new Error('expected the first secret');

    const deleted = await deleteClientSecret(ctx, {
      organizationId: client.organizationId,
      client: client.clientId,
      secretId: first.id,
    });
    expect(deleted).toMatchObject({ secretId: first.id, clientId: client.clientId, activeSecrets: 1 });
    const [deletedRow] = await sql<{ deleted_at: Date | null }>(
      'select deleted_at from oauth_client_secret where id = ?',
      [first.id],
    );
    expect(deletedRow?.deleted_at).not.toBeNull();

    const old = await tokenRequest(
      { grant_type: 'client_credentials' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    expectError(old, 401, 'invalid_client');
    await accessToken({ clientId: client.clientId, clientSecret: second.clientSecret });

    // With one secret deleted, rotating is allowed again.
    const again = await rotateClientSecret(ctx, { organizationId: client.organizationId, client: client.id });
    await accessToken({ clientId: client.clientId, clientSecret: again.clientSecret });

    // Deleting twice, another organization's client, an unknown secret: not found.
    await expect(
      deleteClientSecret(ctx, {
        organizationId: client.organizationId,
        client: client.id,
        secretId: first.id,
      }),
    ).rejects.toMatchObject({ status: 404 });
    const other = await newClient();
    await expect(
      rotateClientSecret(ctx, { organizationId: other.organizationId, client: client.clientId }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      deleteClientSecret(ctx, { organizationId: client.organizationId, client: client.id, secretId: 'nope' }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('allows deleting the last active secret, after which no token is issued; flags secrets expiring soon', async () => {
    const client = await newClient();
    const ctx = servicesOn(orm);
    const [listed] = await listOAuthClients(ctx, client.organizationId);
    const only = listed?.secrets[0];
    if (!only) throw new Error('expected one secret');
    await sql("update oauth_client_secret set expires_at = now() + interval '10 days' where id = ?", [
      only.id,
    ]);
    const [soon] = await listOAuthClients(ctx, client.organizationId);
    expect(soon?.secrets[0]?.expiresSoon).toBe(true);

    const deleted = await deleteClientSecret(ctx, {
      organizationId: client.organizationId,
      client: client.id,
      secretId: only.id,
    });
    expect(deleted.activeSecrets).toBe(0);
    const [after] = await listOAuthClients(ctx, client.organizationId);
    expect(after?.secrets).toEqual([]);
    const refused = await tokenRequest(
      { grant_type: 'client_credentials' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    expectError(refused, 401, 'invalid_client');
  });
});

describe('sigil client rotate-secret / delete-secret / list / update / delete', () => {
  const CLI = fileURLToPath(new URL('../../api/cli/sigil.ts', import.meta.url));
  function sigil(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [CLI, ...args],
        { env: { ...process.env, DATABASE_URL: inject('databaseUrl') } },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  it('rotates, lists and deletes secrets, printing the new secret once', async () => {
    const client = await newClient();
    const org = client.organizationId;
    const rotated = await sigil([
      'client',
      'rotate-secret',
      '--org',
      org,
      '--client',
      client.clientId,
      '--json',
    ]);
    expect(rotated.stderr).toBe('');
    expect(rotated.code).toBe(0);
    const secret = JSON.parse(rotated.stdout);
    expect(Object.keys(secret).sort()).toEqual(['client_secret', 'expires_at', 'secret_id']);
    await accessToken({ clientId: client.clientId, clientSecret: secret.client_secret });

    const third = await sigil(['client', 'rotate-secret', '--org', org, '--client', client.id]);
    expect(third.code).toBe(1);
    expect(third.stderr).toMatch(/already has two active secrets; delete one first/);

    const listed = await sigil(['client', 'list', '--org', org, '--json']);
    expect(listed.code).toBe(0);
    const [entry] = JSON.parse(listed.stdout);
    expect(entry).toMatchObject({ id: client.id, client_id: client.clientId });
    expect(entry.secrets.map((s: { id: string }) => s.id)).toContain(secret.secret_id);
    expect(listed.stdout).not.toContain(secret.client_secret);
    const oldId = entry.secrets.find((s: { id: string }) => s.id !== secret.secret_id).id;
    const oldToken = await accessToken(client);
    const newToken = await accessToken({ clientId: client.clientId, clientSecret: secret.client_secret });
    expect((await callApi(oldToken)).statusCode).toBe(200);

    const deleted = await sigil([
      'client',
      'delete-secret',
      '--org',
      org,
      '--client',
      client.id,
      '--secret',
      oldId,
    ]);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toMatch(new RegExp(`secret ${oldId} of OAuth client ${client.clientId} deleted`));
    expect(deleted.stdout).toMatch(/access tokens revoked: 1\n/);
    expect(deleted.stdout).toMatch(/active secrets left: 1/);
    // The deleted secret's token is revoked at once; the other secret's keeps working.
    expectError(await callApi(oldToken), 401, 'unauthorized');
    expect((await callApi(newToken)).statusCode).toBe(200);
    const old = await tokenRequest(
      { grant_type: 'client_credentials' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    expectError(old, 401, 'invalid_client');

    const text = await sigil(['client', 'rotate-secret', '--org', org, '--client', client.clientId]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/client_secret {2}[\w-]{43}\n/);
    expect(text.stdout).toMatch(/shown only now/);

    const json = await sigil([
      'client',
      'delete-secret',
      '--org',
      org,
      '--client',
      client.id,
      '--secret',
      secret.secret_id,
      '--json',
    ]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      secret_id: secret.secret_id,
      client_id: client.clientId,
      deleted_at: expect.any(String),
      active_secrets: 1,
      // newToken and the one obtained right after the rotation.
      revoked_tokens: 2,
    });
    expectError(await callApi(newToken), 401, 'unauthorized');

    const missing = await sigil(['client', 'delete-secret', '--org', org, '--client', client.id, '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout)).toEqual({
      error: { code: 'invalid_request', message: '--secret is required.', details: [] },
    });
  });

  it('updates a client (only what is given) and deletes it, with the services of PUT and DELETE /api/api-keys/{id}', async () => {
    const client = await newClient({ ipAllowlist: ['127.0.0.1'] });
    const org = client.organizationId;
    const token = await accessToken(client);
    expect((await callApi(token)).statusCode).toBe(200);

    const renamed = await sigil([
      'client',
      'update',
      '--org',
      org,
      '--client',
      client.clientId,
      '--name',
      'Renamed ERP',
      '--scopes',
      'envelopes.read templates.read',
      '--json',
    ]);
    expect(renamed.stderr).toBe('');
    expect(renamed.code).toBe(0);
    expect(JSON.parse(renamed.stdout)).toEqual({
      id: client.id,
      client_id: client.clientId,
      name: 'Renamed ERP',
      scopes: ['envelopes.read', 'templates.read'],
      // Not given: unchanged.
      ip_allowlist: ['127.0.0.1'],
    });
    // The live token lost organization.read at once.
    expectError(await callApi(token), 403, 'forbidden');

    const refusedLine = await sigil([
      'client',
      'update',
      '--org',
      org,
      '--client',
      client.id,
      '--allowlist',
      '10.0.0.0/33',
    ]);
    expect(refusedLine.code).toBe(1);
    expect(refusedLine.stderr).toMatch(/invalid prefix length/);

    const widened = await sigil([
      'client',
      'update',
      '--org',
      org,
      '--client',
      client.id,
      '--scopes',
      'organization.read',
      '--allowlist',
      '',
    ]);
    expect(widened.code).toBe(0);
    expect(widened.stdout).toMatch(/OAuth client .* \(Renamed ERP\) updated/);
    expect(widened.stdout).toMatch(/IP allowlist {3}\(any source\)/);
    const [listed] = await listOAuthClients(servicesOn(orm), org);
    expect(listed).toMatchObject({ name: 'Renamed ERP', scopes: ['organization.read'], ipAllowlist: [] });
    expect((await callApi(token)).statusCode).toBe(200);

    const unknown = await sigil(['client', 'update', '--org', org, '--client', 'sigil_nope', '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error.code).toBe('not_found');

    const deleted = await sigil(['client', 'delete', '--org', org, '--client', client.clientId, '--json']);
    expect(deleted.code).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({
      id: client.id,
      client_id: client.clientId,
      revoked_tokens: 1,
    });
    expectError(await callApi(token), 401, 'unauthorized');
    expect(await listOAuthClients(servicesOn(orm), org)).toEqual([]);
    const again = await sigil(['client', 'delete', '--org', org, '--client', client.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/was not found/);
  });
});

/** The 401 of a token the server does not know, to compare a revoked token's refusal with. */
async function unknownTokenRefusal() {
  const response = await callApi('never-issued-token');
  const error = expectError(response, 401, 'unauthorized');
  return { message: error.message, challenge: response.headers['www-authenticate'] };
}

/** A revoked token is refused exactly like one that never existed. */
async function expectRefusedLikeUnknown(token: string) {
  const response = await callApi(token);
  const error = expectError(response, 401, 'unauthorized');
  expect({ message: error.message, challenge: response.headers['www-authenticate'] }).toEqual(
    await unknownTokenRefusal(),
  );
}

async function secretIds(client: { id: string; organizationId: string }): Promise<string[]> {
  const listed = await listOAuthClients(servicesOn(orm), client.organizationId);
  return listed.find((entry) => entry.id === client.id)?.secrets.map((secret) => secret.id) ?? [];
}

describe('tokens end with their secret or client', () => {
  it('revokes the tokens of a deleted secret, and only those', async () => {
    const client = await newClient();
    const ctx = servicesOn(orm);
    const second = await rotateClientSecret(ctx, {
      organizationId: client.organizationId,
      client: client.id,
    });
    const [firstId, secondId] = await secretIds(client);
    const tokenA1 = await accessToken(client);
    const tokenA2 = await accessToken(client);
    const tokenB = await accessToken({ clientId: client.clientId, clientSecret: second.clientSecret });
    const [row] = await sql<{ oauth_client_secret_id: string; revoked_at: Date | null }>(
      'select oauth_client_secret_id, revoked_at from oauth_access_token where token_hash = ?',
      [sha256Hex(tokenB)],
    );
    expect(row).toEqual({ oauth_client_secret_id: secondId, revoked_at: null });
    for (const token of [tokenA1, tokenA2, tokenB]) expect((await callApi(token)).statusCode).toBe(200);

    // Deleting secret B revokes B's token; A's keep working.
    const deletedB = await deleteClientSecret(ctx, {
      organizationId: client.organizationId,
      client: client.id,
      secretId: secondId ?? '',
    });
    expect(deletedB).toMatchObject({ activeSecrets: 1, revokedTokens: 1 });
    await expectRefusedLikeUnknown(tokenB);
    expect((await callApi(tokenA1)).statusCode).toBe(200);
    expect((await callApi(tokenA2)).statusCode).toBe(200);
    const [revoked] = await sql<{ revoked_at: Date | null }>(
      'select revoked_at from oauth_access_token where token_hash = ?',
      [sha256Hex(tokenB)],
    );
    expect(new Date(revoked?.revoked_at as Date).getTime()).toBe(deletedB.deletedAt.getTime());

    // Deleting the last secret revokes the rest.
    const deletedA = await deleteClientSecret(ctx, {
      organizationId: client.organizationId,
      client: client.clientId,
      secretId: firstId ?? '',
    });
    expect(deletedA).toMatchObject({ activeSecrets: 0, revokedTokens: 2 });
    await expectRefusedLikeUnknown(tokenA1);
    await expectRefusedLikeUnknown(tokenA2);
  });

  it('revokes tokens of unknown origin (issued before tokens recorded their secret) with any secret of the client', async () => {
    const client = await newClient();
    const ctx = servicesOn(orm);
    const second = await rotateClientSecret(ctx, {
      organizationId: client.organizationId,
      client: client.id,
    });
    const [, secondId] = await secretIds(client);
    const legacy = await accessToken(client);
    await sql('update oauth_access_token set oauth_client_secret_id = null where token_hash = ?', [
      sha256Hex(legacy),
    ]);
    const kept = await accessToken(client);
    const other = await newClient();
    const otherToken = await accessToken(other);
    await sql('update oauth_access_token set oauth_client_secret_id = null where token_hash = ?', [
      sha256Hex(otherToken),
    ]);

    const deleted = await deleteClientSecret(ctx, {
      organizationId: client.organizationId,
      client: client.id,
      secretId: secondId ?? '',
    });
    expect(deleted.revokedTokens).toBe(1);
    await expectRefusedLikeUnknown(legacy);
    expect((await callApi(kept)).statusCode).toBe(200);
    // Another client's tokens are not touched.
    expect((await callApi(otherToken)).statusCode).toBe(200);
    // The remaining secret still authenticates; the deleted one does not.
    await accessToken({ clientId: client.clientId, clientSecret: client.clientSecret });
    expectError(
      await tokenRequest(
        { grant_type: 'client_credentials' },
        { authorization: basic(client.clientId, second.clientSecret) },
      ),
      401,
      'invalid_client',
    );
  });

  it('issues no token with a secret whose deletion is under way, and leaves none alive', async () => {
    const client = await newClient();
    const [secretId] = await secretIds(client);
    // A deletion in progress: the secret is marked deleted and its tokens revoked, not yet committed.
    const deletion = orm.em.fork();
    await deletion.begin();
    try {
      await deletion.execute('update oauth_client_secret set deleted_at = now() where id = ?', [secretId]);
      const pending = tokenRequest(
        { grant_type: 'client_credentials' },
        { authorization: basic(client.clientId, client.clientSecret) },
      );
      // The request authenticates against the committed secret, then must wait for the deletion.
      const first = await Promise.race([
        pending.then(() => 'answered' as const),
        waitForLockedTokenIssue().then(() => 'waiting' as const),
      ]);
      expect(first).toBe('waiting');
      await deletion.execute(
        'update oauth_access_token set revoked_at = now() where oauth_client_secret_id = ? and revoked_at is null',
        [secretId],
      );
      await deletion.commit();
      const response = await pending;
      expect(expectError(response, 401, 'invalid_client').message).toBe(
        'Client authentication failed: unknown client or invalid client secret.',
      );
    } finally {
      if (deletion.isInTransaction()) await deletion.rollback();
    }
    const tokens = await sql<{ revoked_at: Date | null }>(
      'select revoked_at from oauth_access_token where oauth_client_id = ? and revoked_at is null',
      [client.id],
    );
    expect(tokens).toEqual([]);
  });

  it('deleting a client removes its tokens and secrets; its other organization’s clients are untouched', async () => {
    const client = await newClient();
    const sibling = await newClient({ organizationId: client.organizationId });
    const token = await accessToken(client);
    const siblingToken = await accessToken(sibling);
    await sql("update oauth_access_token set expires_at = now() - interval '1 second' where token_hash = ?", [
      sha256Hex(await accessToken(client)),
    ]);
    const ctx = servicesOn(orm);

    const stranger = await newClient();
    await expect(
      deleteOAuthClient(ctx, { organizationId: stranger.organizationId, client: client.id }),
    ).rejects.toMatchObject({ status: 404 });

    const deleted = await deleteOAuthClient(ctx, {
      organizationId: client.organizationId,
      client: client.clientId,
    });
    // The expired token is not counted as revoked.
    expect(deleted).toEqual({ id: client.id, clientId: client.clientId, revokedTokens: 1 });
    await expectRefusedLikeUnknown(token);
    expectError(
      await tokenRequest(
        { grant_type: 'client_credentials' },
        { authorization: basic(client.clientId, client.clientSecret) },
      ),
      401,
      'invalid_client',
    );
    const [left] = await sql<{ tokens: string; secrets: string }>(
      `select (select count(*) from oauth_access_token where oauth_client_id = ?) as tokens,
              (select count(*) from oauth_client_secret where oauth_client_id = ?) as secrets`,
      [client.id, client.id],
    );
    expect(left).toEqual({ tokens: '0', secrets: '0' });
    expect((await callApi(siblingToken)).statusCode).toBe(200);
    await expect(
      deleteOAuthClient(ctx, { organizationId: client.organizationId, client: client.id }),
    ).rejects.toMatchObject({ status: 404 });
  });
});

/** Resolves once a token request waits for a row lock on a client secret (the deletion holds it). */
async function waitForLockedTokenIssue(): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const [row] = await sql<{ waiting: string }>(
      `select count(*) as waiting from pg_stat_activity
        where wait_event_type = 'Lock' and query ilike '%oauth_client_secret%' and query ilike '%for share%'`,
    );
    if (Number(row?.waiting) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no token request waited for the secret’s row lock within 5 seconds');
}

function revokeRequest(
  form: Record<string, string>,
  options: { authorization?: string; target?: FastifyInstance; remoteAddress?: string } = {},
) {
  return (options.target ?? app).inject({
    method: 'POST',
    url: '/oauth/revoke',
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
    headers: {
      'content-type': FORM,
      ...(options.authorization ? { authorization: options.authorization } : {}),
    },
    payload: new URLSearchParams(form).toString(),
  });
}

describe('POST /oauth/revoke (RFC 7009)', () => {
  it('revokes the client’s own token, authenticated by HTTP Basic or by form fields', async () => {
    const client = await newClient();
    const byBasic = await accessToken(client);
    const byForm = await accessToken(client);
    const untouched = await accessToken(client);

    const basicResponse = await revokeRequest(
      { token: byBasic, token_type_hint: 'access_token' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    expect(basicResponse.statusCode, basicResponse.body).toBe(200);
    expect(basicResponse.body).toBe('');
    expect(basicResponse.headers['cache-control']).toBe('no-store');
    await expectRefusedLikeUnknown(byBasic);
    expect((await callApi(byForm)).statusCode).toBe(200);

    // A hint that names another type does not stop the search (RFC 7009 §2.1).
    const formResponse = await revokeRequest({
      token: byForm,
      token_type_hint: 'refresh_token',
      client_id: client.clientId,
      client_secret: client.clientSecret,
    });
    expect(formResponse.statusCode, formResponse.body).toBe(200);
    await expectRefusedLikeUnknown(byForm);
    expect((await callApi(untouched)).statusCode).toBe(200);

    // Revoking again, or a token never issued: 200 all the same.
    const again = await revokeRequest(
      { token: byForm },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    expect(again.statusCode).toBe(200);
    const unknown = await revokeRequest(
      { token: 'never-issued-token' },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    expect(unknown.statusCode).toBe(200);
    expect(unknown.body).toBe('');
  });

  it('answers 200 for another client’s token and leaves it working', async () => {
    const client = await newClient();
    const other = await newClient({ organizationId: client.organizationId });
    const foreign = await accessToken(other);
    const response = await revokeRequest(
      { token: foreign },
      { authorization: basic(client.clientId, client.clientSecret) },
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.body).toBe('');
    expect((await callApi(foreign)).statusCode).toBe(200);
    const [row] = await sql<{ revoked_at: Date | null }>(
      'select revoked_at from oauth_access_token where token_hash = ?',
      [sha256Hex(foreign)],
    );
    expect(row?.revoked_at).toBeNull();
  });

  it('refuses a client that does not authenticate, like the token endpoint, and revokes nothing', async () => {
    const client = await newClient();
    const token = await accessToken(client);
    const wrongBasic = await revokeRequest({ token }, { authorization: basic(client.clientId, 'wrong') });
    const basicError = expectError(wrongBasic, 401, 'invalid_client');
    expect(wrongBasic.headers['www-authenticate']).toBe('Basic realm="sigil"');
    expect(wrongBasic.headers['cache-control']).toBe('no-store');

    const wrongForm = await revokeRequest({ token, client_id: client.clientId, client_secret: 'wrong' });
    expect(expectError(wrongForm, 401, 'invalid_client').message).toBe(basicError.message);
    expect(wrongForm.headers['www-authenticate']).toBeUndefined();

    const unknownClient = await revokeRequest({
      token,
      client_id: 'sigil_doesnotexist',
      client_secret: client.clientSecret,
    });
    expect(expectError(unknownClient, 401, 'invalid_client').message).toBe(basicError.message);
    // The token of the client whose id was used is still good.
    expect((await callApi(token)).statusCode).toBe(200);

    const none = await revokeRequest({ token });
    expect(expectError(none, 400, 'invalid_request').message).toMatch(/Client authentication is required/);
    const noToken = await revokeRequest({}, { authorization: basic(client.clientId, client.clientSecret) });
    expect(expectError(noToken, 400, 'invalid_request').message).toMatch(/token is required/);
    const json = await app.inject({
      method: 'POST',
      url: '/oauth/revoke',
      headers: { authorization: basic(client.clientId, client.clientSecret) },
      payload: { token },
    });
    expect(expectError(json, 400, 'invalid_request').message).toMatch(/x-www-form-urlencoded/);
    expect((await callApi(token)).statusCode).toBe(200);
  });

  it('checks the client’s IP allowlist after authenticating it', async () => {
    const client = await newClient({ ipAllowlist: ['10.1.2.0/24'] });
    const token = await accessToken(client, undefined, '10.1.2.9');
    const refused = await revokeRequest(
      { token },
      { authorization: basic(client.clientId, client.clientSecret), remoteAddress: '10.1.3.9' },
    );
    expect(expectError(refused, 403, 'forbidden').message).toContain(
      'Requests from 10.1.3.9 are not allowed',
    );
    expect((await callApi(token, { remoteAddress: '10.1.2.9' })).statusCode).toBe(200);
    const revoked = await revokeRequest(
      { token },
      { authorization: basic(client.clientId, client.clientSecret), remoteAddress: '10.1.2.9' },
    );
    expect(revoked.statusCode).toBe(200);
    expect((await callApi(token, { remoteAddress: '10.1.2.9' })).statusCode).toBe(401);
  });

  it('shares the token endpoint’s per-address limit', async () => {
    const limited = createServer({ logger });
    const api = { ...config.api, tokenRatePerMinute: 3 };
    const deps: AppDependencies = {
      config: { ...config, api },
      orm,
      temporal: {} as AppDependencies['temporal'],
      logger,
    };
    registerRequestContext(limited, deps);
    await limited.register(oauthTokenRoutes, deps);
    const client = await newClient();
    const authorization = basic(client.clientId, client.clientSecret);
    const remoteAddress = '203.0.113.91';
    const issued = await tokenRequest(
      { grant_type: 'client_credentials' },
      { authorization, target: limited, remoteAddress },
    );
    expect(issued.statusCode).toBe(200);
    const token = issued.json().access_token;
    expect(
      (await revokeRequest({ token: 'x' }, { authorization, target: limited, remoteAddress })).statusCode,
    ).toBe(200);
    expect(
      (
        await revokeRequest(
          { token: 'y' },
          { authorization: basic(client.clientId, 'wrong'), target: limited, remoteAddress },
        )
      ).statusCode,
    ).toBe(401);
    const over = await revokeRequest({ token }, { authorization, target: limited, remoteAddress });
    expectError(over, 429, 'rate_limited');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expectError(
      await tokenRequest(
        { grant_type: 'client_credentials' },
        { authorization, target: limited, remoteAddress },
      ),
      429,
      'rate_limited',
    );
    // Refused before anything was checked: the token still works.
    expect((await callApi(token)).statusCode).toBe(200);
    await limited.close();
  });
});

describe('bearer tokens on /api/v1', () => {
  it('requires a token: missing, malformed, unknown and expired tokens get 401 with a Bearer challenge', async () => {
    const missing = await callApi(undefined);
    expect(expectError(missing, 401, 'unauthorized').message).toMatch(/Missing access token/);
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="sigil"');

    const wrongScheme = await callApi(undefined, {}, { authorization: 'Basic abc' });
    expectError(wrongScheme, 401, 'unauthorized');
    expect(wrongScheme.headers['www-authenticate']).toBe('Bearer realm="sigil"');

    const malformed = await callApi(undefined, {}, { authorization: 'Bearer a b' });
    expectError(malformed, 401, 'unauthorized');
    expect(malformed.headers['www-authenticate']).toMatch(/^Bearer realm="sigil", error="invalid_token"/);

    const unknown = await callApi('not-a-real-token');
    expectError(unknown, 401, 'unauthorized');
    expect(unknown.headers['www-authenticate']).toMatch(/^Bearer realm="sigil", error="invalid_token"/);

    const client = await newClient();
    const token = await accessToken(client);
    expect((await callApi(token)).statusCode).toBe(200);
    await sql("update oauth_access_token set expires_at = now() - interval '1 second' where token_hash = ?", [
      sha256Hex(token),
    ]);
    const expired = await callApi(token);
    expect(expectError(expired, 401, 'unauthorized').message).toMatch(/expired/);
    expect(expired.headers['www-authenticate']).toMatch(/error="invalid_token"/);
  });

  it('refuses an existing token once the API flag is off or the plan loses API access', async () => {
    const client = await newClient();
    const token = await accessToken(client);
    expect((await callApi(token)).statusCode).toBe(200);

    await sql('update organization set api_enabled = false where id = ?', [client.organizationId]);
    expect(expectError(await callApi(token), 403, 'forbidden').message).toMatch(/API access is disabled/);

    await sql("update organization set api_enabled = true, plan_name = 'Starter' where id = ?", [
      client.organizationId,
    ]);
    expect(expectError(await callApi(token), 403, 'forbidden').message).toMatch(
      /The Starter plan does not include API access/,
    );
  });

  it('checks the IP allowlist with IPv4, IPv6 and CIDR entries', async () => {
    const client = await newClient({ ipAllowlist: ['10.1.2.3', '192.168.0.0/16', '2001:db8::/32'] });
    const token = await accessToken(client, undefined, '10.1.2.3');
    for (const remoteAddress of ['10.1.2.3', '192.168.40.2', '2001:db8::5', '::ffff:10.1.2.3']) {
      const response = await callApi(token, { remoteAddress });
      expect(response.statusCode, `${remoteAddress}: ${response.body}`).toBe(200);
    }
    for (const remoteAddress of ['10.1.2.4', '172.16.0.1', '2001:db9::1']) {
      const response = await callApi(token, { remoteAddress });
      const error = expectError(response, 403, 'forbidden');
      expect(error.message).toContain(`Requests from ${remoteAddress} are not allowed`);
    }
    // An empty allowlist accepts any source.
    const open = await newClient();
    expect((await callApi(await accessToken(open), { remoteAddress: '203.0.113.7' })).statusCode).toBe(200);
  });

  it('throttles token requests per source address before checking any secret', async () => {
    const limited = createServer({ logger });
    const api = { ...config.api, tokenRatePerMinute: 3 };
    const deps: AppDependencies = {
      config: { ...config, api },
      orm,
      temporal: {} as AppDependencies['temporal'],
      logger,
    };
    registerRequestContext(limited, deps);
    await limited.register(oauthTokenRoutes, deps);
    const client = await newClient();
    const form = { grant_type: 'client_credentials' };
    const attempt = (secret: string) =>
      tokenRequest(form, {
        authorization: basic(client.clientId, secret),
        target: limited,
        remoteAddress: '203.0.113.77',
      });
    expect((await attempt('wrong')).statusCode).toBe(401);
    expect((await attempt('wrong')).statusCode).toBe(401);
    const third = await attempt(client.clientSecret);
    expect(third.statusCode).toBe(200);
    expect(third.headers['ratelimit-remaining']).toBe('0');
    const fourth = await attempt(client.clientSecret);
    expectError(fourth, 429, 'rate_limited');
    expect(Number(fourth.headers['retry-after'])).toBeGreaterThan(0);
    // Another address has its own allowance.
    const elsewhere = await tokenRequest(form, {
      authorization: basic(client.clientId, client.clientSecret),
      target: limited,
      remoteAddress: '203.0.113.78',
    });
    expect(elsewhere.statusCode).toBe(200);
    await limited.close();
  });

  it('checks the IP allowlist at the token endpoint too, after authenticating the client', async () => {
    const client = await newClient({ ipAllowlist: ['10.1.2.0/24'] });
    const form = { grant_type: 'client_credentials' };
    const allowed = await tokenRequest(form, {
      authorization: basic(client.clientId, client.clientSecret),
      remoteAddress: '10.1.2.9',
    });
    expect(allowed.statusCode).toBe(200);
    const refused = await tokenRequest(form, {
      authorization: basic(client.clientId, client.clientSecret),
      remoteAddress: '10.1.3.9',
    });
    expect(expectError(refused, 403, 'forbidden').message).toContain(
      'Requests from 10.1.3.9 are not allowed',
    );
    // A stranger with a wrong secret learns nothing about the allowlist.
    const stranger = await tokenRequest(form, {
      authorization: basic(client.clientId, 'wrong'),
      remoteAddress: '10.1.3.9',
    });
    expectError(stranger, 401, 'invalid_client');
  });

  it('believes X-Forwarded-For only from a trusted proxy', async () => {
    const client = await newClient({ ipAllowlist: ['10.1.2.3'] });
    const token = await accessToken(client, undefined, '10.1.2.3');

    // Behind the trusted proxy 127.0.0.1 (light-my-request's default peer), the forwarded address counts.
    const viaProxy = await callApi(token, { target: proxiedApp }, { 'x-forwarded-for': '10.1.2.3' });
    expect(viaProxy.statusCode, viaProxy.body).toBe(200);
    const otherViaProxy = await callApi(token, { target: proxiedApp }, { 'x-forwarded-for': '10.9.9.9' });
    expect(expectError(otherViaProxy, 403, 'forbidden').message).toContain('Requests from 10.9.9.9');

    // Without trusted proxies, the header is ignored: the peer address is checked.
    const spoofed = await callApi(token, {}, { 'x-forwarded-for': '10.1.2.3' });
    expect(expectError(spoofed, 403, 'forbidden').message).toContain('Requests from 127.0.0.1');
    // And an untrusted peer cannot use the trusted app's header either.
    const untrustedPeer = await callApi(
      token,
      { target: proxiedApp, remoteAddress: '198.51.100.1' },
      { 'x-forwarded-for': '10.1.2.3' },
    );
    expect(expectError(untrustedPeer, 403, 'forbidden').message).toContain('Requests from 198.51.100.1');
  });

  it('records per-minute request statistics and the client’s last use', async () => {
    const client = await newClient({ scopes: ['organization.read', 'envelopes.write'] });
    const token = await accessToken(client);
    const narrow = await accessToken(client, 'organization.read');
    const [before] = await sql<{ last_used_at: Date | null; request_count: string }>(
      'select last_used_at, request_count from oauth_client where id = ?',
      [client.id],
    );
    expect(Number(before?.request_count)).toBe(0);

    expect((await callApi(token)).statusCode).toBe(200);
    expect((await callApi(token, { method: 'POST', url: '/api/v1/envelopes/e1/send' })).statusCode).toBe(200);
    expectError(
      await callApi(token, { method: 'POST', url: '/api/v1/envelopes/missing/send' }),
      404,
      'not_found',
    );
    expectError(
      await callApi(token, { method: 'POST', url: '/api/v1/envelopes/throttled/send' }),
      429,
      'rate_limited',
    );
    // A refusal after authentication counts against the client too; a 401 cannot be attributed.
    expectError(
      await callApi(narrow, { method: 'POST', url: '/api/v1/envelopes/e2/send' }),
      403,
      'forbidden',
    );
    expectError(await callApi('unknown-token'), 401, 'unauthorized');

    await expect
      .poll(async () => {
        const [stats] = await sql<{ requests: string; errors: string; rate_limited: string }>(
          `select sum(requests) as requests, sum(errors) as errors, sum(rate_limited) as rate_limited
             from api_request_stat where oauth_client_id = ?`,
          [client.id],
        );
        const [row] = await sql<{ request_count: string; error_count: string; last_used_at: Date | null }>(
          'select request_count, error_count, last_used_at from oauth_client where id = ?',
          [client.id],
        );
        return {
          requests: Number(stats?.requests),
          errors: Number(stats?.errors),
          rateLimited: Number(stats?.rate_limited),
          requestCount: Number(row?.request_count),
          errorCount: Number(row?.error_count),
          lastUsed: row?.last_used_at ? new Date(row.last_used_at).getTime() : 0,
        };
      })
      .toEqual({
        requests: 5,
        errors: 3,
        rateLimited: 1,
        requestCount: 5,
        errorCount: 3,
        lastUsed: expect.any(Number),
      });

    const [minute] = await sql<{ minute: Date }>(
      'select minute from api_request_stat where oauth_client_id = ? order by minute desc limit 1',
      [client.id],
    );
    expect(new Date(minute?.minute as Date).getUTCSeconds()).toBe(0);
    const [listed] = await listOAuthClients(servicesOn(orm), client.organizationId);
    expect(listed).toMatchObject({ requestCount: 5, errorCount: 3, lastUsedAt: expect.any(Date) });
  });

  it('writes the statistics of many requests in one statement, and what is still counted when the app closes', async () => {
    const client = await newClient();
    let statements = 0;
    const counting = await createOrm({
      databaseUrl: inject('databaseUrl'),
      poolMax: 2,
      onQuery: (query) => {
        if (/insert into api_request_stat/i.test(query)) statements += 1;
      },
    });
    /** A server whose requests are the client's, with the statistics flushed every `flushIntervalMs`. */
    const serverCounting = async (flushIntervalMs: number) => {
      const server = createServer({ logger });
      server.addHook('onRequest', async (request) => {
        request.principal = {
          organizationId: client.organizationId,
          oauthClientId: client.id,
          clientId: client.clientId,
          scopes: [],
        };
      });
      const stats = createRequestStats({ orm: counting }, { flushIntervalMs });
      server.addHook('onResponse', stats.record);
      server.addHook('onClose', () => stats.flush());
      server.get('/ok', async () => ({ ok: true }));
      server.get('/missing', async () => {
        throw new NotFound('Nothing here.');
      });
      await server.ready();
      return server;
    };
    const counted = async () => {
      const [row] = await sql<{ requests: string | null; errors: string | null }>(
        'select sum(requests) as requests, sum(errors) as errors from api_request_stat where oauth_client_id = ?',
        [client.id],
      );
      return { requests: Number(row?.requests ?? 0), errors: Number(row?.errors ?? 0) };
    };
    try {
      // A flush interval longer than the test: nothing is written until the app closes, then one statement.
      const quiet = await serverCounting(60_000);
      for (let i = 0; i < 40; i++)
        await quiet.inject({ method: 'GET', url: i % 4 === 0 ? '/missing' : '/ok' });
      expect(statements).toBe(0);
      expect(await counted()).toEqual({ requests: 0, errors: 0 });
      await quiet.close();
      expect(statements).toBe(1);
      expect(await counted()).toEqual({ requests: 40, errors: 10 });

      // A short interval: a burst of 60 concurrent requests lands within it in a statement or two.
      const busy = await serverCounting(50);
      await Promise.all(Array.from({ length: 60 }, () => busy.inject({ method: 'GET', url: '/ok' })));
      await expect.poll(counted).toEqual({ requests: 100, errors: 10 });
      expect(statements).toBeLessThanOrEqual(3);
      await busy.close();
      const [row] = await sql<{ request_count: string; error_count: string }>(
        'select request_count, error_count from oauth_client where id = ?',
        [client.id],
      );
      expect({ requests: Number(row?.request_count), errors: Number(row?.error_count) }).toEqual({
        requests: 100,
        errors: 10,
      });
    } finally {
      await counting.close();
    }
  });
});

// The Integrations area's API keys (docs/integrations.md) through HTTP with signed-in sessions on real PostgreSQL:
// a key made with POST /api/api-keys shows its secret once — in that answer, never in the list — and that
// secret obtains a token at POST /oauth/token (HTTP Basic) which opens /api/v1; at most two active secrets (a
// third rotation is 409 naming what to do), a deleted secret stops authenticating and its tokens stop working;
// every IP allowlist line refused with its reason (`body.ipAllowlist.<n>`); a change of scopes and allowlist
// applies to live tokens at once; the request figures (24 hours, 7 days), error rate and rate-limit state;
// integrations:read and integrations:manage; another organization's key not found and unchanged; and without
// API access (the plan's, or the organization's flag) no key or secret is made, with a message saying why.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuthAccessToken, OAuthClient, OAuthClientSecret, Organization } from '../../db/entities/index.ts';
import { windowFor } from '../../services/usage/rate-limit-policy.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError } from '../support/app-requests.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
/** An administrator of an organization with API access; its member and a role that may only read keys. */
let admin: SignedInUser;
let member: SignedInUser;
let reader: SignedInUser;
/** An owner of another organization with API access. */
let stranger: SignedInUser;

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

beforeAll(async () => {
  harness = await openApiHarness();
  admin = await signedInUser(harness, { role: 'administrator', apiEnabled: true });
  const organizationId = admin.organization.id;
  member = await signedInUser(harness, { role: 'member', organizationId });
  const role = await callAs(harness.app, admin, 'POST', '/api/roles', {
    name: 'Integration viewers',
    permissions: ['integrations:read'],
  });
  reader = await signedInUser(harness, { role: role.id, organizationId });
  stranger = await signedInUser(harness, { role: 'owner', apiEnabled: true });
});
afterAll(() => harness?.close());

interface Secret {
  id: string;
  hint: string;
  createdAt: string;
  expiresAt: string;
  expiresSoon: boolean;
}
interface ApiKey {
  id: string;
  clientId: string;
  name: string;
  scopes: string[];
  ipAllowlist: string[];
  lastUsedAt: string | null;
  secrets: Secret[];
  requestCount: number;
  errorCount: number;
  errorRate: number;
  rateLimit: {
    windowSeconds: number;
    standard: { limit: number; used: number; remaining: number };
    heavy: { limit: number; used: number; remaining: number };
  };
  changedBy: { id: string; fullName: string; status: string } | null;
  suspendedScopes: { scope: string; reason: string; permissions: string[] }[];
}
interface WithSecret {
  apiKey: ApiKey;
  secret: { id: string; clientSecret: string; hint: string; expiresAt: string };
}

async function createKey(as: SignedInUser, body: Record<string, unknown> = {}): Promise<WithSecret> {
  return callAs(harness.app, as, 'POST', '/api/api-keys', {
    name: 'ERP integration',
    scopes: ['templates.read', 'organization.read'],
    ...body,
  });
}

async function listed(as: SignedInUser): Promise<{ apiAccess: Record<string, unknown>; apiKeys: ApiKey[] }> {
  return callAs(harness.app, as, 'GET', '/api/api-keys');
}

function tokenRequest(clientId: string, clientSecret: string, remoteAddress?: string) {
  return harness.app.inject({
    method: 'POST',
    url: '/oauth/token',
    ...(remoteAddress ? { remoteAddress } : {}),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
    },
    payload: 'grant_type=client_credentials',
  });
}

async function accessToken(clientId: string, clientSecret: string): Promise<string> {
  const response = await tokenRequest(clientId, clientSecret);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().access_token;
}

function v1(token: string, url: string, remoteAddress?: string) {
  return harness.app.inject({
    method: 'GET',
    url,
    ...(remoteAddress ? { remoteAddress } : {}),
    headers: { authorization: `Bearer ${token}` },
  });
}

describe('API keys: made in the application, used at the token endpoint', () => {
  it('shows the secret once, and that secret obtains a token that opens /api/v1', async () => {
    const created = await createKey(admin, {
      name: '  Billing sync ',
      scopes: ['templates.read', 'organization.read', 'templates.read'],
      ipAllowlist: [' 127.0.0.1 ', '', '10.0.0.0/008', '127.0.0.1'],
    });
    const { apiKey, secret } = created;
    expect(apiKey).toMatchObject({
      name: 'Billing sync',
      clientId: expect.stringMatching(/^sigil_/),
      scopes: ['templates.read', 'organization.read'],
      ipAllowlist: ['127.0.0.1', '10.0.0.0/8'],
      lastUsedAt: null,
      requestCount: 0,
      errorCount: 0,
      errorRate: 0,
    });
    expect(secret.clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(secret.hint).toBe(secret.clientSecret.slice(-4));
    const lifetime = new Date(secret.expiresAt).getTime() - Date.now();
    expect(lifetime).toBeGreaterThan(364 * 86_400_000);
    expect(lifetime).toBeLessThanOrEqual(365 * 86_400_000);
    expect(apiKey.secrets).toEqual([
      {
        id: secret.id,
        hint: secret.hint,
        createdAt: expect.any(String),
        expiresAt: secret.expiresAt,
        expiresSoon: false,
      },
    ]);

    // Never again: not in the list, not in the diagnostics; only its hash is stored.
    for (const url of ['/api/api-keys', '/api/api-keys/diagnostics']) {
      const answer = await asUser(harness.app, admin, 'GET', url);
      expect(answer.statusCode).toBe(200);
      expect(answer.body).not.toContain(secret.clientSecret);
    }
    const stored = await harness.ctx.orm.em.fork().findOneOrFail(OAuthClientSecret, { id: secret.id });
    expect(stored.secretHash).not.toContain(secret.clientSecret);

    // The secret it showed works at POST /oauth/token with HTTP Basic; the token opens the API within its scopes.
    const token = await accessToken(apiKey.clientId, secret.clientSecret);
    expect((await v1(token, '/api/v1/templates')).statusCode).toBe(200);
    expect((await v1(token, '/api/v1/organization')).statusCode).toBe(200);
    expectError(await v1(token, '/api/v1/usage'), 403, 'forbidden');
    // The allowlist holds: another address is refused at the token endpoint.
    expectError(await tokenRequest(apiKey.clientId, secret.clientSecret, '192.0.2.7'), 403, 'forbidden');

    // The counters are written after each answer went out (api/auth/request-stats.ts).
    const shown = async () => (await listed(admin)).apiKeys.find((key) => key.id === apiKey.id);
    await expect.poll(async () => (await shown())?.requestCount).toBe(3);
    expect(await shown()).toMatchObject({ requestCount: 3, errorCount: 1, lastUsedAt: expect.any(String) });
    expect((await shown())?.errorRate).toBeCloseTo(1 / 3);
  });

  it('refuses every bad allowlist line with its reason, a bad scope and a blank name, and makes nothing', async () => {
    const before = await harness.ctx.orm.em
      .fork()
      .count(OAuthClient, { organizationId: admin.organization.id });
    const error = expectError(
      await asUser(harness.app, admin, 'POST', '/api/api-keys', {
        name: 'Allowlisted',
        scopes: ['templates.read'],
        ipAllowlist: ['203.0.113.7', '', 'not-an-ip', '10.0.0.0/33', '2001:db8::/32', 'example.com'],
      }),
      400,
      'invalid_request',
    );
    expect(error.details).toEqual([
      {
        field: 'body.ipAllowlist.2',
        message: '"not-an-ip" is not an IP address or CIDR range',
        code: 'custom',
      },
      {
        field: 'body.ipAllowlist.3',
        message: '"10.0.0.0/33" has an invalid prefix length (0-32 for IPv4)',
        code: 'custom',
      },
      {
        field: 'body.ipAllowlist.5',
        message: '"example.com" is not an IP address or CIDR range',
        code: 'custom',
      },
    ]);
    const other = expectError(
      await asUser(harness.app, admin, 'POST', '/api/api-keys', {
        name: '   ',
        scopes: ['admin.everything'],
      }),
      400,
      'invalid_request',
    );
    expect(other.details.map((detail) => detail.field).sort()).toEqual(['body.name', 'body.scopes.0']);
    expectError(
      await asUser(harness.app, admin, 'POST', '/api/api-keys', { name: 'No scopes', scopes: [] }),
      400,
      'invalid_request',
    );
    expectError(
      await asUser(harness.app, admin, 'POST', '/api/api-keys', {
        name: 'Extra',
        scopes: ['templates.read'],
        clientSecret: 'mine',
      }),
      400,
      'invalid_request',
    );
    expect(
      await harness.ctx.orm.em.fork().count(OAuthClient, { organizationId: admin.organization.id }),
    ).toBe(before);

    // The same lines in a change: refused the same way, the key unchanged.
    const { apiKey } = await createKey(admin);
    const changed = expectError(
      await asUser(harness.app, admin, 'PUT', `/api/api-keys/${apiKey.id}`, {
        name: 'Changed',
        scopes: ['templates.read'],
        ipAllowlist: ['10.1.2.3', '10.1.2.3/-1'],
      }),
      400,
      'invalid_request',
    );
    expect(changed.details).toEqual([
      {
        field: 'body.ipAllowlist.1',
        message: '"10.1.2.3/-1" has an invalid prefix length (0-32 for IPv4)',
        code: 'custom',
      },
    ]);
    // PUT replaces all three: a left-out allowlist is refused, not taken for "any source".
    const missing = expectError(
      await asUser(harness.app, admin, 'PUT', `/api/api-keys/${apiKey.id}`, {
        name: 'Changed',
        scopes: ['templates.read'],
      }),
      400,
      'invalid_request',
    );
    expect(missing.details.map((detail) => detail.field)).toEqual(['body.ipAllowlist']);
    const stored = await harness.ctx.orm.em.fork().findOneOrFail(OAuthClient, { id: apiKey.id });
    expect(stored).toMatchObject({ name: 'ERP integration', ipAllowlist: [] });
  });

  it('keeps at most two active secrets, and a deleted secret no longer authenticates', async () => {
    const { apiKey, secret: first } = await createKey(admin);
    const firstToken = await accessToken(apiKey.clientId, first.clientSecret);
    const rotated: WithSecret = await callAs(
      harness.app,
      admin,
      'POST',
      `/api/api-keys/${apiKey.id}/secrets/rotate`,
    );
    const second = rotated.secret;
    expect(second.clientSecret).not.toBe(first.clientSecret);
    expect(rotated.apiKey.secrets.map((secret) => secret.id)).toEqual([first.id, second.id]);
    expect((await listed(admin)).apiKeys.find((key) => key.id === apiKey.id)?.secrets).toHaveLength(2);
    // Both work while both are active.
    await accessToken(apiKey.clientId, first.clientSecret);
    const secondToken = await accessToken(apiKey.clientId, second.clientSecret);

    const third = expectError(
      await asUser(harness.app, admin, 'POST', `/api/api-keys/${apiKey.id}/secrets/rotate`),
      409,
      'secret_limit',
    );
    expect(third.message).toMatch(/already has two active secrets; delete one first/);
    expect(await harness.ctx.orm.em.fork().count(OAuthClientSecret, { oauthClientId: apiKey.id })).toBe(2);

    // Delete the first: it stops authenticating, and the tokens it obtained stop opening the API.
    const after: ApiKey = await callAs(
      harness.app,
      admin,
      'DELETE',
      `/api/api-keys/${apiKey.id}/secrets/${first.id}`,
    );
    expect(after.secrets.map((secret) => secret.id)).toEqual([second.id]);
    expectError(await tokenRequest(apiKey.clientId, first.clientSecret), 401, 'invalid_client');
    expectError(await v1(firstToken, '/api/v1/templates'), 401, 'unauthorized');
    expect((await v1(secondToken, '/api/v1/templates')).statusCode).toBe(200);
    await accessToken(apiKey.clientId, second.clientSecret);
    expectError(
      await asUser(harness.app, admin, 'DELETE', `/api/api-keys/${apiKey.id}/secrets/${first.id}`),
      404,
      'not_found',
    );

    // With one left, a rotation is allowed again.
    const again: WithSecret = await callAs(
      harness.app,
      admin,
      'POST',
      `/api/api-keys/${apiKey.id}/secrets/rotate`,
    );
    await accessToken(apiKey.clientId, again.secret.clientSecret);
  });

  it('flags a secret that expires within 30 days', async () => {
    const { apiKey, secret } = await createKey(admin);
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(
        OAuthClientSecret,
        { id: secret.id },
        { expiresAt: new Date(Date.now() + 10 * 86_400_000) },
      );
    const shown = (await listed(admin)).apiKeys.find((key) => key.id === apiKey.id);
    expect(shown?.secrets).toEqual([expect.objectContaining({ id: secret.id, expiresSoon: true })]);
  });

  it('applies a change of scopes and allowlist to live tokens at once', async () => {
    const { apiKey, secret } = await createKey(admin, { scopes: ['templates.read', 'organization.read'] });
    const token = await accessToken(apiKey.clientId, secret.clientSecret);
    expect((await v1(token, '/api/v1/organization')).statusCode).toBe(200);
    const changed: ApiKey = await callAs(harness.app, admin, 'PUT', `/api/api-keys/${apiKey.id}`, {
      name: 'Templates only',
      scopes: ['templates.read'],
      ipAllowlist: ['198.51.100.0/24'],
    });
    expect(changed).toMatchObject({
      id: apiKey.id,
      name: 'Templates only',
      scopes: ['templates.read'],
      ipAllowlist: ['198.51.100.0/24'],
    });
    // The token was granted organization.read, which the key no longer allows.
    const scope = expectError(await v1(token, '/api/v1/organization', '198.51.100.9'), 403, 'forbidden');
    expect(scope.message).toMatch(/lacks the scope organization\.read/);
    expect((await v1(token, '/api/v1/templates', '198.51.100.9')).statusCode).toBe(200);
    // The new allowlist applies to the token too.
    expectError(await v1(token, '/api/v1/templates', '127.0.0.1'), 403, 'forbidden');
  });

  it('deletes a key: its secrets and tokens stop working', async () => {
    const { apiKey, secret } = await createKey(admin);
    const token = await accessToken(apiKey.clientId, secret.clientSecret);
    expect(await callAs(harness.app, admin, 'DELETE', `/api/api-keys/${apiKey.id}`)).toEqual({ ok: true });
    expectError(await tokenRequest(apiKey.clientId, secret.clientSecret), 401, 'invalid_client');
    expectError(await v1(token, '/api/v1/templates'), 401, 'unauthorized');
    expect((await listed(admin)).apiKeys.map((key) => key.id)).not.toContain(apiKey.id);
    expect(await harness.ctx.orm.em.fork().count(OAuthAccessToken, { oauthClientId: apiKey.id })).toBe(0);
    expectError(await asUser(harness.app, admin, 'DELETE', `/api/api-keys/${apiKey.id}`), 404, 'not_found');
  });

  it('records each change in the security log, with hints and never a secret', async () => {
    const owner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
    const { apiKey, secret } = await createKey(owner, { name: 'Logged' });
    const rotated: WithSecret = await callAs(
      harness.app,
      owner,
      'POST',
      `/api/api-keys/${apiKey.id}/secrets/rotate`,
    );
    await callAs(harness.app, owner, 'DELETE', `/api/api-keys/${apiKey.id}/secrets/${secret.id}`);
    await callAs(harness.app, owner, 'PUT', `/api/api-keys/${apiKey.id}`, {
      name: 'Logged',
      scopes: ['templates.read'],
      ipAllowlist: [],
    });
    await callAs(harness.app, owner, 'DELETE', `/api/api-keys/${apiKey.id}`);
    const log = await asUser(harness.app, owner, 'GET', '/api/organization/security-log');
    expect(log.body).not.toContain(secret.clientSecret);
    expect(log.body).not.toContain(rotated.secret.clientSecret);
    const events = log.json().events as { type: string; actor: { id: string } | null; details: object }[];
    // (Sorted: events of the same millisecond have no order of their own.)
    expect(
      events
        .map((event) => event.type)
        .filter((type) => type.startsWith('api_key.'))
        .sort(),
    ).toEqual([
      'api_key.created',
      'api_key.deleted',
      'api_key.secret_deleted',
      'api_key.secret_rotated',
      'api_key.updated',
    ]);
    expect(events.find((event) => event.type === 'api_key.created')).toMatchObject({
      actor: { id: owner.user.id },
      details: { name: 'Logged', clientId: apiKey.clientId, secret: `…${secret.hint}` },
    });
    expect(events.find((event) => event.type === 'api_key.updated')?.details).toMatchObject({
      scopes: { from: ['templates.read', 'organization.read'], to: ['templates.read'] },
    });
  });
});

describe('API keys: nobody grants more than they hold (issue 30)', () => {
  /** An unknown envelope: 404 when envelopes.read opens the route, 403 when the scope does not. */
  const someEnvelope = () => `/api/v1/envelopes/${randomUUID()}`;

  it('refuses a role with only the integrations permissions a scope it lacks, naming the scope and the permission', async () => {
    const owner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
    const organizationId = owner.organization.id;
    const role = await callAs(harness.app, owner, 'POST', '/api/roles', {
      name: 'Integrators',
      permissions: ['integrations:read', 'integrations:manage'],
    });
    const integrator = await signedInUser(harness, { role: role.id, organizationId });
    // It cannot read the documents itself…
    expectError(await asUser(harness.app, integrator, 'GET', '/api/documents'), 403, 'forbidden');
    const keys = () => harness.ctx.orm.em.fork().count(OAuthClient, { organizationId });
    const before = await keys();
    // …so it cannot make a key that reads or writes them.
    for (const [scope, needs] of [
      ['envelopes.read', ['documents:read', 'documents:read_all']],
      ['envelopes.write', ['documents:read', 'documents:read_all', 'documents:manage']],
      ['files.write', ['documents:manage']],
      ['templates.read', ['templates:read']],
      ['usage.read', ['billing:read']],
    ] as const) {
      const refusal = expectError(
        await asUser(harness.app, integrator, 'POST', '/api/api-keys', {
          name: 'Too much',
          scopes: ['organization.read', scope],
        }),
        403,
        'forbidden',
      );
      expect(refusal.message, scope).toContain(`the scope ${scope}`);
      expect(refusal.details).toEqual(
        needs.map((permission) => ({
          field: 'body.scopes',
          scope,
          permission,
          message: `scope ${scope} needs ${permission}, which your role does not have`,
        })),
      );
    }
    expect(await keys()).toBe(before);
    // The scopes it holds are its to give.
    const made = await createKey(integrator, { scopes: ['webhooks.manage', 'organization.read'] });
    expect(made.apiKey).toMatchObject({
      scopes: ['webhooks.manage', 'organization.read'],
      changedBy: { id: integrator.user.id, status: 'active' },
      suspendedScopes: [],
    });
    // Nor may it widen a key, keep a scope it lacks on a key it saves, or take a secret of such a key.
    expectError(
      await asUser(harness.app, integrator, 'PUT', `/api/api-keys/${made.apiKey.id}`, {
        name: 'Wider',
        scopes: ['webhooks.manage', 'envelopes.read'],
        ipAllowlist: [],
      }),
      403,
      'forbidden',
    );
    const owners = await createKey(owner, { name: 'Documents', scopes: ['envelopes.read'] });
    const renamed = expectError(
      await asUser(harness.app, integrator, 'PUT', `/api/api-keys/${owners.apiKey.id}`, {
        name: 'Renamed',
        scopes: ['envelopes.read'],
        ipAllowlist: [],
      }),
      403,
      'forbidden',
    );
    expect(renamed.details.map((detail) => detail.permission)).toEqual([
      'documents:read',
      'documents:read_all',
    ]);
    expectError(
      await asUser(harness.app, integrator, 'POST', `/api/api-keys/${owners.apiKey.id}/secrets/rotate`),
      403,
      'forbidden',
    );
    const kept = (await listed(owner)).apiKeys.find((key) => key.id === owners.apiKey.id);
    expect(kept).toMatchObject({ name: 'Documents', secrets: [expect.any(Object)] });
    // Taking access away stays possible: deleting the key.
    expect(await callAs(harness.app, integrator, 'DELETE', `/api/api-keys/${owners.apiKey.id}`)).toEqual({
      ok: true,
    });
  });

  it('suspends the scopes a demoted or deactivated last changer no longer holds, until someone who holds them saves the key', async () => {
    const owner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
    const organizationId = owner.organization.id;
    const roles = Object.fromEntries(
      (await callAs(harness.app, owner, 'GET', '/api/roles')).roles.map(
        (role: { id: string; builtIn: string | null }) => [role.builtIn, role.id],
      ),
    );
    const maker = await signedInUser(harness, { role: 'administrator', organizationId });
    const { apiKey, secret } = await createKey(maker, {
      name: 'Archive sync',
      scopes: ['envelopes.read', 'organization.read'],
    });
    const token = await accessToken(apiKey.clientId, secret.clientSecret);
    expect((await v1(token, someEnvelope())).statusCode).toBe(404);

    // Demoted to Sender (no documents:read_all): the key can no longer read the organization's envelopes.
    await callAs(harness.app, owner, 'PUT', `/api/users/${maker.user.id}`, { roleId: roles.sender });
    const suspended = expectError(await v1(token, someEnvelope()), 403, 'forbidden');
    expect(suspended.message).toMatch(
      /scope envelopes\.read, .* is suspended: .* no longer holds documents:read_all/,
    );
    expect(suspended.details).toEqual([
      expect.objectContaining({
        scope: 'envelopes.read',
        suspended: true,
        reason: 'permission_missing',
        permissions: ['documents:read_all'],
      }),
    ]);
    // What needs nothing it lacks still works, and says which scopes it has now.
    const context = await v1(token, '/api/v1/organization');
    expect(context.statusCode).toBe(200);
    expect(context.json().client.scopes).toEqual(['organization.read']);
    // The page says what is suspended, why, and whose change it follows.
    expect((await listed(owner)).apiKeys.find((key) => key.id === apiKey.id)).toMatchObject({
      changedBy: { id: maker.user.id, fullName: maker.user.fullName, status: 'active' },
      suspendedScopes: [
        { scope: 'envelopes.read', reason: 'permission_missing', permissions: ['documents:read_all'] },
      ],
    });

    // Saved (unchanged) by someone who holds its scopes, the same token works again.
    const other = await signedInUser(harness, { role: 'administrator', organizationId });
    const saved = await callAs(harness.app, other, 'PUT', `/api/api-keys/${apiKey.id}`, {
      name: 'Archive sync',
      scopes: ['envelopes.read', 'organization.read'],
      ipAllowlist: [],
    });
    expect(saved).toMatchObject({ changedBy: { id: other.user.id }, suspendedScopes: [] });
    expect((await v1(token, someEnvelope())).statusCode).toBe(404);

    // Its new last changer deactivated: every scope is suspended.
    await callAs(harness.app, owner, 'PUT', `/api/users/${other.user.id}`, { status: 'deactivated' });
    for (const url of [someEnvelope(), '/api/v1/organization']) {
      const refusal = expectError(await v1(token, url), 403, 'forbidden');
      expect(refusal.details[0]).toMatchObject({ suspended: true, reason: 'user_inactive' });
    }
    expect(
      (await listed(owner)).apiKeys.find((key) => key.id === apiKey.id)?.suspendedScopes.map((s) => s.reason),
    ).toEqual(['user_inactive', 'user_inactive']);
    const { events } = await callAs(harness.app, owner, 'GET', '/api/organization/security-log');
    expect(events.find((event: { type: string }) => event.type === 'api_key.updated')?.details).toMatchObject(
      { changedBy: { from: maker.user.id, to: other.user.id } },
    );
  });
});

describe('API keys: figures', () => {
  it('counts requests, errors and rate-limit refusals per key over 24 hours and 7 days', async () => {
    const owner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
    const busy = await createKey(owner, { name: 'Busy' });
    const quiet = await createKey(owner, { name: 'Quiet' });
    const token = await accessToken(busy.apiKey.clientId, busy.secret.clientSecret);
    expect((await v1(token, '/api/v1/templates')).statusCode).toBe(200);
    expect((await v1(token, '/api/v1/templates')).statusCode).toBe(200);
    expectError(await v1(token, '/api/v1/usage'), 403, 'forbidden');
    // Three days ago: in the week, not in the last 24 hours.
    await harness.ctx.orm.em.fork().execute(
      `insert into api_request_stat (oauth_client_id, minute, requests, errors, rate_limited)
         values (?, date_trunc('minute', now() - interval '3 days'), 40, 7, 5)`,
      [busy.apiKey.id],
    );
    // The counters are written after each answer went out (api/auth/request-stats.ts).
    await expect
      .poll(
        async () =>
          (await callAs(harness.app, owner, 'GET', '/api/api-keys/diagnostics')).totals.last24Hours.requests,
      )
      .toBe(3);
    const figures = await callAs(harness.app, owner, 'GET', '/api/api-keys/diagnostics');
    expect(figures).toEqual({
      generatedAt: expect.any(String),
      totals: {
        last24Hours: { requests: 3, errors: 1, rateLimited: 0 },
        last7Days: { requests: 43, errors: 8, rateLimited: 5 },
      },
      apiKeys: [
        {
          id: busy.apiKey.id,
          clientId: busy.apiKey.clientId,
          name: 'Busy',
          last24Hours: { requests: 3, errors: 1, rateLimited: 0 },
          last7Days: { requests: 43, errors: 8, rateLimited: 5 },
        },
        {
          id: quiet.apiKey.id,
          clientId: quiet.apiKey.clientId,
          name: 'Quiet',
          last24Hours: { requests: 0, errors: 0, rateLimited: 0 },
          last7Days: { requests: 0, errors: 0, rateLimited: 0 },
        },
      ],
    });
    // Another organization's figures are its own.
    expect(
      (await callAs(harness.app, admin, 'GET', '/api/api-keys/diagnostics')).apiKeys.map(
        (key: { id: string }) => key.id,
      ),
    ).not.toContain(busy.apiKey.id);
  });

  it("shows each key's rate-limit state in the current window", async () => {
    const owner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
    const { apiKey } = await createKey(owner);
    const em = harness.ctx.orm.em.fork();
    // The limiter's counter of this window, as 171 requests would have left it (Business: 180 a minute).
    for (;;) {
      const window = windowFor(new Date());
      await em.execute(
        `insert into rate_limit_window (bucket, window_start, count) values (?, ?::timestamptz, 171)
         on conflict (bucket, window_start) do update set count = 171`,
        [`${apiKey.id}:${owner.organization.id}:standard`, window.start.toISOString()],
      );
      const shown = (await listed(owner)).apiKeys.find((key) => key.id === apiKey.id);
      // A minute that ended between writing and reading shows the next window: write again.
      if (windowFor(new Date()).start.getTime() !== window.start.getTime()) continue;
      expect(shown?.rateLimit).toMatchObject({
        windowSeconds: 60,
        standard: { limit: 180, used: 171, remaining: 9 },
        heavy: { used: 0 },
      });
      break;
    }
  });
});

describe('API keys: who may see and change them', () => {
  it('lets integrations:read list, and refuses every change without integrations:manage', async () => {
    const { apiKey, secret } = await createKey(admin);
    expect((await listed(reader)).apiKeys.map((key) => key.id)).toContain(apiKey.id);
    expect((await asUser(harness.app, reader, 'GET', '/api/api-keys/diagnostics')).statusCode).toBe(200);
    const changes: [Method, string, unknown][] = [
      ['POST', '/api/api-keys', { name: 'Mine', scopes: ['templates.read'] }],
      ['PUT', `/api/api-keys/${apiKey.id}`, { name: 'Mine', scopes: ['templates.read'], ipAllowlist: [] }],
      ['POST', `/api/api-keys/${apiKey.id}/secrets/rotate`, {}],
      ['DELETE', `/api/api-keys/${apiKey.id}/secrets/${secret.id}`, undefined],
      ['DELETE', `/api/api-keys/${apiKey.id}`, undefined],
    ];
    for (const user of [reader, member]) {
      for (const [method, url, body] of changes) {
        const error = expectError(await asUser(harness.app, user, method, url, body), 403, 'forbidden');
        expect(error.details).toEqual([expect.objectContaining({ permission: 'integrations:manage' })]);
      }
    }
    // A member may not even read them.
    const error = expectError(await asUser(harness.app, member, 'GET', '/api/api-keys'), 403, 'forbidden');
    expect(error.details).toEqual([expect.objectContaining({ permission: 'integrations:read' })]);
    expectError(await asUser(harness.app, member, 'GET', '/api/api-keys/diagnostics'), 403, 'forbidden');
    // Nothing changed.
    const [stored] = (await listed(admin)).apiKeys.filter((key) => key.id === apiKey.id);
    expect(stored).toMatchObject({
      name: 'ERP integration',
      secrets: [expect.objectContaining({ id: secret.id })],
    });
    await accessToken(apiKey.clientId, secret.clientSecret);
  });

  it("answers another organization's key with 404, changes nothing and lists only its own", async () => {
    const theirs = await createKey(stranger, { name: 'Theirs' });
    const id = theirs.apiKey.id;
    expect((await listed(admin)).apiKeys.map((key) => key.id)).not.toContain(id);
    const attempts: [Method, string, unknown][] = [
      ['PUT', `/api/api-keys/${id}`, { name: 'Taken over', scopes: ['templates.read'], ipAllowlist: [] }],
      ['POST', `/api/api-keys/${id}/secrets/rotate`, {}],
      ['DELETE', `/api/api-keys/${id}/secrets/${theirs.secret.id}`, undefined],
      ['DELETE', `/api/api-keys/${id}`, undefined],
      // Its own key with the other organization's secret id: not found either.
      [
        'DELETE',
        `/api/api-keys/${(await createKey(admin)).apiKey.id}/secrets/${theirs.secret.id}`,
        undefined,
      ],
    ];
    for (const [method, url, body] of attempts) {
      const error = expectError(await asUser(harness.app, admin, method, url, body), 404, 'not_found');
      expect(error.message).toMatch(/was not found/);
    }
    expect((await listed(stranger)).apiKeys).toEqual([
      expect.objectContaining({
        id,
        name: 'Theirs',
        secrets: [expect.objectContaining({ id: theirs.secret.id })],
      }),
    ]);
    await accessToken(theirs.apiKey.clientId, theirs.secret.clientSecret);
    // A malformed id is a 400 naming it.
    const malformed = expectError(
      await asUser(harness.app, admin, 'DELETE', '/api/api-keys/not-a-uuid'),
      400,
      'invalid_request',
    );
    expect(malformed.details.map((detail) => detail.field)).toEqual(['params.id']);
  });

  it('answers /secrets/rotate as its own path: another method is 405, not a secret called "rotate"', async () => {
    const { apiKey } = await createKey(admin);
    for (const method of ['DELETE', 'GET'] as const) {
      const answer = await asUser(harness.app, admin, method, `/api/api-keys/${apiKey.id}/secrets/rotate`);
      expectError(await answer, 405, 'method_not_allowed');
      expect(answer.headers.allow).toBe('POST');
    }
    const options = await harness.app.inject({
      method: 'OPTIONS',
      url: `/api/api-keys/${apiKey.id}/secrets/rotate`,
      headers: admin.headers,
    });
    expectError(await options, 405, 'method_not_allowed');
    expect(options.headers.allow).toBe('POST');
    // A real secret id still reaches DELETE /secrets/{secretId}.
    const { secrets } = (await listed(admin)).apiKeys.find((key) => key.id === apiKey.id) as ApiKey;
    expect(
      (await asUser(harness.app, admin, 'DELETE', `/api/api-keys/${apiKey.id}/secrets/${secrets[0]?.id}`))
        .statusCode,
    ).toBe(200);
  });
});

describe('API keys without API access', () => {
  it('refuses new keys and secrets when the organization API flag is off, saying who turns it on', async () => {
    const owner = await signedInUser(harness, { role: 'owner', apiEnabled: true });
    const { apiKey, secret } = await createKey(owner);
    await harness.ctx.orm.em
      .fork()
      .nativeUpdate(Organization, { id: owner.organization.id }, { apiEnabled: false });

    const { apiAccess, apiKeys } = await listed(owner);
    expect(apiAccess).toEqual({
      available: false,
      planName: 'Business',
      reason: 'organization_api_disabled',
      message: expect.stringMatching(
        /API access is disabled for this organization.*support or a platform administrator/,
      ),
    });
    // The keys it has are still shown.
    expect(apiKeys.map((key) => key.id)).toEqual([apiKey.id]);

    const create = expectError(await createKeyRequest(owner), 409, 'api_access_unavailable');
    expect(create.message).toMatch(
      /^Cannot create an OAuth client: API access is disabled for this organization\. Its Business plan includes API access: support or a platform administrator turns it on/,
    );
    expect(create.details).toEqual([
      expect.objectContaining({ reason: 'organization_api_disabled', plan: 'Business' }),
    ]);
    const rotate = expectError(
      await asUser(harness.app, owner, 'POST', `/api/api-keys/${apiKey.id}/secrets/rotate`),
      409,
      'api_access_unavailable',
    );
    expect(rotate.message).toMatch(/support or a platform administrator/);
    const em = harness.ctx.orm.em.fork();
    expect(await em.count(OAuthClient, { organizationId: owner.organization.id })).toBe(1);
    expect(await em.count(OAuthClientSecret, { oauthClientId: apiKey.id })).toBe(1);
    // The token endpoint refuses the key's secret with the same words.
    const token = expectError(await tokenRequest(apiKey.clientId, secret.clientSecret), 403, 'forbidden');
    expect(token.message).toBe(apiAccess.message);
    // Taking access away is still possible: a change, a secret deleted, the key deleted.
    await callAs(harness.app, owner, 'PUT', `/api/api-keys/${apiKey.id}`, {
      name: 'Paused',
      scopes: ['templates.read'],
      ipAllowlist: [],
    });
    await callAs(harness.app, owner, 'DELETE', `/api/api-keys/${apiKey.id}/secrets/${secret.id}`);
    await callAs(harness.app, owner, 'DELETE', `/api/api-keys/${apiKey.id}`);
  });

  it('names the plan when the plan has no API access', async () => {
    const owner = await signedInUser(harness, { role: 'owner', plan: 'Starter' });
    const { apiAccess } = await listed(owner);
    expect(apiAccess).toEqual({
      available: false,
      planName: 'Starter',
      reason: 'plan_without_api_access',
      message: expect.stringMatching(/^The Starter plan does not include API access\./),
    });
    const error = expectError(await createKeyRequest(owner), 409, 'api_access_unavailable');
    expect(error.message).toMatch(
      /The Starter plan does not include API access.*support or a platform administrator/,
    );
    expect(
      await harness.ctx.orm.em.fork().count(OAuthClient, { organizationId: owner.organization.id }),
    ).toBe(0);
  });

  it('shows an organization with API access that it may use it', async () => {
    expect((await listed(admin)).apiAccess).toEqual({
      available: true,
      planName: 'Business',
      reason: null,
      message: null,
    });
  });
});

function createKeyRequest(as: SignedInUser) {
  return asUser(harness.app, as, 'POST', '/api/api-keys', {
    name: `Key ${randomUUID().slice(0, 6)}`,
    scopes: ['templates.read'],
  });
}

// The backoffice's two roles (docs/backoffice.md, "Roles"). The route × role matrix is generated from the router
// and the one route table (domain/backoffice-roles.ts): every backoffice route is called over HTTP by an
// administrator, by support, by an organization's owner and by nobody. A role the table lists never meets 401
// or 403; a role it does not list gets 403 `forbidden` before the request is read; an organization session and
// no session get 401. Every backoffice route is in the table and every entry is a route. Then the roles
// themselves: shown and set on /api/backoffice/platform-admins, nobody grants above their own role, support
// manages no administrator, and the last administrator cannot be demoted (on a database of its own, where the
// test's administrator is the only one).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { proceduresOf } from '../../api/trpc/init.ts';
import { appRouter } from '../../api/trpc/router.ts';
import { BackofficeAuditEvent } from '../../db/entities/index.ts';
import {
  BACKOFFICE_ROLES,
  BACKOFFICE_ROUTE_ROLES,
  type BackofficeRole,
  backofficeRolesOf,
} from '../../domain/backoffice-roles.ts';
import { startBackofficeSession } from '../../services/backoffice/backoffice-sessions.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError } from '../support/app-requests.ts';
import { BACKOFFICE_COOKIE, type SignedInAdmin, signedInAdmin } from '../support/backoffice.ts';
import { openIsolatedHarness } from '../support/isolated-database.ts';
import { APP_ORIGIN, type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

interface BackofficeRoute {
  name: string;
  method: string;
  path: string;
}

/** Every route that takes a backoffice session, as the router declares it. */
const ROUTES: BackofficeRoute[] = proceduresOf(appRouter).flatMap(([name, procedure]) => {
  const { meta } = procedure;
  if (meta?.access !== 'platform-admin' || !meta.openapi) return [];
  return [{ name, method: meta.openapi.method, path: meta.openapi.path }];
});

let harness: ApiHarness;
const admins = {} as Record<BackofficeRole, SignedInAdmin>;
let owner: SignedInUser;

beforeAll(async () => {
  harness = await openApiHarness();
  for (const role of BACKOFFICE_ROLES) admins[role] = await signedInAdmin(harness, `matrix-${role}`, role);
  owner = await signedInUser(harness, { role: 'owner' });
});
afterAll(() => harness?.close());

/** A session of its own for each call: a cell that signs out (DELETE /api/backoffice/session) ends only its own. */
async function freshSession(admin: SignedInAdmin) {
  const { token } = await startBackofficeSession(
    { em: harness.ctx.orm.em.fork() },
    { admin: admin.admin, ipAddress: '127.0.0.1', userAgent: null },
  );
  return { headers: { cookie: `${BACKOFFICE_COOKIE}=${token}`, origin: APP_ORIGIN } };
}

/** The route with a random id (or word) for each path parameter, and an empty body for a mutation. */
function call(route: BackofficeRoute, caller: { headers: Record<string, string> } | null) {
  const path = route.path.replace(/\{[^}]+\}/g, () => randomUUID());
  return asUser(harness.app, caller, route.method, path, route.method === 'GET' ? undefined : {});
}

describe('the backoffice route × role matrix', () => {
  it('finds the backoffice routes, and the table lists exactly them', () => {
    expect(ROUTES.length).toBeGreaterThan(30);
    const declared = ROUTES.map((route) => `${route.method} ${route.path}`).sort();
    expect(Object.keys(BACKOFFICE_ROUTE_ROLES).sort()).toEqual(declared);
  });

  it.each(ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: the roles the table lists pass, the others get 403, organization users and nobody 401',
    async (_, route) => {
      const allowed = backofficeRolesOf(route.method, route.path);
      const problems: string[] = [];
      for (const role of BACKOFFICE_ROLES) {
        const response = await call(route, await freshSession(admins[role]));
        const code = response.statusCode >= 400 ? response.json().error?.code : null;
        const answer = `${response.statusCode} ${code ?? ''}`;
        if (response.statusCode >= 500) problems.push(`${role}: ${answer} ${response.body}`);
        else if (allowed.includes(role)) {
          if (response.statusCode === 401 || response.statusCode === 403)
            problems.push(`${role}: refused, ${answer}`);
        } else if (response.statusCode !== 403 || code !== 'forbidden') {
          problems.push(`${role}: expected 403 forbidden, got ${answer}`);
        }
      }
      for (const [label, caller] of [
        ['an organization owner', owner],
        ['nobody', null],
      ] as const) {
        const response = await call(route, caller);
        if (response.statusCode !== 401) problems.push(`${label}: expected 401, got ${response.statusCode}`);
      }
      expect(problems).toEqual([]);
    },
  );
});

describe('the roles on /api/backoffice/platform-admins', () => {
  const ADMINS = '/api/backoffice/platform-admins';

  it('shows each administrator’s role and creates one with a role, recorded in the audit log', async () => {
    const { administrators } = await callAs(harness.app, admins.administrator, 'GET', ADMINS);
    const byId = new Map(administrators.map((a: { id: string; role: string }) => [a.id, a.role]));
    expect(byId.get(admins.administrator.admin.id)).toBe('administrator');
    expect(byId.get(admins.support.admin.id)).toBe('support');

    const domain = admins.administrator.admin.email.split('@')[1];
    const created = await callAs(harness.app, admins.administrator, 'POST', ADMINS, {
      email: `new-support@${domain}`,
      fullName: 'New Support',
      role: 'support',
    });
    expect(created.administrator.role).toBe('support');
    const event = await harness.ctx.orm.em.fork().findOneOrFail(BackofficeAuditEvent, {
      action: 'platform_admin.created',
      targetId: created.administrator.id,
    });
    expect(event.details).toMatchObject({ role: 'support' });
  });

  it('changes a role both ways, and refuses a role that is not one', async () => {
    const colleague = await signedInAdmin(harness, 'colleague', 'support');
    const path = `${ADMINS}/${colleague.admin.id}`;
    const promoted = await callAs(harness.app, admins.administrator, 'PATCH', path, {
      role: 'administrator',
    });
    expect(promoted.role).toBe('administrator');
    // The new role counts from the next request of a session already open.
    expect(
      (await call({ name: '', method: 'GET', path: '/api/backoffice/audit-log' }, colleague)).statusCode,
    ).toBe(200);
    const demoted = await callAs(harness.app, admins.administrator, 'PATCH', path, { role: 'support' });
    expect(demoted.role).toBe('support');
    expectError(
      await call({ name: '', method: 'GET', path: '/api/backoffice/audit-log' }, colleague),
      403,
      'forbidden',
    );
    const events = await harness.ctx.orm.em
      .fork()
      .find(BackofficeAuditEvent, { action: 'platform_admin.role_changed', targetId: colleague.admin.id });
    expect(events.map((e) => `${e.details.from}>${e.details.to}`).sort()).toEqual([
      'administrator>support',
      'support>administrator',
    ]);
    const bad = await asUser(harness.app, admins.administrator, 'PATCH', path, { role: 'owner' });
    expectError(bad, 400, 'invalid_request');
    const unknown = await asUser(harness.app, admins.administrator, 'PATCH', `${ADMINS}/${randomUUID()}`, {
      role: 'support',
    });
    expectError(unknown, 404, 'not_found');
  });

  it('support can neither create an administrator nor promote itself', async () => {
    const domain = admins.support.admin.email.split('@')[1];
    expectError(
      await asUser(harness.app, admins.support, 'POST', ADMINS, {
        email: `sneaky@${domain}`,
        fullName: 'Sneaky',
        role: 'administrator',
      }),
      403,
      'forbidden',
    );
    expectError(
      await asUser(harness.app, admins.support, 'PATCH', `${ADMINS}/${admins.support.admin.id}`, {
        role: 'administrator',
      }),
      403,
      'forbidden',
    );
    const { administrators } = await callAs(harness.app, admins.administrator, 'GET', ADMINS);
    expect(administrators.some((a: { email: string }) => a.email === `sneaky@${domain}`)).toBe(false);
    expect(administrators.find((a: { id: string }) => a.id === admins.support.admin.id).role).toBe('support');
  });
});

describe('the last administrator', () => {
  it('cannot be demoted; with a second administrator, can', async () => {
    const isolated = await openIsolatedHarness();
    try {
      const only = await signedInAdmin(isolated, 'only');
      const path = `/api/backoffice/platform-admins/${only.admin.id}`;
      expectError(
        await asUser(isolated.app, only, 'PATCH', path, { role: 'support' }),
        409,
        'last_administrator',
      );
      const still = await callAs(isolated.app, only, 'GET', '/api/backoffice/platform-admins');
      expect(still.administrators.map((a: { role: string }) => a.role)).toEqual(['administrator']);

      await signedInAdmin(isolated, 'second');
      const demoted = await callAs(isolated.app, only, 'PATCH', path, { role: 'support' });
      expect(demoted.role).toBe('support');
    } finally {
      await isolated.close();
    }
  });
});

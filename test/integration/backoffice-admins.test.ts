// The platform backoffice's administrators on the real PostgreSQL (docs/backoffice.md): the operator CLI makes
// the first one; sign-in with the password, the code from the email (development capture) and the backoffice
// session; wrong, expired and over-tried codes; an unknown address and a wrong password answer alike; the
// idle timeout (injected clock); the two populations' cookies never pass each other's routes; the allowed
// domains; the IP allowlist with chosen source addresses and its self-lockout refusal; the last administrator
// and self-removal; the audit log; bad input answered 400 naming the field.
//
// The IP allowlist is one for the whole server and the test database is shared with files running at the same
// time: this file's first entry is 127.0.0.0/8 (the loopback addresses every other test uses), so no other
// file is ever refused, and the chosen outside addresses are from the documentation ranges.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { describe, expect, inject, it } from 'vitest';
import { BackofficeAuditEvent, PlatformAdmin, PlatformAdminSession } from '../../db/entities/index.ts';
import { removePlatformAdmin } from '../../services/backoffice/platform-admins.ts';
import {
  capturedTo,
  comparable,
  ORIGIN,
  registerVerified,
  signedIn,
  testClock,
  useAccountsApp,
} from '../support/auth-http.ts';
import { withBackofficeAllowlist } from '../support/backoffice-allowlist.ts';
import type { TestContext } from '../support/context.ts';

const CLI = fileURLToPath(new URL('../../api/cli/sigil.ts', import.meta.url));
const COOKIE = 'sigil_backoffice_session';

let ctx: TestContext;
let app: FastifyInstance;
const clock = testClock();
useAccountsApp({ clock: clock.now }, (opened) => ({ ctx, app } = opened));

const em = () => ctx.orm.em.fork();
/** A domain of this run: the allowed domains are shared by every test of the database. */
const DOMAIN = `ops-${randomUUID().slice(0, 8)}.example.test`;
const emailAt = (label: string, domain = DOMAIN) => `${label}-${randomUUID().slice(0, 6)}@${domain}`;

function sigil(args: string[], stdin?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: {
          ...process.env,
          DATABASE_URL: inject('databaseUrl'),
          TEMPORAL_ADDRESS: inject('temporalAddress'),
          TEMPORAL_NAMESPACE: inject('namespace'),
        },
      },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin ?? '');
  });
}

/** A backoffice browser: its address and the backoffice cookie it keeps. Mutations carry this server's Origin. */
interface AdminBrowser {
  address: string;
  cookie: string | null;
  request(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
}

function adminBrowser(address = '127.0.0.1'): AdminBrowser {
  const browser: AdminBrowser = {
    address,
    cookie: null,
    async request(method, url, body, headers = {}) {
      const response = await app.inject({
        method,
        url,
        remoteAddress: browser.address,
        headers: {
          ...(method === 'GET' ? {} : { origin: ORIGIN }),
          ...(browser.cookie ? { cookie: `${COOKIE}=${browser.cookie}` } : {}),
          ...headers,
        },
        ...(body === undefined ? {} : { payload: body as object }),
      });
      const set = response.cookies.find((cookie) => cookie.name === COOKIE);
      if (set) browser.cookie = set.value ? set.value : null;
      return response;
    },
  };
  return browser;
}

/** The newest code emailed to the address (the development capture holds the email's text). */
async function codeFor(email: string): Promise<string> {
  const [newest] = (await capturedTo(app, email)).filter((mail) => mail.kind === 'platform_admin_code');
  const code = /\b(\d{6})\b/.exec(newest?.body ?? '')?.[1];
  if (!code) throw new Error(`no sign-in code was emailed to ${email}`);
  return code;
}

/** Password, code from the email, session: a signed-in backoffice browser. */
async function signInAdmin(email: string, password: string, address = '127.0.0.1'): Promise<AdminBrowser> {
  const browser = adminBrowser(address);
  const otp = await browser.request('POST', '/api/backoffice/platform-admins/otp', { email, password });
  expect(otp.statusCode, otp.body).toBe(200);
  const signIn = await browser.request('POST', '/api/backoffice/session', {
    email,
    code: await codeFor(email),
  });
  expect(signIn.statusCode, signIn.body).toBe(200);
  expect(browser.cookie).toBeTruthy();
  return browser;
}

interface Admin {
  id: string;
  email: string;
  password: string;
}
let first: Admin;

describe('the first administrator, from the operator CLI', () => {
  it('creates the administrator, adds the domain when told, prints the password once', async () => {
    const email = emailAt('first').toUpperCase();
    const run = await sigil([
      'platform-admin',
      'create',
      '--email',
      email,
      '--name',
      'First Admin',
      '--allow-domain',
      '--json',
    ]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as {
      id: string;
      email: string;
      password: string;
      domainAdded: string;
    };
    expect(out.email).toBe(email.toLowerCase());
    expect(out.domainAdded).toBe(DOMAIN);
    expect(out.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    first = { id: out.id, email: out.email, password: out.password };
    const stored = await em().findOneOrFail(PlatformAdmin, { id: out.id });
    expect(stored.passwordHash).toMatch(/^\$argon2id\$/);
    expect(stored.passwordHash).not.toContain(out.password);
    const audit = await em().findOneOrFail(BackofficeAuditEvent, {
      action: 'platform_admin.created',
      targetId: out.id,
    });
    expect(audit).toMatchObject({ actorKind: 'operator_cli', actorAdminId: null });
  });

  it('reads the password from stdin, refuses a domain outside the list and a taken address', async () => {
    const email = emailAt('piped');
    // Three processes at once: the CLI takes seconds to start on a busy machine.
    const [piped, outside, taken] = await Promise.all([
      sigil(
        ['platform-admin', 'create', '--email', email, '--name', 'Piped Admin', '--password-stdin', '--json'],
        'a piped passphrase of enough length\n',
      ),
      sigil([
        'platform-admin',
        'create',
        '--email',
        emailAt('x', `other-${randomUUID().slice(0, 8)}.example.test`),
        '--name',
        'X',
      ]),
      sigil(['platform-admin', 'create', '--email', first.email, '--name', 'Again']),
    ]);
    expect(piped.code, piped.stdout + piped.stderr).toBe(0);
    expect(JSON.parse(piped.stdout).password).toBeUndefined();
    await signInAdmin(email, 'a piped passphrase of enough length');

    expect(outside.code).toBe(1);
    expect(outside.stderr).toMatch(/other-.*\.example\.test is not an allowed email domain/);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toMatch(/already a platform administrator/);
  });
});

describe('signing in', () => {
  it('password, then the emailed code, then a session of its own: HttpOnly, SameSite=Strict', async () => {
    const browser = adminBrowser();
    const otp = await browser.request('POST', '/api/backoffice/platform-admins/otp', {
      email: first.email,
      password: first.password,
    });
    expect(otp.statusCode, otp.body).toBe(200);
    expect(otp.json().sent).toBe(true);
    expect(browser.cookie).toBeNull();
    const code = await codeFor(first.email);
    const signIn = await browser.request('POST', '/api/backoffice/session', { email: first.email, code });
    expect(signIn.statusCode, signIn.body).toBe(200);
    const cookie = signIn.cookies.find((candidate) => candidate.name === COOKIE);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(signIn.cookies.find((candidate) => candidate.name === 'sigil_session')).toBeUndefined();
    const me = await browser.request('GET', '/api/backoffice/session');
    expect(me.statusCode, me.body).toBe(200);
    expect(me.json().administrator).toMatchObject({ id: first.id, email: first.email, you: true });
    expect(me.json().session.idleTimeoutMinutes).toBe(15);
    // The code worked once.
    const again = await adminBrowser().request('POST', '/api/backoffice/session', {
      email: first.email,
      code,
    });
    expect(again.statusCode).toBe(401);
    expect(again.json().error.code).toBe('invalid_code');
    // Sign-out ends the session.
    const out = await browser.request('DELETE', '/api/backoffice/session');
    expect(out.statusCode, out.body).toBe(200);
    const stale = adminBrowser();
    stale.cookie = cookie?.value ?? null;
    expect((await stale.request('GET', '/api/backoffice/session')).statusCode).toBe(401);
  });

  it('an unknown address and a wrong password answer alike; a wrong, an expired and an over-tried code are refused', async () => {
    const wrong = await adminBrowser('127.0.9.1').request('POST', '/api/backoffice/platform-admins/otp', {
      email: first.email,
      password: 'not the password at all',
    });
    const unknown = await adminBrowser('127.0.9.2').request('POST', '/api/backoffice/platform-admins/otp', {
      email: emailAt('nobody'),
      password: 'not the password at all',
    });
    expect(comparable(wrong)).toEqual(comparable(unknown));
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('invalid_credentials');

    const admin = await createThroughApi('codes');
    const browser = adminBrowser('127.0.9.3');
    // A wrong code, then the right one still works.
    await browser.request('POST', '/api/backoffice/platform-admins/otp', {
      email: admin.email,
      password: admin.password,
    });
    const code = await codeFor(admin.email);
    const other = code === '000000' ? '000001' : '000000';
    const refused = await browser.request('POST', '/api/backoffice/session', {
      email: admin.email,
      code: other,
    });
    expect(refused.statusCode).toBe(401);
    const unknownCode = await adminBrowser('127.0.9.4').request('POST', '/api/backoffice/session', {
      email: emailAt('nobody'),
      code: other,
    });
    expect(comparable(unknownCode)).toEqual(comparable(refused));
    expect(
      (await browser.request('POST', '/api/backoffice/session', { email: admin.email, code })).statusCode,
    ).toBe(200);

    // Expired: 10 minutes later the code no longer works.
    await browser.request('POST', '/api/backoffice/platform-admins/otp', {
      email: admin.email,
      password: admin.password,
    });
    const expiring = await codeFor(admin.email);
    clock.advance(11 * 60_000);
    const expired = await adminBrowser('127.0.9.5').request('POST', '/api/backoffice/session', {
      email: admin.email,
      code: expiring,
    });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('invalid_code');

    // Five wrong attempts use the code up: the right one is refused after them.
    const tries = adminBrowser('127.0.9.6');
    await tries.request('POST', '/api/backoffice/platform-admins/otp', {
      email: admin.email,
      password: admin.password,
    });
    const tried = await codeFor(admin.email);
    const wrongCode = tried === '111111' ? '222222' : '111111';
    for (let attempt = 0; attempt < 5; attempt += 1) {
      clock.advance(40_000); // past the throttle's growing delay
      const answer = await tries.request('POST', '/api/backoffice/session', {
        email: admin.email,
        code: wrongCode,
      });
      expect(answer.statusCode, answer.body).toBe(401);
    }
    clock.advance(40_000);
    const usedUp = await tries.request('POST', '/api/backoffice/session', {
      email: admin.email,
      code: tried,
    });
    expect(usedUp.statusCode, usedUp.body).toBe(401);
    expect(usedUp.json().error.code).toBe('invalid_code');
    const reasons = (
      await em().find(BackofficeAuditEvent, { action: 'sign_in.code_refused', targetId: admin.id })
    ).map((event) => event.details.reason);
    expect(reasons).toEqual(expect.arrayContaining(['wrong_code', 'expired', 'used_up']));
  });

  it('throttles repeated wrong passwords for an address (429)', async () => {
    const email = emailAt('throttled');
    const browser = adminBrowser('127.0.9.7');
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 7; attempt += 1) {
      statuses.push(
        (
          await browser.request('POST', '/api/backoffice/platform-admins/otp', {
            email,
            password: 'wrong password!',
          })
        ).statusCode,
      );
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses).toContain(429);
  });

  it('ends a session after 15 minutes without a request, and keeps one that is used', async () => {
    const browser = await signInAdmin(first.email, first.password);
    clock.advance(14 * 60_000);
    expect((await browser.request('GET', '/api/backoffice/session')).statusCode).toBe(200);
    clock.advance(14 * 60_000);
    expect((await browser.request('GET', '/api/backoffice/session')).statusCode).toBe(200);
    clock.advance(16 * 60_000);
    const idle = await browser.request('GET', '/api/backoffice/session');
    expect(idle.statusCode).toBe(401);
    const ended = await em().find(PlatformAdminSession, { adminId: first.id, endedReason: 'idle' });
    expect(ended.length).toBeGreaterThan(0);
  });

  it("an organization user's session is refused on /api/backoffice/*, a platform administrator's on /api/users", async () => {
    const owner = await signedIn(app, await registerVerified(app));
    const asOwner = await owner.get('/api/backoffice/platform-admins');
    expect(asOwner.statusCode).toBe(401);
    expect(asOwner.json().error.code).toBe('unauthorized');
    // Even the organization's cookie sent under the backoffice cookie's name is not a backoffice session.
    const renamed = await app.inject({
      method: 'GET',
      url: '/api/backoffice/session',
      headers: { cookie: `${COOKIE}=${owner.cookie}` },
    });
    expect(renamed.statusCode).toBe(401);

    const admin = await signInAdmin(first.email, first.password);
    for (const url of ['/api/users', '/api/auth/me', '/api/organization/settings']) {
      const asAdmin = await admin.request('GET', url);
      expect(asAdmin.statusCode, url).toBe(401);
      const renamedAdmin = await app.inject({
        method: 'GET',
        url,
        headers: { cookie: `sigil_session=${admin.cookie}` },
      });
      expect(renamedAdmin.statusCode, url).toBe(401);
    }
  });
});

/** A second administrator made by the first through the route; answers its first password. */
async function createThroughApi(label: string, by?: AdminBrowser): Promise<Admin> {
  const browser = by ?? (await signInAdmin(first.email, first.password));
  const email = emailAt(label);
  const created = await browser.request('POST', '/api/backoffice/platform-admins', {
    email,
    fullName: `Admin ${label}`,
  });
  expect(created.statusCode, created.body).toBe(200);
  return { id: created.json().administrator.id, email, password: created.json().password };
}

describe('administrators, domains and the IP allowlist', () => {
  it('makes administrators only at allowed domains, and keeps a domain in use', async () => {
    const admin = await signInAdmin(first.email, first.password);
    const otherDomain = `partner-${randomUUID().slice(0, 8)}.example.test`;
    const refused = await admin.request('POST', '/api/backoffice/platform-admins', {
      email: emailAt('outside', otherDomain),
      fullName: 'Outside',
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('domain_not_allowed');
    expect(refused.json().error.message).toContain(otherDomain);

    const added = await admin.request('POST', '/api/backoffice/platform-admins/allowed-domains', {
      domain: otherDomain.toUpperCase(),
    });
    expect(added.statusCode, added.body).toBe(200);
    expect(added.json().domain).toBe(otherDomain);
    const made = await admin.request('POST', '/api/backoffice/platform-admins', {
      email: emailAt('partner', otherDomain),
      fullName: 'Partner',
    });
    expect(made.statusCode, made.body).toBe(200);
    const inUse = await admin.request(
      'DELETE',
      `/api/backoffice/platform-admins/allowed-domains/${added.json().id}`,
    );
    expect(inUse.statusCode).toBe(409);
    expect(inUse.json().error.code).toBe('domain_in_use');
    expect(
      (await admin.request('DELETE', `/api/backoffice/platform-admins/${made.json().administrator.id}`))
        .statusCode,
    ).toBe(200);
    const renamed = await admin.request(
      'PUT',
      `/api/backoffice/platform-admins/allowed-domains/${added.json().id}`,
      {
        domain: `renamed-${otherDomain}`,
      },
    );
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(
      (await admin.request('DELETE', `/api/backoffice/platform-admins/allowed-domains/${added.json().id}`))
        .statusCode,
    ).toBe(200);
    const policy = (await admin.request('GET', '/api/backoffice/platform-admins/security-policy')).json();
    expect(policy.allowedDomains.map((domain: { domain: string }) => domain.domain)).toContain(DOMAIN);
    expect(policy.allowedDomains.map((domain: { domain: string }) => domain.domain)).not.toContain(
      otherDomain,
    );
  });

  it('refuses requests from outside a non-empty allowlist (the sign-in too), and a change that locks the changer out', async () => {
    await withBackofficeAllowlist(async () => {
      try {
        const admin = await signInAdmin(first.email, first.password);
        const loopback = await admin.request('POST', '/api/backoffice/platform-admins/ip-allowlist', {
          entry: '127.0.0.0/8',
          description: 'every loopback address (tests)',
        });
        // In the allowlist's turn (test/support/backoffice-allowlist.ts) the list starts empty.
        expect(loopback.statusCode, loopback.body).toBe(200);

        const outside = adminBrowser('198.51.100.7');
        outside.cookie = admin.cookie;
        for (const [method, url] of [
          ['GET', '/api/backoffice/session'],
          ['GET', '/api/backoffice/platform-admins'],
          ['POST', '/api/backoffice/platform-admins/otp'],
          ['GET', '/api/backoffice/no-such-route'],
        ] as const) {
          const answer = await outside.request(
            method,
            url,
            method === 'POST' ? { email: first.email, password: first.password } : undefined,
          );
          expect(answer.statusCode, `${method} ${url}`).toBe(403);
          expect(answer.json().error).toMatchObject({
            code: 'forbidden',
            details: [],
            request_id: expect.any(String),
          });
          expect(answer.json().error.message).toContain('198.51.100.7');
        }
        // Without a trusted proxy (the test configuration has none) X-Forwarded-For is not believed: the socket's
        // address decides, either way.
        const spoofed = await app.inject({
          method: 'GET',
          url: '/api/backoffice/session',
          remoteAddress: '198.51.100.7',
          headers: { 'x-forwarded-for': '127.0.0.1', cookie: `${COOKIE}=${admin.cookie}` },
        });
        expect(spoofed.statusCode).toBe(403);
        const honest = await app.inject({
          method: 'GET',
          url: '/api/backoffice/session',
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': '198.51.100.7', cookie: `${COOKIE}=${admin.cookie}` },
        });
        expect(honest.statusCode).toBe(200);

        // Self-lockout: the administrator at 203.0.113.10 cannot make a list without that address.
        const remote = adminBrowser('203.0.113.10');
        remote.cookie = admin.cookie;
        const locking = await remote.request('POST', '/api/backoffice/platform-admins/ip-allowlist', {
          entry: '198.51.100.0/24',
        });
        expect(locking.statusCode).toBe(403); // 203.0.113.10 is itself outside the list, so it gets nowhere
        const range = await admin.request('POST', '/api/backoffice/platform-admins/ip-allowlist', {
          entry: '203.0.113.0/24',
          description: 'the office',
        });
        expect(range.statusCode, range.body).toBe(200);
        expect((await remote.request('GET', '/api/backoffice/session')).statusCode).toBe(200);
        const lockout = await remote.request(
          'DELETE',
          `/api/backoffice/platform-admins/ip-allowlist/${range.json().id}`,
        );
        expect(lockout.statusCode).toBe(409);
        expect(lockout.json().error.code).toBe('would_lock_out');
        expect(lockout.json().error.message).toContain('203.0.113.10');
        const narrowed = await remote.request(
          'PUT',
          `/api/backoffice/platform-admins/ip-allowlist/${range.json().id}`,
          {
            entry: '203.0.113.128/25',
          },
        );
        expect(narrowed.statusCode).toBe(409);
        expect(narrowed.json().error.code).toBe('would_lock_out');
        const widened = await remote.request(
          'PUT',
          `/api/backoffice/platform-admins/ip-allowlist/${range.json().id}`,
          {
            entry: '203.0.113.0/25',
            description: 'the office, first half',
          },
        );
        expect(widened.statusCode, widened.body).toBe(200);
        expect(widened.json().entry).toBe('203.0.113.0/25');

        // The sign-in from an allowed outside address works; then the entry goes (from the loopback, not locked out).
        const fromOffice = await signInAdmin(first.email, first.password, '203.0.113.20');
        expect(
          (await fromOffice.request('GET', '/api/backoffice/platform-admins/security-policy')).json()
            .yourAddress,
        ).toBe('203.0.113.20');
        const removed = await admin.request(
          'DELETE',
          `/api/backoffice/platform-admins/ip-allowlist/${range.json().id}`,
        );
        expect(removed.statusCode, removed.body).toBe(200);
        expect((await remote.request('GET', '/api/backoffice/session')).statusCode).toBe(403);
        // The last entry can go: the list is empty again, as the other files expect it between turns.
        const cleared = await admin.request(
          'DELETE',
          `/api/backoffice/platform-admins/ip-allowlist/${loopback.json().id}`,
        );
        expect(cleared.statusCode, cleared.body).toBe(200);
      } finally {
        await ctx.orm.em.fork().execute('delete from platform_admin_ip_allowlist');
      }
    });
  });

  it('lets another administrator remove one, never oneself', async () => {
    const admin = await signInAdmin(first.email, first.password);
    const second = await createThroughApi('second', admin);
    const self = await admin.request('DELETE', `/api/backoffice/platform-admins/${first.id}`);
    expect(self.statusCode).toBe(409);
    expect(self.json().error.code).toBe('cannot_remove_self');
    const secondBrowser = await signInAdmin(second.email, second.password);
    const missing = await admin.request('DELETE', `/api/backoffice/platform-admins/${randomUUID()}`);
    expect(missing.statusCode).toBe(404);

    // `second` removes `first`'s stand-in: another administrator made for it, whose session ends with them.
    const third = await createThroughApi('third', admin);
    const thirdBrowser = await signInAdmin(third.email, third.password);
    const removed = await secondBrowser.request('DELETE', `/api/backoffice/platform-admins/${third.id}`);
    expect(removed.statusCode, removed.body).toBe(200);
    expect((await thirdBrowser.request('GET', '/api/backoffice/session')).statusCode).toBe(401);
    expect(await em().findOne(PlatformAdmin, { id: third.id })).toBeNull();
    const removal = await em().findOneOrFail(BackofficeAuditEvent, {
      action: 'platform_admin.removed',
      targetId: third.id,
    });
    expect(removal).toMatchObject({
      actorAdminId: second.id,
      details: { email: third.email, fullName: 'Admin third' },
    });
  });

  it('never removes the last administrator (in a transaction rolled back: other files share the database)', async () => {
    const tx = ctx.orm.em.fork();
    await expect(
      tx.transactional(async (em) => {
        // The rule counts every administrator under a lock: alone in this transaction, `first` is the last.
        await em.execute('delete from platform_admin where id <> ?', [first.id]);
        const other = randomUUID();
        await expect(
          removePlatformAdmin(
            { em },
            { kind: 'platform_admin', admin: { id: other, email: 'x@example.test' }, ipAddress: null },
            first.id,
          ),
        ).rejects.toMatchObject({ status: 409, code: 'last_platform_admin' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await em().count(PlatformAdmin, {})).toBeGreaterThan(1);
  });

  it('writes every action to the audit log: who, when, from where, what; newest first, a page at a time', async () => {
    const admin = await signInAdmin(first.email, first.password, '127.0.5.5');
    const created = await createThroughApi('audited', admin);
    const page = await admin.request('GET', '/api/backoffice/audit-log?limit=2');
    expect(page.statusCode, page.body).toBe(200);
    const { events, nextCursor } = page.json();
    expect(events).toHaveLength(2);
    expect(nextCursor).toEqual(expect.any(String));
    const made = await em().findOneOrFail(BackofficeAuditEvent, {
      action: 'platform_admin.created',
      targetId: created.id,
    });
    expect(made).toMatchObject({
      actorKind: 'platform_admin',
      actorAdminId: first.id,
      actorEmail: first.email,
      ipAddress: '127.0.5.5',
    });
    expect(made.details).toEqual({ email: created.email, fullName: 'Admin audited', role: 'administrator' });
    const older = await admin.request('GET', `/api/backoffice/audit-log?limit=2&cursor=${nextCursor}`);
    expect(older.statusCode).toBe(200);
    const times = [...events, ...older.json().events].map((event: { occurredAt: string }) =>
      Date.parse(event.occurredAt),
    );
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    // No secret is ever in the log: no password, no code.
    const all = await em().find(BackofficeAuditEvent, {});
    const text = JSON.stringify(all.map((event) => event.details));
    expect(text).not.toContain(created.password);
    expect(text).not.toContain(first.password);
    const signIns = all.filter(
      (event) => event.action === 'sign_in.succeeded' && event.actorAdminId === first.id,
    );
    expect(signIns.at(-1)?.ipAddress).toBeDefined();
  });
});

describe('bad input', () => {
  it('answers 400 naming the field for every body type, and for a bad id or query', async () => {
    const admin = await signInAdmin(first.email, first.password);
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/backoffice/platform-admins', { email: 'nope', fullName: 'X' }, 'body.email'],
      ['POST', '/api/backoffice/platform-admins', { email: emailAt('x'), fullName: '' }, 'body.fullName'],
      [
        'POST',
        '/api/backoffice/platform-admins',
        { email: emailAt('x'), fullName: 'X', role: 'root' },
        'body.role',
      ],
      ['POST', '/api/backoffice/platform-admins/otp', { email: 'nope', password: 'x' }, 'body.email'],
      ['POST', '/api/backoffice/platform-admins/otp', { email: first.email, password: '' }, 'body.password'],
      ['POST', '/api/backoffice/session', { email: first.email, code: '12345' }, 'body.code'],
      ['POST', '/api/backoffice/platform-admins/ip-allowlist', { entry: '10.0.0.0/33' }, 'body.entry'],
      ['POST', '/api/backoffice/platform-admins/ip-allowlist', { entry: 'not an address' }, 'body.entry'],
      [
        'POST',
        '/api/backoffice/platform-admins/ip-allowlist',
        { entry: '127.0.0.1', description: 'x'.repeat(201) },
        'body.description',
      ],
      ['PUT', `/api/backoffice/platform-admins/ip-allowlist/${randomUUID()}`, { entry: '' }, 'body.entry'],
      ['PUT', '/api/backoffice/platform-admins/ip-allowlist/not-a-uuid', { entry: '127.0.0.1' }, 'params.id'],
      [
        'POST',
        '/api/backoffice/platform-admins/allowed-domains',
        { domain: 'https://example.com/' },
        'body.domain',
      ],
      [
        'POST',
        '/api/backoffice/platform-admins/allowed-domains',
        { domain: 'user@example.com' },
        'body.domain',
      ],
      [
        'PUT',
        `/api/backoffice/platform-admins/allowed-domains/${randomUUID()}`,
        { domain: 'localhost' },
        'body.domain',
      ],
      ['DELETE', '/api/backoffice/platform-admins/123', undefined, 'params.id'],
      ['GET', '/api/backoffice/audit-log?limit=0', undefined, 'querystring.limit'],
      ['GET', '/api/backoffice/audit-log?cursor=***', undefined, 'querystring.cursor'],
    ];
    for (const [method, url, body, field] of cases) {
      const answer = await admin.request(method as 'POST', url, body);
      expect(answer.statusCode, `${method} ${url} ${JSON.stringify(body)}: ${answer.body}`).toBe(400);
      expect(answer.json().error.code).toBe('invalid_request');
      expect(
        answer.json().error.details.map((detail: { field: string }) => detail.field),
        `${method} ${url}`,
      ).toContain(field);
    }
    const noBody = await admin.request('POST', '/api/backoffice/platform-admins/ip-allowlist');
    expect(noBody.statusCode).toBe(400);

    // An entry whose prefix covers a whole address family (issue 30: 127.0.0.1/0 is all of IPv4) is refused,
    // adding or changing, naming the entry; nothing is stored.
    for (const [entry, family] of [
      ['127.0.0.1/0', 'IPv4'],
      ['0.0.0.0/00', 'IPv4'],
      ['::/0', 'IPv6'],
      ['2001:db8::1/0', 'IPv6'],
    ]) {
      for (const [method, url] of [
        ['POST', '/api/backoffice/platform-admins/ip-allowlist'],
        ['PUT', `/api/backoffice/platform-admins/ip-allowlist/${randomUUID()}`],
      ] as const) {
        const answer = await admin.request(method, url, { entry });
        expect(answer.statusCode, `${method} ${entry}: ${answer.body}`).toBe(400);
        expect(answer.json().error).toMatchObject({
          code: 'invalid_request',
          details: [
            {
              field: 'body.entry',
              message: `"${entry}" covers every ${family} address, so it would let any of them reach the backoffice`,
            },
          ],
        });
      }
    }
    const stored = await em()
      .getConnection()
      .execute<{ entry: string }[]>('select entry from platform_admin_ip_allowlist where entry like ?', [
        '%/0',
      ]);
    expect(stored).toEqual([]);
  });
});

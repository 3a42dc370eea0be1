// Nothing tells whether an address has an account (docs/accounts.md, "Abuse"): sign-in, registration,
// password reset, resending the verification and inviting a user answer a known and an unknown address with the
// same status and body (but the request id, and an invitation's own id, address, name and times), in comparable
// time — medians of 15 tries each within a factor of 1.5 (plus 5 ms for the routes without a password hash,
// whose answers take a few milliseconds either way).
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  type Browser,
  comparable,
  newBrowser,
  newEmail,
  PASSWORD,
  registerVerified,
  registration,
  useAccountsApp,
} from '../support/auth-http.ts';
import type { TestContext } from '../support/context.ts';
import { signedInUser } from '../support/signed-in-user.ts';

// The standard work factors, set before the modules load (the padding hash is made at import): the comparison
// needs the password hash to dominate an answer's time, as in production (the rest of the suite may run with
// SIGIL_HASH_COST=low, where the hash takes a millisecond and the other work decides).
const cost = vi.hoisted(() => {
  const previous = process.env.SIGIL_HASH_COST;
  process.env.SIGIL_HASH_COST = 'standard';
  return { previous };
});
afterAll(() => {
  if (cost.previous === undefined) delete process.env.SIGIL_HASH_COST;
  else process.env.SIGIL_HASH_COST = cost.previous;
});

let ctx: TestContext;
let app: FastifyInstance;

useAccountsApp({}, (opened) => ({ ctx, app } = opened));

const TRIES = 15;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * Alternates a request for a known and for an unknown address, TRIES times each; every answer of one must
 * equal the other's (status and body but the request id); answers the medians in milliseconds.
 */
async function compare(
  send: (browser: Browser, which: 'known' | 'unknown', attempt: number) => Promise<LightMyRequestResponse>,
  before?: () => Promise<void>,
  options: { cookie?: string; normalize?: (body: unknown) => unknown } = {},
): Promise<{ known: number; unknown: number; answer: unknown }> {
  const browser = newBrowser(app);
  browser.cookie = options.cookie ?? null;
  const times = { known: [] as number[], unknown: [] as number[] };
  let first: unknown;
  // One warm-up each (connections, caches), not counted.
  for (let attempt = -1; attempt < TRIES; attempt += 1) {
    for (const which of attempt % 2 === 0
      ? (['known', 'unknown'] as const)
      : (['unknown', 'known'] as const)) {
      await before?.();
      const start = performance.now();
      const response = await send(browser, which, attempt);
      const elapsed = performance.now() - start;
      const plain = comparable(response);
      const answer = options.normalize ? { ...plain, body: options.normalize(plain.body) } : plain;
      first ??= answer;
      expect(answer, `${which} attempt ${attempt}`).toEqual(first);
      if (attempt >= 0) times[which].push(elapsed);
    }
  }
  return { known: median(times.known), unknown: median(times.unknown), answer: first };
}

function expectComparable(medians: { known: number; unknown: number }, slackMs = 0) {
  const slower = Math.max(medians.known, medians.unknown);
  const faster = Math.min(medians.known, medians.unknown);
  expect(slower, JSON.stringify(medians)).toBeLessThan(faster * 1.5 + slackMs);
}

describe('a known and an unknown address', () => {
  it('get the same sign-in failure in comparable time', async () => {
    const known = await registerVerified(app);
    const unknown = newEmail('nobody');
    // The throttle would step in after four failures: each try starts from none (a new window).
    const forget = async () => {
      await ctx.orm.em
        .fork()
        .getConnection()
        .execute('delete from login_throttle where key in (?, ?)', [
          `account:${known}`,
          `account:${unknown}`,
        ]);
    };
    const medians = await compare(
      (browser, which) =>
        browser.post('/api/auth/login', {
          email: which === 'known' ? known : unknown,
          password: 'wrong password!',
        }),
      forget,
    );
    expect(medians.answer).toEqual({
      status: 401,
      body: { error: { code: 'invalid_credentials', message: 'Email or password is wrong.', details: [] } },
    });
    expectComparable(medians);
  });

  it('get the same registration answer in comparable time', async () => {
    const known = await registerVerified(app);
    const medians = await compare((browser, which) =>
      browser.post('/api/auth/register', registration(which === 'known' ? known : newEmail('new'))),
    );
    expect(medians.answer).toEqual({ status: 200, body: { ok: true } });
    expectComparable(medians);
  });

  it('get the same password reset answer in comparable time', async () => {
    const known = await registerVerified(app);
    const medians = await compare((browser, which) =>
      browser.post('/api/auth/forgot-password', { email: which === 'known' ? known : newEmail('nobody') }),
    );
    expect(medians.answer).toEqual({ status: 200, body: { ok: true } });
    expectComparable(medians, 5);
  });

  it('get the same answer to resending the verification, verified or not, in comparable time', async () => {
    const verified = await registerVerified(app);
    const unverified = newEmail('unverified');
    expect((await newBrowser(app).post('/api/auth/register', registration(unverified))).statusCode).toBe(200);
    for (const known of [verified, unverified]) {
      const medians = await compare((browser, which) =>
        browser.post('/api/auth/resend-verification', {
          email: which === 'known' ? known : newEmail('nobody'),
        }),
      );
      expect(medians.answer).toEqual({ status: 200, body: { ok: true } });
      expectComparable(medians, 5);
    }
  });

  it('get the same invitation answer in comparable time (issue 30)', async () => {
    // The inviter's organization, and an organization whose users hold the known addresses.
    const inviter = await signedInUser({ ctx }, { role: 'owner', plan: 'Enterprise' });
    const elsewhere = await signedInUser({ ctx }, { role: 'owner' });
    const known: string[] = [];
    for (let index = 0; index <= TRIES; index += 1) {
      known.push(
        (await signedInUser({ ctx }, { role: 'member', organizationId: elsewhere.organization.id })).email,
      );
    }
    const [memberRole] = await ctx.orm.em
      .fork()
      .getConnection()
      .execute<{ id: string }[]>(`select id from role where organization_id = ? and built_in = 'member'`, [
        inviter.organization.id,
      ]);
    // An invitation's own id, address, name and times differ from one to the next, whoever is invited.
    const normalize = (body: unknown) => ({
      ...(body as Record<string, unknown>),
      id: 'id',
      email: 'email',
      fullName: 'name',
      invitedAt: 'time',
      createdAt: 'time',
    });
    const medians = await compare(
      (browser, which, attempt) =>
        browser.post('/api/users/invite', {
          fullName: `Invited ${which}`,
          email: which === 'known' ? known[attempt + 1] : newEmail('nobody'),
          roleId: memberRole?.id,
        }),
      undefined,
      { cookie: inviter.cookie.replace(/^sigil_session=/, ''), normalize },
    );
    expect(medians.answer).toMatchObject({
      status: 200,
      body: { status: 'invited', role: { name: 'Read-only member' }, team: null, mfaEnabled: false },
    });
    expectComparable(medians, 5);
  });

  it('is refused only after the right password when unverified', async () => {
    const unverified = newEmail('unverified');
    const browser = newBrowser(app);
    expect((await browser.post('/api/auth/register', registration(unverified))).statusCode).toBe(200);
    const wrong = comparable(
      await browser.post('/api/auth/login', { email: unverified, password: 'wrong password!' }),
    );
    const unknown = comparable(
      await browser.post('/api/auth/login', { email: newEmail('nobody'), password: 'wrong password!' }),
    );
    expect(wrong).toEqual(unknown);
    const right = comparable(
      await browser.post('/api/auth/login', { email: unverified, password: PASSWORD }),
    );
    expect(right).toMatchObject({ status: 403, body: { error: { code: 'email_not_verified' } } });
  });
});

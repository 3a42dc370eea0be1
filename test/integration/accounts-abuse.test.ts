// Abuse protection of the sign-in (docs/accounts.md, "Abuse"), through HTTP with an injected clock: from the
// 5th failure of an address each attempt waits a growing delay (429 rate_limited with Retry-After), the 10th
// locks it for 15 minutes (429 account_locked, even with the right password), after which the right password
// works; an unknown address gets exactly the same answers; a lock starts one user.locked_out in the security
// log; a network address with 50 failures is refused whatever the account, and only in its own realm (the
// backoffice's sign-in counts apart); reset and verification emails go out at most once a minute per address
// while every request is answered Ok.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { AppUser, SecurityEvent } from '../../db/entities/index.ts';
import {
  type Browser,
  capturedTo,
  newBrowser,
  newEmail,
  PASSWORD,
  registerVerified,
  registration,
  testClock,
  useAccountsApp,
} from '../support/auth-http.ts';
import { withBackofficeAllowlist } from '../support/backoffice-allowlist.ts';
import type { TestContext } from '../support/context.ts';

let ctx: TestContext;
let app: FastifyInstance;
const clock = testClock();

useAccountsApp({ clock: clock.now }, (opened) => ({ ctx, app } = opened));

const em = () => ctx.orm.em.fork();

interface Answer {
  status: number;
  code: string | null;
  retryAfter: string | null;
  message: string | null;
}

function answer(response: LightMyRequestResponse): Answer {
  const body = response.json() as { error?: { code: string; message: string } };
  return {
    status: response.statusCode,
    code: body.error?.code ?? null,
    retryAfter: (response.headers['retry-after'] as string | undefined) ?? null,
    message: body.error?.message ?? null,
  };
}

const WRONG = 'not the right password';

/** Fails until the lock, waiting each delay out (moving the clock), and records every answer. */
async function failUntilLocked(browser: Browser, email: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  const attempt = async (password: string) => {
    const result = answer(await browser.post('/api/auth/login', { email, password }));
    answers.push(result);
    return result;
  };
  for (let failure = 1; failure <= 10; failure += 1) {
    const result = await attempt(WRONG);
    expect(result.status, `failure ${failure}`).toBe(401);
    if (failure >= 5 && failure < 10) {
      // Too early: refused without checking, even with the right password.
      const early = await attempt(PASSWORD);
      expect(early.status, `after failure ${failure}`).toBe(429);
      clock.advance(Number(early.retryAfter) * 1000);
    }
  }
  return answers;
}

describe('failed sign-ins of an address', () => {
  it('wait growing delays, then lock for 15 minutes; an unknown address gets the same answers', async () => {
    const known = await registerVerified(app);
    const unknown = newEmail('nobody');
    const sequences: Answer[][] = [];
    for (const email of [known, unknown]) {
      const browser = newBrowser(app);
      const answers = await failUntilLocked(browser, email);
      // Locked: the right password is refused too, for 15 minutes.
      answers.push(answer(await browser.post('/api/auth/login', { email, password: PASSWORD })));
      clock.advance(14 * 60_000);
      answers.push(answer(await browser.post('/api/auth/login', { email, password: PASSWORD })));
      clock.advance(61_000);
      const after = await browser.post('/api/auth/login', { email, password: PASSWORD });
      expect(after.statusCode, after.body).toBe(email === known ? 200 : 401);
      sequences.push(answers);
    }
    const [knownAnswers, unknownAnswers] = sequences as [Answer[], Answer[]];
    expect(unknownAnswers).toEqual(knownAnswers);

    const refusals = knownAnswers.filter((entry) => entry.status === 429);
    expect(refusals.map((entry) => [entry.code, entry.retryAfter])).toEqual([
      ['rate_limited', '1'],
      ['rate_limited', '2'],
      ['rate_limited', '4'],
      ['rate_limited', '8'],
      ['rate_limited', '16'],
      ['account_locked', '900'],
      ['account_locked', '60'],
    ]);
    expect(knownAnswers.filter((entry) => entry.status === 401)).toHaveLength(10);
    for (const entry of knownAnswers.filter((candidate) => candidate.status === 401)) {
      expect(entry).toEqual({
        status: 401,
        code: 'invalid_credentials',
        retryAfter: null,
        message: 'Email or password is wrong.',
      });
    }

    const user = await em().findOneOrFail(AppUser, { email: known });
    const events = await em().find(SecurityEvent, { organizationId: user.organizationId });
    expect(events.filter((event) => event.type === 'user.sign_in_failed')).toHaveLength(10);
    const locked = events.filter((event) => event.type === 'user.locked_out');
    expect(locked).toHaveLength(1);
    expect(locked[0]).toMatchObject({ subjectUserId: user.id, subjectEmail: known });
    expect(events.filter((event) => event.type === 'user.signed_in')).toHaveLength(1);
  });

  it('start counting again after a successful sign-in', async () => {
    const email = await registerVerified(app);
    const browser = newBrowser(app);
    for (let failure = 1; failure <= 4; failure += 1) {
      expect((await browser.post('/api/auth/login', { email, password: WRONG })).statusCode).toBe(401);
    }
    expect((await browser.post('/api/auth/login', { email, password: PASSWORD })).statusCode).toBe(200);
    // Four more failures are again below the delay.
    for (let failure = 1; failure <= 4; failure += 1) {
      expect((await browser.post('/api/auth/login', { email, password: WRONG })).statusCode).toBe(401);
    }
    expect((await browser.post('/api/auth/login', { email, password: PASSWORD })).statusCode).toBe(200);
  });

  it('refuse a deactivated account and an invitation not yet accepted like a wrong password', async () => {
    const email = await registerVerified(app);
    const userEm = em();
    const user = await userEm.findOneOrFail(AppUser, { email });
    user.status = 'deactivated';
    await userEm.flush();
    const browser = newBrowser(app);
    const refused = answer(await browser.post('/api/auth/login', { email, password: PASSWORD }));
    const unknown = answer(await browser.post('/api/auth/login', { email: newEmail(), password: PASSWORD }));
    expect(refused).toEqual(unknown);
    expect(refused.code).toBe('invalid_credentials');
    const [event] = await em().find(SecurityEvent, { subjectUserId: user.id, type: 'user.sign_in_failed' });
    expect(event?.details).toMatchObject({ reason: 'deactivated' });
  });
});

describe('failed sign-ins from a network address', () => {
  it('are refused after 50 within 15 minutes, whatever the account; other addresses are not', async () => {
    const email = await registerVerified(app);
    const browser = newBrowser(app);
    // 50 failures over 13 addresses, at most 4 each (below an address's delay).
    for (let failure = 0; failure < 50; failure += 1) {
      const target = `spray-${Math.floor(failure / 4)}-${clock.now().getTime()}@example.test`;
      const response = await browser.post('/api/auth/login', { email: target, password: WRONG });
      expect(response.statusCode, `failure ${failure + 1}`).toBe(401);
    }
    const refused = await browser.post('/api/auth/login', { email, password: PASSWORD });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(browser.cookie).toBeNull();

    expect((await newBrowser(app).post('/api/auth/login', { email, password: PASSWORD })).statusCode).toBe(
      200,
    );
    clock.advance(15 * 60_000 + 1000);
    expect((await browser.post('/api/auth/login', { email, password: PASSWORD })).statusCode).toBe(200);
  });
});

describe('failed sign-ins of organization users and of platform administrators', () => {
  it('are counted apart: 50 of one from an address never refuse the other there (issue 30)', async () => {
    // The backoffice's IP allowlist is shared by the test files: held empty meanwhile.
    await withBackofficeAllowlist(async () => {
      const otp = (browser: Browser, email: string) =>
        browser.request('POST', '/api/backoffice/platform-admins/otp', { email, password: WRONG });
      const spray = (label: string, failure: number) =>
        `${label}-${Math.floor(failure / 4)}-${clock.now().getTime()}@example.test`;

      // 50 wrong organization passwords from one address (over 13 addresses, below an address's delay)…
      const organizationSide = newBrowser(app);
      for (let failure = 0; failure < 50; failure += 1) {
        const response = await organizationSide.post('/api/auth/login', {
          email: spray('org-spray', failure),
          password: WRONG,
        });
        expect(response.statusCode, `failure ${failure + 1}`).toBe(401);
      }
      const refused = await organizationSide.post('/api/auth/login', {
        email: spray('org', 99),
        password: WRONG,
      });
      expect(answer(refused)).toMatchObject({ status: 429, code: 'rate_limited' });
      // …leave the backoffice's sign-in open from there: a wrong password is still just wrong.
      expect(answer(await otp(organizationSide, 'nobody@backoffice.example.test'))).toMatchObject({
        status: 401,
        code: 'invalid_credentials',
      });

      // 50 wrong backoffice passwords from another address are the backoffice's own limit…
      const backofficeSide = newBrowser(app);
      for (let failure = 0; failure < 50; failure += 1) {
        const response = await otp(backofficeSide, spray('admin-spray', failure));
        expect(response.statusCode, `failure ${failure + 1}`).toBe(401);
      }
      expect(answer(await otp(backofficeSide, 'someone@backoffice.example.test'))).toMatchObject({
        status: 429,
        code: 'rate_limited',
      });
      // …and organization users signing in from there are not refused.
      const email = await registerVerified(app);
      const signedIn = await backofficeSide.post('/api/auth/login', { email, password: PASSWORD });
      expect(signedIn.statusCode, signedIn.body).toBe(200);
    });
  });
});

describe('emails on request', () => {
  it('go out at most once a minute per address, while every request is answered Ok', async () => {
    const email = await registerVerified(app);
    const unverified = newEmail('unverified');
    const browser = newBrowser(app);
    expect((await browser.post('/api/auth/register', registration(unverified))).statusCode).toBe(200);
    const count = async (to: string, kind: string) =>
      (await capturedTo(app, to)).filter((captured) => captured.kind === kind).length;

    for (let request = 0; request < 3; request += 1) {
      const reset = await browser.post('/api/auth/forgot-password', { email });
      expect(reset.statusCode).toBe(200);
      expect(reset.json()).toEqual({ ok: true });
      const resend = await browser.post('/api/auth/resend-verification', { email: unverified });
      expect(resend.statusCode).toBe(200);
      expect(resend.json()).toEqual({ ok: true });
    }
    expect(await count(email, 'reset_password')).toBe(1);
    // The registration's email, and one more.
    expect(await count(unverified, 'verify_email')).toBe(2);

    clock.advance(61_000);
    await browser.post('/api/auth/forgot-password', { email });
    await browser.post('/api/auth/resend-verification', { email: unverified });
    expect(await count(email, 'reset_password')).toBe(2);
    expect(await count(unverified, 'verify_email')).toBe(3);
    // A verified address gets no verification email.
    await browser.post('/api/auth/resend-verification', { email });
    expect(await count(email, 'verify_email')).toBe(1);
  });
});

// The account and session routes through HTTP (app.inject) for the accounts-*.test.ts files: the app with an
// injectable clock, a browser-like cookie jar on a loopback address of its own, registration through the
// route with the verification link read from the development capture, and a signed-in browser.
import { randomInt } from 'node:crypto';
import type { Connection } from '@temporalio/client';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { buildApp } from '../../api/app.ts';
import type { AppConfig } from '../../api/dependencies.ts';
import { accountEmailsSettled } from '../../services/accounts/account-emails.ts';
import { openTestContext, type TestContext, testConfig } from './context.ts';

/** The test configuration's PUBLIC_BASE_URL: mutations must come from a page of this server. */
export const ORIGIN = 'http://localhost:3000';
export const PASSWORD = 'correct horse battery staple';

/** A clock the test moves by hand (sessions, tokens and the throttle read it). */
export function testClock() {
  let offsetMs = 0;
  return {
    now: (): Date => new Date(Date.now() + offsetMs),
    advance(ms: number) {
      offsetMs += ms;
    },
  };
}

export function buildAccountsApp(
  ctx: TestContext,
  options: { config?: AppConfig; clock?: () => Date } = {},
): Promise<FastifyInstance> {
  return buildApp({
    config: options.config ?? testConfig(),
    orm: ctx.orm,
    temporal: {
      connection: ctx.temporal.connection as Connection,
      client: ctx.temporal,
      namespace: inject('namespace'),
    },
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    ...(options.clock ? { clock: options.clock } : {}),
  });
}

/**
 * Opens the test context and the accounts app before the file's tests (handing them to `opened`, which keeps
 * them in the file's variables) and closes both after them.
 */
export function useAccountsApp(
  options: { clock?: () => Date },
  opened: (harness: { ctx: TestContext; app: FastifyInstance }) => void,
): void {
  let ctx: TestContext | undefined;
  let app: FastifyInstance | undefined;
  beforeAll(async () => {
    ctx = await openTestContext();
    app = await buildAccountsApp(ctx, options);
    opened({ ctx, app });
  });
  afterAll(async () => {
    await app?.close();
    await ctx?.close();
  });
}

/** A unique address at example.test. */
export function newEmail(label = 'user'): string {
  return `${label}-${Math.random().toString(36).slice(2, 10)}@example.test`;
}

let addressCounter = 0;
/**
 * This process's part of 127.0.0.0/8: an octet and a starting point of its own, drawn once. The throttles'
 * counts live in the database that every test file shares, for 15 minutes: addresses drawn afresh per call
 * met another file's now and then (once in CI: a fresh address already held 10 failed sign-ins of another
 * file's and refused the 41st of 50), while one process's addresses follow each other and never repeat.
 */
const PROCESS_OCTET = randomInt(20, 220);
const PROCESS_START = randomInt(0, 256 * 254);
/** A loopback address of its own (the capture serves loopback only), so the tests' throttles do not mix. */
export function newAddress(): string {
  addressCounter += 1;
  const n = (PROCESS_START + addressCounter) % (256 * 254);
  return `127.${PROCESS_OCTET}.${Math.floor(n / 254)}.${(n % 254) + 1}`;
}

export interface Browser {
  readonly app: FastifyInstance;
  readonly address: string;
  /** The session cookie's value, kept and sent as a browser would; null: none. */
  cookie: string | null;
  request(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  post(url: string, body?: unknown): Promise<LightMyRequestResponse>;
  get(url: string): Promise<LightMyRequestResponse>;
}

/** One browser: its address and the session cookie it keeps. Mutations carry this server's Origin. */
export function newBrowser(app: FastifyInstance, address = newAddress()): Browser {
  const browser: Browser = {
    app,
    address,
    cookie: null,
    async request(method, url, body, headers = {}) {
      const response = await app.inject({
        method,
        url,
        remoteAddress: address,
        headers: {
          ...(method === 'GET' ? {} : { origin: ORIGIN }),
          ...(browser.cookie ? { cookie: `sigil_session=${browser.cookie}` } : {}),
          ...headers,
        },
        ...(body === undefined ? {} : { payload: body as object }),
      });
      const set = response.cookies.find((cookie) => cookie.name === 'sigil_session');
      if (set) browser.cookie = set.value ? set.value : null;
      return response;
    },
    post: (url, body) => browser.request('POST', url, body ?? {}),
    get: (url) => browser.request('GET', url),
  };
  return browser;
}

export interface CapturedEmail {
  kind: string;
  to: string;
  subject: string | null;
  body: string;
  signingLink: string | null;
  createdAt: string;
}

/**
 * The captured emails to an address, newest first (GET /api/dev/notifications), once every account email
 * queued so far is sent (the routes send after answering).
 */
export async function capturedTo(app: FastifyInstance, to: string): Promise<CapturedEmail[]> {
  await accountEmailsSettled();
  const response = await app.inject({
    method: 'GET',
    url: `/api/dev/notifications?to=${encodeURIComponent(to)}`,
  });
  expect(response.statusCode).toBe(200);
  return (response.json() as { notifications: CapturedEmail[] }).notifications;
}

/** The token of the newest captured link of a kind to an address. */
export async function linkTokenFor(app: FastifyInstance, to: string, kind: string): Promise<string> {
  const email = (await capturedTo(app, to)).find((candidate) => candidate.kind === kind);
  if (!email?.signingLink) throw new Error(`no ${kind} email to ${to} was captured`);
  const token = new URL(email.signingLink).searchParams.get('token');
  if (!token) throw new Error(`the ${kind} link has no token: ${email.signingLink}`);
  return token;
}

export function registration(email: string, extra: Record<string, unknown> = {}) {
  return {
    organizationName: `Accounts test ${Math.random().toString(36).slice(2, 8)}`,
    fullName: 'Dana Levi',
    email,
    password: PASSWORD,
    ...extra,
  };
}

/** Registers through the route and confirms the address with the captured link; answers the address. */
export async function registerVerified(
  app: FastifyInstance,
  email = newEmail('owner'),
  extra: Record<string, unknown> = {},
): Promise<string> {
  const browser = newBrowser(app);
  const registered = await browser.post('/api/auth/register', registration(email, extra));
  expect(registered.statusCode, registered.body).toBe(200);
  const token = await linkTokenFor(app, email, 'verify_email');
  const verified = await browser.post('/api/auth/verify-email', { token });
  expect(verified.statusCode, verified.body).toBe(200);
  return email;
}

/** A browser signed in as the address. */
export async function signedIn(app: FastifyInstance, email: string, password = PASSWORD): Promise<Browser> {
  const browser = newBrowser(app);
  const response = await browser.post('/api/auth/login', { email, password });
  expect(response.statusCode, response.body).toBe(200);
  expect(browser.cookie).toBeTruthy();
  return browser;
}

/** An answer's status and body without its request id (which differs from answer to answer). */
export function comparable(response: LightMyRequestResponse): { status: number; body: unknown } {
  const body = JSON.parse(response.body) as { error?: { request_id?: string } };
  if (body.error) delete body.error.request_id;
  return { status: response.statusCode, body };
}

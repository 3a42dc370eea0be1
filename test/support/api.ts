// The whole API app (buildApp) on the shared test PostgreSQL and Temporal, and integrator helpers: an
// organization with a published template and an OAuth client, tokens from POST /oauth/token, and an envelope
// sent through /api/v1 with its signing links.

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { type Logger, pino } from 'pino';
import { inject } from 'vitest';
import { buildApp } from '../../api/app.ts';
import { type Config, loadConfig } from '../../config/config.ts';
import { SCOPES, type Scope } from '../../domain/scopes.ts';
import { makeSealPkcs12 } from '../../scripts/sealing/make-pkcs12.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import { type IssuedSigningLink, issueSigningLinks } from '../../services/signing/issue-signing-links.ts';
import { callAs, type Target } from './app-requests.ts';
import {
  createOrganizationWithTemplate,
  openTestContext,
  TEST_ENCRYPTION_KEY,
  type TestContext,
  testConfig,
} from './context.ts';

export interface ApiHarness {
  app: FastifyInstance;
  ctx: TestContext;
  close(): Promise<void>;
}

/**
 * The app on an existing test context (several apps, such as a production one next to a test one, may share it);
 * `logger` for a test that reads what the app logs.
 */
export function buildTestApp(
  ctx: TestContext,
  config: Config = testConfig(),
  logger: Logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
): Promise<FastifyInstance> {
  return buildApp({
    config,
    orm: ctx.orm,
    files: ctx.files,
    temporal: {
      connection: ctx.temporal.connection as Connection,
      client: ctx.temporal,
      namespace: inject('namespace'),
    },
    logger,
  });
}

/** A production configuration on the shared test infrastructure (no dev routes, no capture, no sandbox). */
export function productionConfig(extra: Record<string, string> = {}): Config {
  const seal = testSealPkcs12();
  return loadConfig({
    SIGIL_ENV: 'production',
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    SECRETS_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    SEALING_PKCS12_PATH: seal.path,
    SEALING_PKCS12_PASSPHRASE: seal.passphrase,
    ...extra,
  });
}

/** A PKCS#12 seal certificate for production configurations in tests (made once per machine with openssl). */
export function testSealPkcs12() {
  return makeSealPkcs12(join(tmpdir(), 'sigil-test-seal-pkcs12'), 'sigil-test-seal');
}

/** Listens on a free port of 127.0.0.1 and returns the base URL. */
export async function listenLocally(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('the app listens on no port');
  return `http://127.0.0.1:${address.port}`;
}

export async function openApiHarness(config = testConfig()): Promise<ApiHarness> {
  const ctx = await openTestContext();
  const app = await buildTestApp(ctx, config);
  return {
    app,
    ctx,
    close: async () => {
      await app.close();
      await ctx.close();
    },
  };
}

export interface Integrator {
  organizationId: string;
  templateId: string;
  clientId: string;
  clientSecret: string;
  /** A bearer token from POST /oauth/token (HTTP Basic), for the given scopes or all of them. */
  token(scopes?: Scope[]): Promise<string>;
  /** `Authorization` header for a token with the given scopes. */
  auth(scopes?: Scope[]): Promise<{ authorization: string }>;
}

export async function newIntegrator(harness: ApiHarness): Promise<Integrator> {
  const { organization, template } = await createOrganizationWithTemplate(harness.ctx);
  const client = await createOAuthClient(harness.ctx, {
    organizationId: organization.id,
    name: 'Test integration',
    scopes: [...SCOPES],
  });
  const token = (scopes?: Scope[]) => clientToken(harness.app, client.clientId, client.clientSecret, scopes);
  return {
    organizationId: organization.id,
    templateId: template.id,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    token,
    auth: async (scopes) => ({ authorization: `Bearer ${await token(scopes)}` }),
  };
}

/** A bearer token from POST /oauth/token (HTTP Basic) for any client, for the given scopes or all it allows. */
export async function clientToken(
  app: FastifyInstance,
  clientId: string,
  clientSecret: string,
  scopes?: Scope[],
): Promise<string> {
  const response = await app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      ...(scopes ? { scope: scopes.join(' ') } : {}),
    }).toString(),
  });
  if (response.statusCode !== 200) throw new Error(`token request failed: ${response.body}`);
  return response.json().access_token as string;
}

/**
 * An envelope sent through /api/v1: its id and organization, the envelope as created, and its acting recipients'
 * signing links.
 */
export interface SentEnvelope {
  id: string;
  organizationId: string;
  created: Record<string, unknown>;
  links: IssuedSigningLink[];
  /** The signing link, with its token, of the recipient named `fullName` (absent: of the first acting recipient). */
  linkOf(fullName?: string): IssuedSigningLink & { token: string };
  /** The signing token of the recipient named `fullName` (absent: of the first acting recipient). */
  tokenOf(fullName?: string): string;
  /** The id of the recipient named `fullName`, whatever their type (absent: of the first acting recipient). */
  recipientIdOf(fullName?: string): string;
}

/**
 * An envelope created from a template (`body`: the request of POST /api/v1/envelopes/from-template) and sent by
 * `sender` (its bearer headers), with a signing link issued to each acting recipient. `send: false` leaves it a
 * Draft, without links (no message goes out for it).
 */
export async function sentEnvelope(
  on: { app: Target; ctx: Parameters<typeof issueSigningLinks>[0] },
  sender: { organizationId: string; headers: Record<string, string> },
  body: Record<string, unknown>,
  { send = true }: { send?: boolean } = {},
): Promise<SentEnvelope> {
  const created = await callAs<Record<string, unknown>>(
    on.app,
    sender,
    'POST',
    '/api/v1/envelopes/from-template',
    body,
    {
      status: 201,
    },
  );
  const id = created.id as string;
  if (send) await callAs(on.app, sender, 'POST', `/api/v1/envelopes/${id}/send`);
  const links = send ? await issueSigningLinks(on.ctx, sender.organizationId, id) : [];
  const linkOf = (fullName?: string) => {
    const link = fullName === undefined ? links[0] : links.find((l) => l.fullName === fullName);
    if (!link) throw new Error(`no signing link for ${fullName ?? 'the first recipient'}`);
    return { ...link, token: link.url.split('/sign/')[1] as string };
  };
  const recipients = created.recipients as { id: string; fullName: string }[];
  return {
    id,
    organizationId: sender.organizationId,
    created,
    links,
    linkOf,
    tokenOf: (fullName) => linkOf(fullName).token,
    recipientIdOf: (fullName) => {
      if (fullName === undefined) return linkOf().recipientId;
      const recipient = recipients.find((r) => r.fullName === fullName);
      if (!recipient) throw new Error(`no recipient named ${fullName}`);
      return recipient.id;
    },
  };
}

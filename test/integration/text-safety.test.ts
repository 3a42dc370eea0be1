// Every text field of every route, fuzzed with what broke them (issue 13, defects 1 and 2): a NUL, a lone high
// surrogate, a lone low surrogate, 1 MB of text and right-to-left override characters. Each answer must be a
// 400 naming the field (or, for a lookup, a 404), or an acceptance whose value reads back exactly as sent —
// never a 5xx, never a hang (every request has a deadline of a few seconds).
//
// The fields come from the schemas, so a new field is fuzzed without touching this file: the routes of the
// two OpenAPI documents (/api/v1 and the application routes) are walked for every string their parameters and
// bodies take; the signer API and the development routes are hidden from those documents, so their zod schemas
// (domain/signing.ts, …) are walked the same way, and the signer's field values by the shapes of
// services/fields/field-value.ts. A documented route with text input but no way here to build a valid
// request fails the test until one is added. The application routes are called as a browser calls them: the
// session cookie of a signed-in owner of the test's organization (or, for the routes that sign in or end a
// session, of a user of their own, or none) and this server's Origin on every mutation. A password is stored
// as a hash: an accepted one reads back when the exact text sent verifies against it.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OPENAPI_PATH } from '../../api/http/openapi.ts';
import { APP_OPENAPI_PATH } from '../../api/trpc/openapi.ts';
import { loadConfig } from '../../config/config.ts';
import { decryptSecret } from '../../config/secrets-encryption.ts';
import {
  AccountToken,
  AppUser,
  AuditEvent,
  Envelope,
  Organization,
  OrganizationSso,
  Passkey,
  PlatformAdmin,
  StoredFile,
  TemplateField,
  TemplateRole,
} from '../../db/entities/index.ts';
import { CreateOAuthClientRequest, CreateOrganizationRequest } from '../../domain/organization.ts';
import { SCOPES } from '../../domain/scopes.ts';
import { DeclineSigningRequest, SaveFieldsRequest, VerifyCodeRequest } from '../../domain/signing.ts';
import { UsePersonalStampRequest } from '../../domain/stamp.ts';
import { TemplateDefinition } from '../../domain/template.ts';
import { textProblem } from '../../domain/text.ts';
import { CreateWebhookEndpointRequest, UpdateWebhookEndpointRequest } from '../../domain/webhook.ts';
import { buildDemoPdf } from '../../scripts/demo/demo-pdf.ts';
import { startBackofficeSession } from '../../services/backoffice/backoffice-sessions.ts';
import { createPlatformAdmin } from '../../services/backoffice/platform-admins.ts';
import { addAllowedDomain, addAllowlistEntry } from '../../services/backoffice/security-policy.ts';
import { createOAuthClient } from '../../services/oauth-clients/create-oauth-client.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { verifyPassword } from '../../services/security/passwords.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { buildTestApp, listenLocally, sentEnvelope } from '../support/api.ts';
import { asUser } from '../support/app-requests.ts';
import { linkTokenFor } from '../support/auth-http.ts';
import { withBackofficeAllowlist } from '../support/backoffice-allowlist.ts';
import { openTestContext, TEST_ENCRYPTION_KEY, type TestContext } from '../support/context.ts';
import { startTestProvider, type TestProvider } from '../support/oidc-provider.ts';
import { encodePng } from '../support/png.ts';
import { newSession, type SignedInUser, signedInUser } from '../support/signed-in-user.ts';
import { softPasskey, softRegistration } from '../support/soft-passkey.ts';

/**
 * How long any one fuzzed request may take before it counts as a hang: far above any answer's time on an idle
 * machine (tens of milliseconds), with room for a loaded one (a CSV import took over 5 s at load 10 on 2 cores).
 */
const DEADLINE_MS = 20_000;

interface FuzzValue {
  name: string;
  /** The value in a JSON body (JSON.stringify writes lone surrogates as escapes, as a client would send them). */
  text: string;
  /** The value percent-encoded in a path or query string (a lone surrogate as its ill-formed UTF-8 bytes). */
  url: string;
  /** Whether a field may accept it (only text Sigil can store, within a field's length). */
  storable: boolean;
}

const VALUES: FuzzValue[] = [
  { name: 'NUL', text: 'a\u0000b', url: 'a%00b', storable: false },
  { name: 'lone high surrogate', text: 'a\uD800b', url: 'a%ED%A0%80b', storable: false },
  { name: 'lone low surrogate', text: 'a\uDC00b', url: 'a%ED%B0%80b', storable: false },
  // A URL cannot carry 1 MB (Node refuses request lines over 16 KB): paths and queries get 8 KB.
  { name: '1 MB of text', text: 'x'.repeat(1_000_000), url: 'x'.repeat(8_000), storable: false },
  {
    name: 'right-to-left override',
    text: '\u202Eevil.exe\u202C',
    url: '%E2%80%AEevil.exe%E2%80%AC',
    storable: true,
  },
];

type Path = (string | number)[];
type Part = 'path' | 'query' | 'body';

interface Target {
  part: Part;
  path: Path;
}

interface Answer {
  status: number;
  body: unknown;
}

let ctx: TestContext;
let app: FastifyInstance;
let baseUrl: string;
let closeApp: () => Promise<void>;
/** PUBLIC_BASE_URL's origin: the only one a passkey registration may come from. */
let passkeyOrigin: string;
let organizationId: string;
let templateId: string;
/** A PDF uploaded through the API, for envelopes created from a file. */
let fileId: string;
let auth: { authorization: string };
let clientId: string;
let clientSecret: string;
/** Fields of the fuzz template by label. */
let fieldIds: Record<string, string>;
/** The application routes' caller: a signed-in owner of the test's organization (its `cookie`). */
let owner: SignedInUser;
/** Real ids of the test's organization for the `{id}` of the users, roles and teams routes. */
let customRoleId: string;
let renamedRoleId: string;
let teamId: string;
let invitedUserId: string;
const report: string[] = [];

const PNG = encodePng(2, 2, () => [0, 0, 0, 255]).toString('base64');
/** A personal stamp's image: 16 to 2,000 pixels on each side (docs/stamps.md). */
const STAMP_IMAGE = {
  contentType: 'image/png',
  imageBase64: encodePng(24, 24, (x) => [x * 10, 0, 0, 255]).toString('base64'),
};
const PDF_BYTES = Buffer.from('%PDF-1.4\n%%EOF\n');

const box = { page: 1, width: 120, height: 20 };
/** A field of every type a signer types or picks text into, plus an image and an upload. */
const FUZZ_FIELDS = [
  { type: 'Full name', label: 'Name', x: 20, y: 20 },
  { type: 'Text', label: 'Company', x: 20, y: 50 },
  { type: 'Long text', label: 'Notes', x: 20, y: 80 },
  { type: 'Email', label: 'Mail', x: 20, y: 110 },
  { type: 'Phone', label: 'Mobile', x: 20, y: 140 },
  { type: 'ID number', label: 'Identity', x: 20, y: 170 },
  { type: 'Date', label: 'When', x: 20, y: 200 },
  { type: 'Radio', label: 'Plan', x: 20, y: 230, options: ['Basic', 'Plus'] },
  { type: 'Dropdown', label: 'Size', x: 20, y: 260, options: ['S', 'M'] },
  { type: 'Signature', label: 'Signature', x: 20, y: 290, required: false },
  { type: 'Image upload', label: 'Logo', x: 20, y: 320 },
  { type: 'File upload', label: 'Attachment', x: 20, y: 350 },
] as const;

beforeAll(async () => {
  ctx = await openTestContext();
  // Enterprise with a high limit: the fuzz sends a few hundred /api/v1 requests in a minute.
  const config = loadConfig({
    SIGIL_ENV: 'test',
    // TOTP secrets are stored encrypted (the MFA routes): the tests' key, not a development key file.
    SECRETS_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    TOKEN_RATE_LIMIT_PER_MINUTE: '1000000',
    SIGNING_RATE_LIMIT_PER_MINUTE: '1000000',
    ENTERPRISE_RATE_LIMIT_PER_MINUTE: '1000000',
    ENTERPRISE_UPLOAD_RATE_LIMIT_PER_MINUTE: '1000000',
  });
  app = await buildTestApp(ctx, config);
  passkeyOrigin = new URL(config.publicBaseUrl).origin;
  baseUrl = await listenLocally(app);
  closeApp = () => app.close();
  const organization = await createOrganization(ctx, {
    name: `Fuzz ${randomUUID().slice(0, 8)}`,
    plan: 'Enterprise',
    apiEnabled: true,
  });
  organizationId = organization.id;
  const template = await createTemplate(ctx, {
    organizationId,
    pdf: await buildDemoPdf(),
    filename: 'fuzz.pdf',
    definition: {
      name: 'Fuzz template',
      roles: [{ name: 'Client', required: true }],
      fields: FUZZ_FIELDS.map((field) => ({ ...field, ...box, role: 'Client' })) as never,
    },
    publish: true,
  });
  templateId = template.id;
  const client = await createOAuthClient(ctx, { organizationId, name: 'Fuzz client', scopes: [...SCOPES] });
  clientId = client.clientId;
  clientSecret = client.clientSecret;
  const token = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  auth = { authorization: `Bearer ${((await token.json()) as { access_token: string }).access_token}` };
  const fields = (await (
    await asUser(baseUrl, { headers: auth }, 'GET', `/api/v1/templates/${templateId}`)
  ).json()) as {
    fields: { label: string; fieldDefinitionId: string }[];
  };
  fieldIds = Object.fromEntries(fields.fields.map((f) => [f.label, f.fieldDefinitionId]));
  expect(Object.keys(fieldIds)).toHaveLength(FUZZ_FIELDS.length);
  const upload = new FormData();
  upload.append('file', new Blob([await buildDemoPdf()], { type: 'application/pdf' }), 'fuzz.pdf');
  const uploaded = await fetch(`${baseUrl}/api/v1/files/upload`, {
    method: 'POST',
    headers: auth,
    body: upload,
  });
  expect(uploaded.status, await uploaded.clone().text()).toBe(201);
  fileId = ((await uploaded.json()) as { id: string }).id;

  // The application routes: an owner's session, and a custom role, another one to rename, a team and an
  // invited user of the organization, made through the routes themselves.
  owner = await signedInUser({ ctx }, { role: 'owner', organizationId });
  customRoleId = (await appCall<{ id: string }>('POST', '/api/roles', newRole())).id;
  renamedRoleId = (await appCall<{ id: string }>('POST', '/api/roles', newRole())).id;
  teamId = (await appCall<{ id: string }>('POST', '/api/teams', { name: `Fuzz team ${short()}` })).id;
  invitedUserId = (await appCall<{ id: string }>('POST', '/api/users/invite', invitation(newEmail()))).id;
});

afterAll(async () => {
  if (report.length > 0) console.info(`text fuzz:\n${report.join('\n')}`);
  await closeApp?.();
  await ctx?.close();
});

// Requests.

/** One fuzzed request with its deadline: a request that does not answer in time fails the test as a hang. */
async function send(url: string, init: RequestInit): Promise<Answer> {
  const started = Date.now();
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${url}`, { ...init, signal: AbortSignal.timeout(DEADLINE_MS) });
  } catch (error) {
    throw new Error(`${init.method} ${url.slice(0, 120)} did not answer within ${DEADLINE_MS} ms (${error})`);
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a PDF, an empty body).
  }
  if (Date.now() - started > DEADLINE_MS) throw new Error(`${url} took ${Date.now() - started} ms`);
  return { status: response.status, body };
}

/** A valid from-file body: a Dropdown (its options and prefilled value fuzzed too) and a signature. */
function fileEnvelopeBody() {
  return {
    title: 'Fuzzed envelope from a file',
    fileId,
    externalReference: `fuzz-${randomUUID()}`,
    externalSystem: 'fuzz',
    externalMetadataJson: '{"fuzz":true}',
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'ManualLink' },
    ],
    fields: [
      // The value is the second option, so a fuzzed first option leaves it valid.
      {
        ...box,
        type: 'Dropdown',
        role: 'Client',
        label: 'Size',
        x: 20,
        y: 20,
        options: ['S', 'M'],
        value: 'M',
      },
      { ...box, type: 'Signature', role: 'Client', label: 'Signature', x: 20, y: 60 },
    ],
  };
}

/** A bulk send of one row to the fuzz template's Client, by a link handed over (no message is sent). */
function bulkSendBody() {
  return {
    templateId,
    title: 'Fuzzed bulk send',
    roles: [{ roleName: 'Client', deliveryChannel: 'ManualLink' }],
    filename: 'fuzz.csv',
    csv: `externalReference,Client.name,Client.email\nfuzz-${randomUUID()},Dana Levi,dana@example.com\n`,
  };
}

function envelopeBody() {
  return {
    title: 'Fuzzed envelope',
    templateId,
    externalReference: `fuzz-${randomUUID()}`,
    externalSystem: 'fuzz',
    externalMetadataJson: '{"fuzz":true}',
    recipients: [
      { roleName: 'Client', fullName: 'Dana Levi', email: 'dana@example.com', deliveryChannel: 'ManualLink' },
    ],
    initialValues: [{ fieldDefinitionId: fieldIds.Company, value: 'Acme' }],
  };
}

// The application routes (outside /api/v1 and /oauth): a browser's session cookie, and on every mutation an
// Origin of this server (else 403 cross_site_request).

function isAppRoute(path: string): boolean {
  return !path.startsWith('/api/v1/') && !path.startsWith('/oauth/');
}

function appHeaders(method: string, cookie: string | null): Record<string, string> {
  return { ...(cookie ? { cookie } : {}), ...(method === 'GET' ? {} : { origin: baseUrl }) };
}

/** An application route called as a browser would (the owner's session unless told), expecting a 200. */
async function appCall<T>(
  method: string,
  path: string,
  body?: unknown,
  cookie: string | null = owner.cookie,
): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      ...appHeaders(method, cookie),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  expect(response.status, `${method} ${path}: ${text.slice(0, 300)}`).toBe(200);
  return JSON.parse(text) as T;
}

const short = () => randomUUID().slice(0, 8);
/** A new address (lower case, as stored): the throttle and the one-account-per-address rule are per address. */
const newEmail = () => `fuzz-${randomUUID()}@example.com`;
const NEW_PASSWORD = 'a brand new passphrase';
const newRole = () => ({ name: `Fuzz role ${short()}`, permissions: ['documents:read'] });
const invitation = (email: string) => ({
  fullName: 'Invited Person',
  email,
  roleId: customRoleId,
  teamId,
});

/**
 * Another signed-in user of the organization, for the routes that end or change the caller's session or
 * count wrong passwords against it (the owner's session must outlive the fuzz).
 */
function separateUser(): Promise<SignedInUser> {
  return signedInUser({ ctx }, { role: 'member', organizationId });
}

/** A separate user with an authenticator app on (setup and confirmation through the routes), and its backup codes. */
async function userWithMfa(): Promise<SignedInUser & { backupCodes: string[] }> {
  const user = await separateUser();
  const { secret } = await appCall<{ secret: string }>(
    'POST',
    '/api/auth/mfa/totp/setup',
    undefined,
    user.cookie,
  );
  const { backupCodes } = await appCall<{ backupCodes: string[] }>(
    'POST',
    '/api/auth/mfa/totp/confirm',
    { code: totpCode(secret) },
    user.cookie,
  );
  return { ...user, backupCodes };
}

/** A separate user with `passkey` registered through the routes (its first second factor: backup codes came). */
async function userWithPasskey(
  passkey = softPasskey(),
): Promise<SignedInUser & { passkeyId: string; backupCodes: string[] }> {
  const user = await separateUser();
  const options = await appCall<{ challenge: string; rp: { id?: string } }>(
    'POST',
    '/api/auth/mfa/passkeys/registration-options',
    undefined,
    user.cookie,
  );
  const registered = await appCall<{ id: string; backupCodes: string[] }>(
    'POST',
    '/api/auth/mfa/passkeys',
    { name: 'Work laptop', response: passkey.register(options, passkeyOrigin) },
    user.cookie,
  );
  return { ...user, passkeyId: registered.id, backupCodes: registered.backupCodes };
}

function totpCode(secret: string): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate();
}

/** A user of another organization, registered through the route (its address not verified yet). */
async function registered(): Promise<{ email: string }> {
  const email = newEmail();
  await appCall('POST', '/api/auth/register', registration(email), null);
  return { email };
}

function registration(email: string) {
  return {
    organizationName: `Fuzz registered ${short()}`,
    fullName: 'Dana Levi',
    email,
    password: NEW_PASSWORD,
    language: 'en',
    plan: 'Starter',
  };
}

/**
 * A password is stored as its argon2id hash, so it reads back as the text sent when that exact text
 * verifies against the user's stored hash (a trimmed or altered password would not).
 */
async function storedPassword(where: { id: string } | { email: string }, given: unknown): Promise<unknown> {
  const user = await ctx.orm.em.fork().findOne(AppUser, where);
  if (!user?.passwordHash || typeof given !== 'string') return undefined;
  return (await verifyPassword(given, user.passwordHash)) ? given : undefined;
}

/** A role or team of the organization as the list route answers it. */
async function listed(path: '/api/roles' | '/api/teams' | '/api/users', id: string): Promise<unknown> {
  const key = path.slice('/api/'.length);
  // The users list is read a page at a time: the newest first, so an invitation just made is on it.
  const query = path === '/api/users' ? '?sort=createdAt&order=desc&limit=100' : '';
  const list = await appCall<Record<string, { id: string }[]>>('GET', `${path}${query}`);
  return (list[key] ?? []).find((item) => item.id === id);
}

// Where the text inputs are: the strings of a JSON schema (following $ref, unions, objects and arrays; an
// untyped schema, such as `value: unknown`, takes a string too).

type JsonSchema = Record<string, unknown>;

function stringPaths(
  schema: JsonSchema | undefined,
  resolve: (ref: string) => JsonSchema,
  at: Path = [],
): Path[] {
  if (!schema || typeof schema !== 'object') return [];
  if (typeof schema.$ref === 'string') return stringPaths(resolve(schema.$ref), resolve, at);
  const variants = [schema.anyOf, schema.oneOf, schema.allOf].filter(Array.isArray).flat() as JsonSchema[];
  if (variants.length > 0) return unique(variants.flatMap((variant) => stringPaths(variant, resolve, at)));
  const types = ([] as unknown[]).concat(schema.type ?? []);
  const paths: Path[] = [];
  if (types.includes('object') || schema.properties) {
    for (const [key, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
      paths.push(...stringPaths(property, resolve, [...at, key]));
    }
  }
  if (types.includes('array') || schema.items)
    paths.push(...stringPaths(schema.items as JsonSchema, resolve, [...at, 0]));
  if (
    types.includes('string') ||
    (types.length === 0 && !schema.properties && !schema.items && at.length > 0)
  ) {
    paths.push(at);
  }
  return paths;
}

function unique(paths: Path[]): Path[] {
  return [...new Map(paths.map((path) => [path.join('.'), path])).values()];
}

function zodPaths(schema: z.ZodType): Path[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  return stringPaths(json, (ref) => defs[ref.split('/').at(-1) ?? ''] ?? {});
}

function setAt(value: unknown, path: Path, leaf: unknown): unknown {
  if (path.length === 0) return leaf;
  const [key, ...rest] = path as [string | number, ...Path];
  if (typeof key === 'number') {
    const array = Array.isArray(value) ? [...value] : [];
    array[key] = setAt(array[key], rest, leaf);
    return array;
  }
  const object = value && typeof value === 'object' && !Array.isArray(value) ? { ...value } : {};
  (object as Record<string, unknown>)[key] = setAt((object as Record<string, unknown>)[key], rest, leaf);
  return object;
}

function getAt(value: unknown, path: Path): unknown {
  return path.reduce<unknown>(
    (current, key) =>
      current && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined,
    value,
  );
}

// What every answer must be.

/** The 400's details name the fuzzed field (route validation prefixes `body.`, `params.`, `querystring.`). */
function namesField(answer: Answer, target: Target): boolean {
  const wanted = target.path.join('.');
  const details = ((answer.body as { error?: { details?: { field?: string }[] } })?.error?.details ?? [])
    .map((detail) => (detail.field ?? '').replace(/^(body|params|querystring)\./, ''))
    .filter(Boolean);
  return details.some(
    (field) => field === wanted || wanted.startsWith(`${field}.`) || field.startsWith(`${wanted}.`),
  );
}

function isErrorBody(body: unknown): boolean {
  const error = (body as { error?: Record<string, unknown> })?.error;
  return (
    typeof error?.code === 'string' &&
    typeof error.message === 'string' &&
    Array.isArray(error.details) &&
    typeof error.request_id === 'string'
  );
}

interface Expectation {
  /** Statuses that refuse without naming the field, besides a 400 that names it (404 for a lookup…). */
  alsoRefusedWith?: number[];
  /** A 400 that does not name the field is fine (the OAuth endpoints answer OAuth's own errors). */
  anyBadRequest?: boolean;
  /** Reads the stored value back after an acceptance (`sent`: the request, with the fuzzed body). */
  readBack?: (answer: Answer, target: Target, sent: SentRequest) => Promise<unknown>;
  /** An acceptance stores nothing (a lookup, a revocation of an unknown token): there is nothing to read back. */
  storesNothing?: boolean;
}

async function check(
  route: string,
  target: Target,
  value: FuzzValue,
  answer: Answer,
  expectation: Expectation,
  sent: SentRequest = {},
): Promise<void> {
  const where = `${route} ${target.part} ${target.path.join('.')} with ${value.name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`;
  report.push(`${answer.status}  ${route}  ${target.part}:${target.path.join('.')}  ${value.name}`);
  expect(answer.status, where).toBeLessThan(500);
  if (answer.status >= 400) {
    expect(isErrorBody(answer.body), where).toBe(true);
    if (answer.status === 400 && (namesField(answer, target) || expectation.anyBadRequest)) return;
    // A path or query that is not even well-formed UTF-8 is refused as a malformed URL, before any field.
    if (answer.status === 400 && target.part !== 'body' && value.url.includes('%ED')) return;
    if (
      value.name === '1 MB of text' &&
      (answer.status === 413 || answer.status === 414 || answer.status === 431)
    ) {
      return;
    }
    expect(expectation.alsoRefusedWith ?? [], where).toContain(answer.status);
    return;
  }
  // Accepted. A lookup or a revocation stores nothing, so whatever it matched (nothing) is fine: what matters
  // there is that it answered, and not with a 5xx. Anything else accepted must be storable text and read back
  // exactly as sent.
  if (expectation.storesNothing) return;
  expect(value.storable, `accepted what cannot be stored: ${where}`).toBe(true);
  expect(expectation.readBack, `accepted with no way to read it back: ${where}`).toBeDefined();
  if (!expectation.readBack) return;
  expect(await expectation.readBack(answer, target, sent), where).toBe(value.text);
}

// The documented routes: every operation of both OpenAPI documents with a text input.

interface Operation {
  method: string;
  path: string;
  parameters: { in: string; name: string; schema: JsonSchema }[];
  body?: { contentType: string; schema: JsonSchema };
}

async function documentedOperations(
  documentPath: string,
): Promise<{ operations: Operation[]; resolve: (ref: string) => JsonSchema }> {
  const document = (await (await fetch(`${baseUrl}${documentPath}`)).json()) as {
    paths: Record<
      string,
      Record<
        string,
        {
          parameters?: Operation['parameters'];
          requestBody?: { content: Record<string, { schema: JsonSchema }> };
        }
      >
    >;
    components?: { schemas?: Record<string, JsonSchema> };
  };
  const resolve = (ref: string) => document.components?.schemas?.[ref.split('/').at(-1) ?? ''] ?? {};
  const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => {
        const [contentType, content] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
        return {
          method: method.toUpperCase(),
          path,
          parameters: operation.parameters ?? [],
          ...(contentType && content ? { body: { contentType, schema: content.schema } } : {}),
        };
      }),
  );
  return { operations, resolve };
}

/** A valid request to a route: path parameters, query, body, and for an application route its session. */
interface SentRequest {
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** The session cookie sent to an application route: absent, the owner's; null, none (a signed-out visitor). */
  cookie?: string | null;
  /** The user the request concerns, to read back what it stored for them. */
  userId?: string;
}

/** How to make a valid request to a documented route, and how to read back what it stored. */
interface RouteRecipe extends Expectation {
  base(): Promise<SentRequest>;
  /** When an accepted request used up its resource (a cancelled envelope), the next one needs a new base. */
  consumes?: boolean;
  /** Every request needs a new base (its own user): the route counts wrong passwords against the session. */
  fresh?: boolean;
}

const uuidParams = async () => ({ params: { id: randomUUID(), recipientId: randomUUID() } });

const RECIPES: Record<string, RouteRecipe> = {
  'POST /oauth/token': {
    base: async () => ({
      body: { grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret },
    }),
    anyBadRequest: true,
    alsoRefusedWith: [401],
  },
  'POST /oauth/revoke': {
    base: async () => ({ body: { token: 'x', client_id: clientId, client_secret: clientSecret } }),
    anyBadRequest: true,
    alsoRefusedWith: [401],
    // Revoking a token that is not known answers 200 and changes nothing (RFC 7009).
    storesNothing: true,
  },
  'POST /api/v1/envelopes/from-template': {
    base: async () => ({ body: envelopeBody() }),
    readBack: async (answer, target) => {
      const { id } = answer.body as { id: string };
      const stored = await (
        await asUser(baseUrl, { headers: auth }, 'GET', `/api/v1/envelopes/${id}`)
      ).json();
      return getAt(stored, target.path);
    },
  },
  'POST /api/v1/envelopes/from-file': {
    base: async () => ({ body: fileEnvelopeBody() }),
    readBack: async (answer, target) => {
      const { id } = answer.body as { id: string };
      const stored = (await (
        await asUser(baseUrl, { headers: auth }, 'GET', `/api/v1/envelopes/${id}`)
      ).json()) as {
        initialValues: { fieldDefinitionId: string; value: unknown }[];
      };
      if (target.path[0] !== 'fields') return getAt(stored, target.path);
      // The fields are those of the envelope's one-off template, in order, and their prefilled values.
      const em = ctx.orm.em.fork();
      const { templateId: oneOff } = await em.findOneOrFail(Envelope, { id });
      const roles = await em.find(TemplateRole, { templateId: oneOff as string });
      const fields = await em.find(
        TemplateField,
        { templateId: oneOff as string },
        { orderBy: { position: 'asc' } },
      );
      const shown = fields.map((field) => ({
        type: field.type,
        label: field.label,
        role: roles.find((role) => role.id === field.roleId)?.name,
        options: field.options,
        value: stored.initialValues.find((item) => item.fieldDefinitionId === field.id)?.value,
      }));
      return getAt({ fields: shown }, target.path);
    },
  },
  'GET /api/v1/envelopes/by-external-reference/{externalReference}': {
    base: async () => ({ params: { externalReference: 'fuzz-reference' } }),
    alsoRefusedWith: [404],
    storesNothing: true,
  },
  'POST /api/v1/envelopes/{id}/cancel': {
    base: async () => ({
      params: {
        id: (await sentEnvelope({ app: baseUrl, ctx }, { organizationId, headers: auth }, envelopeBody())).id,
      },
      body: { reason: 'changed plans' },
    }),
    consumes: true,
    alsoRefusedWith: [404],
    readBack: async (answer) => {
      const { envelopeId } = answer.body as { envelopeId?: string; id?: string };
      const id = envelopeId ?? (answer.body as { id: string }).id;
      const event = await ctx.orm.em
        .fork()
        .findOne(AuditEvent, { envelopeId: id, type: 'envelope.cancelled' });
      return event?.data.reason;
    },
  },
  'POST /api/v1/envelopes/{id}/extend': {
    base: async () => ({
      params: {
        id: (await sentEnvelope({ app: baseUrl, ctx }, { organizationId, headers: auth }, envelopeBody())).id,
      },
      body: { expiresAt: new Date(Date.now() + 90 * 86_400_000).toISOString() },
    }),
    alsoRefusedWith: [404],
  },
  'GET /api/v1/envelopes': {
    // A list: the search, the filters and the cursor find envelopes, they store nothing.
    base: async () => ({ query: { limit: '10' } }),
    storesNothing: true,
  },
  'PATCH /api/v1/envelopes/{id}': {
    // A Draft's edit takes the create's fields (docs/api.md): an accepted text reads back from the envelope as
    // the create's does. The Draft stays a Draft, so one serves every request.
    base: async () => ({ params: { id: await fuzzDraft() }, body: envelopeBody() }),
    alsoRefusedWith: [404],
    readBack: (...args) => readBackOf('POST /api/v1/envelopes/from-template', ...args),
  },
  'PATCH /api/v1/envelopes/{id}/recipients/{recipientId}': {
    // A correction of a sent envelope's recipient: one that changes nothing is refused, so an accepted one takes
    // a new envelope. An accepted text reads back from the recipient as the answer's envelope shows it.
    base: async () => correctionBase(),
    consumes: true,
    alsoRefusedWith: [404],
    readBack: async (answer, target, sent) => getAt(correctedRecipient(answer, sent), target.path),
  },
  'PUT /api/v1/envelopes/{id}/settings': {
    // Its only text is the envelope's id (the settings are numbers): a fuzzed one is refused or not found.
    base: async () => ({ params: { id: await fuzzDraft() }, body: { reminderIntervalDays: 3 } }),
    alsoRefusedWith: [404],
  },
  // Webhook management under /api/v1 (docs/api.md), as the app's routes: a fuzzed URL or event type is refused
  // naming it; whatever is accepted reads back from the list, and a created endpoint is deleted again.
  'GET /api/v1/webhooks/deliveries': {
    base: async () => ({ query: { limit: '10' } }),
    storesNothing: true,
  },
  'POST /api/v1/webhooks': {
    base: async () => ({
      body: { url: 'https://hooks.example.com/fuzz', eventTypes: ['envelope.completed'] },
    }),
    readBack: async (answer, target) => {
      const { id } = answer.body as { id: string };
      const stored = getAt(await listedApiWebhook(id), target.path);
      await asUser(baseUrl, { headers: auth }, 'DELETE', `/api/v1/webhooks/${id}`);
      return stored;
    },
  },
  'PUT /api/v1/webhooks/{id}': {
    base: async () => ({
      params: { id: await fuzzApiWebhook() },
      body: { url: 'https://hooks.example.com/fuzz', eventTypes: ['envelope.completed'], enabled: false },
    }),
    alsoRefusedWith: [404],
    readBack: async (_answer, target, sent) =>
      getAt(await listedApiWebhook(sent.params?.id as string), target.path),
  },

  // ---- The application routes: accounts (docs/accounts.md) ----
  // A signed-out visitor's routes go without a cookie; the routes that sign in (a new session replaces the
  // browser's) or count wrong passwords against the session get users and sessions of their own. Tokens,
  // codes and emails are checked, never stored: a fuzzed one must be refused with a 400 naming it (the
  // schemas' patterns; `invalid_token` names body.token too), so these recipes accept nothing else.

  'POST /api/auth/register': {
    // Each acceptance made an account with the address (a second registration of it answers the same but
    // makes nothing): the next request needs a new address.
    base: async () => ({ body: registration(newEmail()), cookie: null }),
    consumes: true,
    readBack: async (_answer, target, sent) => {
      const body = sent.body as { email: string; password: unknown };
      if (target.path[0] === 'password') return storedPassword({ email: body.email }, body.password);
      const em = ctx.orm.em.fork();
      const user = await em.findOne(AppUser, { email: body.email });
      if (!user) return undefined;
      if (target.path[0] === 'organizationName') {
        return (await em.findOneOrFail(Organization, { id: user.organizationId })).name;
      }
      return getAt({ fullName: user.fullName, email: user.email, language: user.language }, target.path);
    },
  },
  'POST /api/auth/verify-email': {
    base: async () => {
      const { email } = await registered();
      return { body: { token: await linkTokenFor(app, email, 'verify_email') }, cookie: null };
    },
    consumes: true,
  },
  'POST /api/auth/resend-verification': {
    base: async () => ({ body: { email: (await registered()).email }, cookie: null }),
  },
  'POST /api/auth/login': {
    // A user of its own for every request (the throttle counts failures per address), and no cookie: a
    // sign-in replaces the browser's session.
    base: async () => {
      const user = await separateUser();
      return { body: { email: user.email, password: user.password }, cookie: null };
    },
    fresh: true,
    // A password given to sign in is only compared with the stored hash (GivenPassword takes any text up to
    // 200 characters): every fuzzed one is a wrong password, 401 invalid_credentials.
    alsoRefusedWith: [401],
  },
  'POST /api/auth/login/mfa': {
    // A session waiting for its second step, of a user with an app on; the base sends an unused backup code.
    base: async () => {
      const user = await userWithMfa();
      const pending = await newSession({ ctx }, user.user, 'mfa_pending');
      return { body: { backupCode: user.backupCodes[0] }, cookie: pending.cookie };
    },
    fresh: true,
  },
  'POST /api/auth/login/mfa/passkey': {
    // A user of its own with a software passkey, a session waiting for its second step, and the passkey's
    // answer to that session's options.
    base: async () => {
      const passkey = softPasskey();
      const user = await userWithPasskey(passkey);
      const pending = await newSession({ ctx }, user.user, 'mfa_pending');
      const options = await appCall<{ challenge: string; rpId?: string }>(
        'POST',
        '/api/auth/login/mfa/passkey-options',
        undefined,
        pending.cookie,
      );
      return { body: { response: passkey.assert(options, passkeyOrigin) }, cookie: pending.cookie };
    },
    fresh: true,
    // An answer the fuzz changed no longer verifies: 401 invalid_code, as a wrong code. Signing in keeps none
    // of the response's text.
    alsoRefusedWith: [401],
    storesNothing: true,
  },
  'PUT /api/auth/me/preferences': {
    base: async () => ({ body: { language: 'en' } }),
  },
  'PUT /api/auth/me/profile': {
    // A user of its own (the owner keeps the name the other recipes see); read back from the user's row.
    base: async () => {
      const user = await separateUser();
      return {
        body: { fullName: 'Fuzz Person', phone: '+972501234567' },
        cookie: user.cookie,
        userId: user.user.id,
      };
    },
    readBack: async (_answer, target, sent) => {
      const user = await ctx.orm.em.fork().findOne(AppUser, { id: sent.userId as string });
      return user ? getAt({ fullName: user.fullName, phone: user.phone }, target.path) : undefined;
    },
  },
  'POST /api/auth/me/password': {
    // A user of its own for every request: a wrong current password counts like a failed sign-in of the
    // address, and an accepted change ends the user's other sessions. The new password reads back by its hash.
    base: async () => {
      const user = await separateUser();
      return {
        body: { currentPassword: user.password, newPassword: NEW_PASSWORD },
        cookie: user.cookie,
        userId: user.user.id,
      };
    },
    fresh: true,
    // The failed sign-ins of this run's address may reach the address's limit (429 rate_limited) first.
    alsoRefusedWith: [429],
    readBack: async (_answer, target, sent) =>
      target.path[0] === 'newPassword'
        ? storedPassword({ id: sent.userId as string }, getAt(sent.body, target.path))
        : undefined,
  },
  'POST /api/auth/me/email': {
    // As the password's: a user of its own for every request. What an acceptance stores is the address the
    // link confirms (its account token).
    base: async () => {
      const user = await separateUser();
      return {
        body: { currentPassword: user.password, newEmail: newEmail() },
        cookie: user.cookie,
        userId: user.user.id,
      };
    },
    fresh: true,
    alsoRefusedWith: [429],
    readBack: async (_answer, target, sent) => {
      const token = await ctx.orm.em
        .fork()
        .findOne(AccountToken, { userId: sent.userId as string, kind: 'change_email', usedAt: null });
      return getAt({ newEmail: token?.newEmail }, target.path);
    },
  },
  'POST /api/auth/confirm-email-change': {
    // A new link for each acceptance (it works once), asked for through the route by a user of its own.
    base: async () => {
      const user = await separateUser();
      const address = newEmail();
      await appCall(
        'POST',
        '/api/auth/me/email',
        { currentPassword: user.password, newEmail: address },
        user.cookie,
      );
      return { body: { token: await linkTokenFor(app, address, 'email_change') }, cookie: null };
    },
    consumes: true,
    // Only the link's token is text, and a token is looked up, never stored.
    storesNothing: true,
  },
  'POST /api/auth/forgot-password': {
    base: async () => ({ body: { email: (await separateUser()).email }, cookie: null }),
  },
  'POST /api/auth/reset-password/claim': {
    base: async () => ({ body: { token: await resetToken() }, cookie: null }),
  },
  'POST /api/auth/reset-password': {
    // A user of its own (a reset ends every session of the user), and a new link after each acceptance.
    base: async () => {
      const user = await separateUser();
      const token = await resetToken(user.email);
      return { body: { token, password: NEW_PASSWORD }, cookie: null, userId: user.user.id };
    },
    consumes: true,
    readBack: async (_answer, target, sent) =>
      target.path[0] === 'password'
        ? storedPassword({ id: sent.userId as string }, getAt(sent.body, target.path))
        : undefined,
  },
  'POST /api/auth/accept-invite/claim': {
    base: async () => ({ body: { token: (await invitedWithToken()).token }, cookie: null }),
  },
  'POST /api/auth/accept-invite': {
    // No cookie (accepting signs in, replacing the browser's session), and a new invitation after each
    // acceptance (the link works once).
    base: async () => {
      const { token, userId } = await invitedWithToken();
      return { body: { token, fullName: 'Accepted Person', password: NEW_PASSWORD }, cookie: null, userId };
    },
    consumes: true,
    readBack: async (_answer, target, sent) => {
      const userId = sent.userId as string;
      if (target.path[0] === 'password') return storedPassword({ id: userId }, getAt(sent.body, target.path));
      const user = await ctx.orm.em.fork().findOne(AppUser, { id: userId });
      return user ? getAt({ fullName: user.fullName }, target.path) : undefined;
    },
  },

  // ---- Two-step verification (docs/accounts.md, "Two-step verification") ----

  'POST /api/auth/mfa/totp/confirm': {
    // A user of its own with a setup started, and the code its app shows.
    base: async () => {
      const user = await separateUser();
      const { secret } = await appCall<{ secret: string }>(
        'POST',
        '/api/auth/mfa/totp/setup',
        undefined,
        user.cookie,
      );
      return { body: { code: totpCode(secret) }, cookie: user.cookie };
    },
  },
  'POST /api/auth/mfa/disable': {
    // A user with an app on for every request: wrong passwords count against the session (the fifth ends it)
    // and the user (ten in 15 minutes answer 429); the base re-authenticates with the password and a backup code.
    base: async () => {
      const user = await userWithMfa();
      return { body: { password: user.password, backupCode: user.backupCodes[0] }, cookie: user.cookie };
    },
    fresh: true,
    // The password is only compared with the stored hash, never stored (GivenPassword takes any text up to
    // 200 characters): every fuzzed one is wrong, 401 invalid_credentials (without saying which part).
    alsoRefusedWith: [401],
  },
  'POST /api/auth/mfa/passkeys': {
    // A user of its own with registration options asked for (the challenge is taken by the first answer),
    // answered by a passkey made in software for the server's origin.
    base: async () => {
      const user = await separateUser();
      const options = await appCall<{ challenge: string; rp: { id?: string } }>(
        'POST',
        '/api/auth/mfa/passkeys/registration-options',
        undefined,
        user.cookie,
      );
      const response = softRegistration(options, passkeyOrigin);
      return { body: { name: 'Work laptop', response }, cookie: user.cookie, userId: user.user.id };
    },
    fresh: true,
    readBack: async (_answer, target, sent) => {
      const stored = await ctx.orm.em.fork().findOne(Passkey, { userId: sent.userId as string });
      if (!stored) return undefined;
      const given = getAt(sent.body, target.path);
      if (target.path[0] === 'name') return stored.name;
      // Transports are hints: one WebAuthn does not define is dropped whole (never kept altered).
      if (target.path.at(-2) === 'transports')
        return stored.transports.length === 0 ? given : stored.transports[0];
      // The rest of the response is checked, not kept: the registration stood, which is what matters.
      return given;
    },
  },
  'POST /api/auth/mfa/passkeys/{id}/remove': {
    // A user of its own with a passkey (its first second factor, so it came with backup codes), removed with
    // the password and a backup code.
    base: async () => {
      const user = await userWithPasskey();
      return {
        params: { id: user.passkeyId },
        body: { password: user.password, backupCode: user.backupCodes[0] },
        cookie: user.cookie,
      };
    },
    fresh: true,
    // A fuzzed password is a wrong one (401 invalid_credentials); removing stores nothing to read back.
    alsoRefusedWith: [401],
    storesNothing: true,
  },
  'POST /api/auth/mfa/backup-codes': {
    base: async () => {
      const user = await userWithMfa();
      return { body: { password: user.password, backupCode: user.backupCodes[0] }, cookie: user.cookie };
    },
    fresh: true,
    // As for turning MFA off: a fuzzed password is a wrong one, 401 invalid_credentials.
    alsoRefusedWith: [401],
  },

  // ---- The organization's administration (docs/administration.md), as its owner ----

  'POST /api/users/invite': {
    // An accepted invitation takes the address (409 email_taken after): a new one each time.
    base: async () => ({ body: invitation(newEmail()) }),
    consumes: true,
    readBack: async (answer, target) => getAt(await listed('/api/users', userIdOf(answer)), target.path),
  },
  'PUT /api/users/{id}': {
    base: async () => ({ params: { id: invitedUserId }, body: { roleId: customRoleId, teamId } }),
  },
  'GET /api/users': {
    // A search and filters: it stores nothing.
    base: async () => ({ query: { limit: '10' } }),
    storesNothing: true,
  },
  'POST /api/roles': {
    base: async () => ({ body: newRole() }),
    readBack: async (answer, target) => {
      const { id } = answer.body as { id: string };
      const stored = getAt(await listed('/api/roles', id), target.path);
      // The created role goes again, so that its name is free for the rename of PUT /api/roles/{id}.
      await appCall('DELETE', `/api/roles/${id}`);
      return stored;
    },
  },
  'PUT /api/roles/{id}': {
    base: async () => ({ params: { id: renamedRoleId }, body: newRole() }),
    readBack: async (_answer, target, sent) =>
      getAt(await listed('/api/roles', sent.params?.id as string), target.path),
  },
  'POST /api/teams': {
    base: async () => ({ body: { name: `Fuzz team ${short()}` } }),
    readBack: async (answer, target) => {
      const { id } = answer.body as { id: string };
      const stored = getAt(await listed('/api/teams', id), target.path);
      // As for roles: the name is free again for the rename of PUT /api/teams/{id}.
      await appCall('DELETE', `/api/teams/${id}`);
      return stored;
    },
  },
  'PUT /api/teams/{id}': {
    base: async () => ({ params: { id: teamId }, body: { name: `Fuzz team ${short()}` } }),
    readBack: async (_answer, target, sent) =>
      getAt(await listed('/api/teams', sent.params?.id as string), target.path),
  },
  'PUT /api/organization/settings': {
    base: async () => ({
      body: {
        senderDisplayName: 'Fuzz sender',
        replyToEmail: 'replies@example.com',
        emailFooter: 'Fuzz footer',
        consentText: 'I agree to sign electronically.',
        privacyNotice: 'Fuzz privacy notice.',
        defaultAuthenticationMethod: 'SecureLink',
      },
    }),
    readBack: async (_answer, target) =>
      getAt(await appCall('GET', '/api/organization/settings'), target.path),
  },
  // Single sign-on (docs/sso.md): saved against a real OpenID provider started for it; the write-only client
  // secret reads back decrypted from its row.
  'PUT /api/organization/sso': {
    base: async () => {
      const provider = await fuzzSsoProvider();
      return {
        body: {
          issuer: provider.issuer,
          clientId: provider.clientId,
          clientSecret: provider.clientSecret,
          allowedDomains: [FUZZ_SSO_DOMAIN],
          jitEnabled: false,
          jitRoleId: null,
          ssoRequired: false,
          breakGlassUserId: null,
        },
      };
    },
    readBack: async (_answer, target) => {
      if (target.path[0] !== 'clientSecret')
        return getAt(await appCall('GET', '/api/organization/sso'), target.path);
      const row = await ctx.orm.em.fork().findOneOrFail(OrganizationSso, { organizationId });
      return decryptSecret(Buffer.from(TEST_ENCRYPTION_KEY, 'base64'), row.clientSecretEncrypted);
    },
  },
  // A domain no organization signs in with: 404 sso_not_configured, nothing stored.
  'POST /api/auth/sso/start': {
    base: async () => ({ body: { email: `someone@no-sso-${short()}.test` }, cookie: null }),
    alsoRefusedWith: [404],
    storesNothing: true,
  },
  // A state no sign-in started: 400 sso_state_invalid (naming body.state) whatever else is sent; nothing stored.
  'POST /api/auth/sso/callback': {
    base: async () => ({
      body: { state: 'fuzz-unknown-state', code: 'fuzz-code', iss: 'fuzz' },
      cookie: null,
    }),
    alsoRefusedWith: [400],
    storesNothing: true,
  },
  // The secure-signature policy (docs/sealing.md): its levels are words from a fixed list, so a fuzzed one
  // is refused naming the field; the organization may not send bounds at all.
  'PUT /api/organization/secure-signature-policy': {
    base: async () => ({ body: { level: 'B-B', timestampRequired: false, sealAuditTrail: true } }),
    readBack: async (_answer, target) =>
      getAt(await appCall('GET', '/api/organization/secure-signature-policy'), target.path),
  },
  // Which administrators are told of envelopes (docs/notifications.md): a word from a fixed list, so a fuzzed one
  // is refused naming the field.
  'PUT /api/organization/notification-settings': {
    base: async () => ({ body: { notifyAdministrators: 'none' } }),
    readBack: async (_answer, target) =>
      getAt(await appCall('GET', '/api/organization/notification-settings'), target.path),
  },
  'GET /api/organization/security-log': {
    // A lookup: `before` names an event; it stores nothing.
    base: async () => ({ query: { limit: '10' } }),
    storesNothing: true,
  },

  // ---- Personal stamps (docs/stamps.md), the owner's own ----
  // A fuzzed image (its base64, its type) is never an image: refused, naming body.imageBase64 or
  // body.contentType. An accepted name reads back from the list; a created stamp goes again (a user keeps ten).

  'POST /api/me/stamps': {
    base: async () => ({ body: { name: `Fuzz stamp ${short()}`, ...STAMP_IMAGE } }),
    readBack: async (answer, target) => {
      const { id } = answer.body as { id: string };
      const stored = getAt(await listedStamp(id), target.path);
      await appCall('DELETE', `/api/me/stamps/${id}`);
      return stored;
    },
  },
  'POST /api/me/stamps/{id}/versions': {
    base: async () => ({ params: { id: await fuzzStamp() }, body: STAMP_IMAGE }),
  },
  'PUT /api/me/stamps/{id}': {
    base: async () => ({ params: { id: await fuzzStamp() }, body: { name: `Fuzz stamp ${short()}` } }),
    readBack: async (_answer, target, sent) =>
      getAt(await listedStamp(sent.params?.id as string), target.path),
  },

  // ---- The address book (docs/contacts.md), as the owner ----

  'GET /api/contacts': {
    // A search: it stores nothing.
    base: async () => ({ query: { limit: '10' } }),
    storesNothing: true,
  },
  'GET /api/contacts/export': {
    base: async () => ({ query: {} }),
    storesNothing: true,
  },
  'POST /api/contacts': {
    // A contact with an address of its own; read back from the list, then deleted (its address free again).
    base: async () => ({ body: { name: 'Fuzz Contact', email: newEmail() } }),
    readBack: async (answer, target) => {
      const { id } = answer.body as { id: string };
      const stored = getAt(await listedContact(id), target.path);
      await appCall('DELETE', `/api/contacts/${id}`);
      return stored;
    },
  },
  'PUT /api/contacts/{id}': {
    base: async () => ({
      params: { id: await fuzzContact() },
      body: { name: 'Fuzz Contact', email: 'fuzz-contact@example.com', company: 'Fuzz Co', tags: ['fuzz'] },
    }),
    readBack: async (_answer, target, sent) =>
      getAt(await listedContact(sent.params?.id as string), target.path),
  },
  'POST /api/contacts/import': {
    // Every fuzzed `csv` is refused: a field PostgreSQL cannot store by the schema, anything else as a file
    // whose header names no column (400 `invalid_csv`, naming body.csv).
    base: async () => ({ body: { csv: 'name,email\nFuzz Import,fuzz-import@example.com\n' } }),
  },

  // ---- Webhooks in the business app (docs/webhooks.md), as the owner ----
  // A fuzzed URL is not an absolute http(s) URL (400 naming body.url); a fuzzed event type is not one of the
  // specification's (400 naming it). Whatever is accepted reads back from the list, then is deleted.
  'GET /api/webhooks/deliveries': {
    base: async () => ({ query: { limit: '10' } }),
    storesNothing: true,
  },
  'POST /api/webhooks': {
    base: async () => ({
      body: { url: 'https://hooks.example.com/fuzz', eventTypes: ['envelope.completed'] },
    }),
    readBack: async (answer, target) => {
      const { id } = answer.body as { id: string };
      const stored = getAt(await listedWebhook(id), target.path);
      await appCall('DELETE', `/api/webhooks/${id}`);
      return stored;
    },
  },
  'PUT /api/webhooks/{id}': {
    base: async () => ({
      params: { id: await fuzzWebhook() },
      body: { url: 'https://hooks.example.com/fuzz', eventTypes: ['envelope.completed'], enabled: false },
    }),
    readBack: async (_answer, target, sent) =>
      getAt(await listedWebhook(sent.params?.id as string), target.path),
  },

  // ---- API keys of the Integrations area (docs/integrations.md), as the owner ----
  // A fuzzed scope is not one of the specification's and a fuzzed allowlist line is no address or CIDR range (400
  // naming body.scopes.0, body.ipAllowlist.0); an accepted name reads back from the list (a new key is deleted).
  'POST /api/api-keys': {
    base: async () => ({ body: apiKeyBody() }),
    readBack: async (answer, target) => {
      const { id } = (answer.body as { apiKey: { id: string } }).apiKey;
      const stored = getAt(await listedApiKey(id), target.path);
      await appCall('DELETE', `/api/api-keys/${id}`);
      return stored;
    },
  },
  'PUT /api/api-keys/{id}': {
    base: async () => ({ params: { id: await fuzzApiKey() }, body: apiKeyBody() }),
    readBack: async (_answer, target, sent) =>
      getAt(await listedApiKey(sent.params?.id as string), target.path),
  },

  // ---- The backoffice's administrators (docs/backoffice.md), with a platform administrator's session ----
  // Its own cookie (an organization session is refused there). The allowlist entries are IPv6 documentation
  // addresses, added while 127.0.0.0/8 is on the list (so no request of this server's tests is refused, and
  // the change does not lock its changer, at 127.0.0.1, out).
  'POST /api/backoffice/platform-admins': {
    base: async () => ({
      body: { email: backofficeEmail(), fullName: 'Fuzz Admin' },
      cookie: await backofficeCookie(),
    }),
    consumes: true,
    readBack: async (answer, target) =>
      getAt(
        await listedBackoffice(
          '/api/backoffice/platform-admins',
          'administrators',
          idOfAdministrator(answer),
        ),
        target.path,
      ),
  },
  'POST /api/backoffice/platform-admins/otp': {
    // An unknown address of its own each time (the throttle counts per address): every fuzzed password is a
    // wrong one, 401 invalid_credentials.
    base: async () => ({ body: { email: backofficeEmail(), password: 'not the password' }, cookie: null }),
    fresh: true,
    alsoRefusedWith: [401],
    storesNothing: true,
  },
  'POST /api/backoffice/session': {
    base: async () => ({ body: { email: backofficeEmail(), code: '123456' }, cookie: null }),
    fresh: true,
    alsoRefusedWith: [401],
    storesNothing: true,
  },
  'DELETE /api/backoffice/platform-admins/{id}': backofficeLookup(),
  'POST /api/backoffice/platform-admins/ip-allowlist': {
    base: async () => ({ body: allowlistBody(), cookie: await backofficeCookie() }),
    consumes: true,
    readBack: async (answer, target) =>
      getAt(
        await listedBackoffice(
          '/api/backoffice/platform-admins/security-policy',
          'ipAllowlist',
          (answer.body as { id: string }).id,
        ),
        target.path,
      ),
  },
  'PUT /api/backoffice/platform-admins/ip-allowlist/{id}': {
    base: async () => ({
      params: { id: (await backofficeAllowlistEntry()).id },
      body: allowlistBody(),
      cookie: await backofficeCookie(),
    }),
    consumes: true,
    alsoRefusedWith: [404],
    readBack: async (_answer, target, sent) =>
      getAt(
        await listedBackoffice(
          '/api/backoffice/platform-admins/security-policy',
          'ipAllowlist',
          sent.params?.id as string,
        ),
        target.path,
      ),
  },
  'DELETE /api/backoffice/platform-admins/ip-allowlist/{id}': backofficeLookup(),
  'POST /api/backoffice/platform-admins/allowed-domains': {
    // A fuzzed domain is never a domain name: refused, naming body.domain.
    base: async () => ({
      body: { domain: `fuzz-${short()}.example.test` },
      cookie: await backofficeCookie(),
    }),
    consumes: true,
  },
  'PUT /api/backoffice/platform-admins/allowed-domains/{id}': {
    base: async () => {
      const cookie = await backofficeCookie();
      const domain = await addAllowedDomain(ctx, backofficeActor(), {
        domain: `fuzz-${short()}.example.test`,
      });
      return {
        params: { id: domain.id },
        body: { domain: `fuzz-${short()}.example.test` },
        cookie,
      };
    },
    consumes: true,
    alsoRefusedWith: [404],
  },
  'DELETE /api/backoffice/platform-admins/allowed-domains/{id}': backofficeLookup(),
  'GET /api/backoffice/audit-log': {
    base: async () => ({ query: { limit: '5' }, cookie: await backofficeCookie() }),
    storesNothing: true,
  },
  // A role change: only the id is text (the role is one of two words).
  'PATCH /api/backoffice/platform-admins/{id}': {
    base: async () => ({
      params: { id: randomUUID() },
      body: { role: 'support' },
      cookie: await backofficeCookie(),
    }),
    alsoRefusedWith: [404],
    storesNothing: true,
  },
  // The backoffice's envelopes (docs/backoffice.md, "Envelopes"): the lookup stores nothing; the contents and
  // the repairs on an envelope no organization has: a reason that passes is answered 404 and recorded nowhere.
  'GET /api/backoffice/envelopes': {
    base: async () => ({
      query: { q: 'nobody@example.com', limit: '5' },
      cookie: await backofficeCookie(),
    }),
    storesNothing: true,
  },
  'GET /api/backoffice/envelopes/{id}': backofficeLookup(),
  ...Object.fromEntries(
    ['contents', 'resume-projection', 'retry-final-pdf', 'reissue-links', 'verify-audit'].map((action) => [
      `POST /api/backoffice/envelopes/{id}/${action}`,
      {
        base: async () => ({
          params: { id: randomUUID() },
          body: { reason: 'Ticket 1' },
          cookie: await backofficeCookie(),
        }),
        alsoRefusedWith: [404],
        storesNothing: true,
      } satisfies RouteRecipe,
    ]),
  ),
  // The backoffice's organizations (docs/backoffice.md, "Organizations"): each change on an organization of
  // its own (suspended, so its reason is kept), never this file's, whose users the other recipes need.
  'GET /api/backoffice/organizations': {
    // A search: it stores nothing.
    base: async () => ({ query: { limit: '5' }, cookie: await backofficeCookie() }),
    storesNothing: true,
  },
  'PUT /api/backoffice/organizations/{id}': {
    // A fuzzed plan is no plan's name: refused naming body.plan. The reason is read back from the detail.
    base: async () => ({
      params: { id: await backofficeOrganization() },
      body: { plan: 'Business', status: 'suspended', suspendedReason: 'Fuzz reason' },
      cookie: await backofficeCookie(),
    }),
    alsoRefusedWith: [404],
    readBack: async (_answer, target, sent) =>
      getAt(
        await appCall(
          'GET',
          `/api/backoffice/organizations/${sent.params?.id}`,
          undefined,
          await backofficeCookie(),
        ),
        target.path,
      ),
  },
  'PUT /api/backoffice/organizations/{id}/secure-signature-policy': {
    base: async () => ({
      params: { id: await backofficeOrganization() },
      body: { level: 'B-B', bounds: { allowedLevels: ['B-B', 'B-T', 'B-LT', 'B-LTA'] } },
      cookie: await backofficeCookie(),
    }),
    alsoRefusedWith: [404],
    readBack: async (_answer, target, sent) =>
      getAt(
        await appCall(
          'GET',
          `/api/backoffice/organizations/${sent.params?.id}/secure-signature-policy`,
          undefined,
          await backofficeCookie(),
        ),
        target.path,
      ),
  },
  'POST /api/backoffice/organizations/{id}/credits': {
    base: async () => ({
      params: { id: await backofficeOrganization() },
      body: { amount: 1, reason: 'Fuzz grant' },
      cookie: await backofficeCookie(),
    }),
    alsoRefusedWith: [404],
    readBack: async (answer, target, sent) => {
      const { grant } = answer.body as { grant: { id: string } };
      const ledger = await appCall<{ grants: { id: string }[] }>(
        'GET',
        `/api/backoffice/organizations/${sent.params?.id}/credits`,
        undefined,
        await backofficeCookie(),
      );
      return getAt(
        ledger.grants.find((item) => item.id === grant.id),
        target.path,
      );
    },
  },

  // An organization's users (issue 35): the list stores nothing; an action on a user no organization has is 404
  // for a reason that passes (recorded nowhere).
  'GET /api/backoffice/organizations/{id}/users': {
    base: async () => ({
      params: { id: await backofficeOrganization() },
      query: { search: 'nobody', limit: '5' },
      cookie: await backofficeCookie(),
    }),
    alsoRefusedWith: [404],
    storesNothing: true,
  },
  ...Object.fromEntries(
    ['reset-mfa', 'resend-invitation', 'unlock', 'resend-verification', 'deactivate'].map((action) => [
      `POST /api/backoffice/organizations/{id}/users/{userId}/${action}`,
      {
        base: async () => ({
          params: { id: randomUUID(), userId: randomUUID() },
          body: { reason: 'Ticket 1' },
          cookie: await backofficeCookie(),
        }),
        alsoRefusedWith: [404],
        storesNothing: true,
      } satisfies RouteRecipe,
    ]),
  ),
  // A new organization each time (its owner at an address of its own): the name reads back from its detail, the
  // owner's name from its users.
  'POST /api/backoffice/organizations': {
    base: async () => ({
      body: {
        name: 'Fuzz onboarding',
        plan: 'Starter',
        owner: { email: `owner-${short()}@example.com`, fullName: 'Fuzz Owner' },
      },
      cookie: await backofficeCookie(),
    }),
    consumes: true,
    readBack: async (answer, target) => {
      const { organization } = answer.body as { organization: { id: string } };
      if (target.path[0] !== 'owner') return getAt(organization, target.path);
      const { users } = await appCall<{ users: Record<string, unknown>[] }>(
        'GET',
        `/api/backoffice/organizations/${organization.id}/users`,
        undefined,
        await backofficeCookie(),
      );
      return getAt(users[0], target.path.slice(1));
    },
  },
  // A plan of its own each time (version 1): a fuzzed plan name is no plan's (404); the reason reads back from the
  // plan's history.
  'PUT /api/backoffice/plans/{plan}': {
    base: async () => {
      const plan = `Fuzz ${short()}`;
      await ctx.em.fork().execute(
        `insert into plan (name, api_access, webhook_access, monthly_document_limit, user_limit, team_limit,
                           sms_credits_included, rate_limit_per_minute, upload_rate_limit_per_minute, support_level,
                           sort_order)
         values (?, false, false, 10, 10, 10, 0, null, null, 'Standard', 99)`,
        [plan],
      );
      return {
        params: { plan },
        body: { version: 1, teamLimit: 11, reason: 'Fuzz reason' },
        cookie: await backofficeCookie(),
      };
    },
    consumes: true,
    alsoRefusedWith: [404],
    readBack: async (answer, target) => {
      const plan = answer.body as { history: Record<string, unknown>[] };
      return getAt(plan.history[0], target.path);
    },
  },

  // ---- Notification templates (docs/backoffice.md): the preview renders the texts and stores nothing (the PUT
  // is fuzzed on a database of its own). A fuzzed body or SMS text lacks the link and is refused naming it; an
  // accepted subject comes back in the rendered email exactly. ----
  'POST /api/backoffice/notification-templates/preview': {
    base: async () => ({
      body: {
        kind: 'completed',
        language: 'en',
        subject: 'Done',
        body: 'Get them: {link}',
        sms: 'Done: {link}',
      },
      cookie: await backofficeCookie(),
    }),
    readBack: async (answer, target) =>
      (answer.body as Record<string, unknown>)[target.path[0] === 'sms' ? 'sms' : 'subject'],
  },

  // ---- Bulk send (docs/bulk-send.md), as the owner ----
  // A fuzzed `csv` is refused as a field PostgreSQL cannot store or as a file whose header names no column of the
  // template (400 `invalid_csv`, naming body.csv); a fuzzed role name is not a role of the template (400 naming
  // it). An accepted title or file name reads back from the run, which sends its one row's envelope.
  'POST /api/bulk-sends/check': {
    base: async () => ({ body: bulkSendBody() }),
    storesNothing: true,
  },
  'GET /api/bulk-sends/{id}/rows': {
    // A lookup: a fuzzed status is refused by its schema, naming it, before any run is looked for.
    base: async () => ({ params: { id: randomUUID() }, query: { status: 'Sent' } }),
    alsoRefusedWith: [404],
    storesNothing: true,
  },
  'POST /api/bulk-sends': {
    base: async () => ({ body: bulkSendBody() }),
    readBack: async (answer, target) => {
      const { id } = answer.body as { id: string };
      return getAt(await appCall(`GET`, `/api/bulk-sends/${id}`), target.path);
    },
  },

  // ---- Templates and the builder (docs/templates.md), as the owner ----
  // A fuzzed PDF (its base64) is never a PDF: refused, naming body.pdfBase64. A fuzzed file name with invisible
  // formatting characters is refused (they could disguise it). Names, labels, role names and options that are
  // accepted read back from the template as the builder loads it.

  'GET /api/templates': {
    // A list: the search and the filters find templates, they store nothing.
    base: async () => ({ query: { limit: '10' } }),
    storesNothing: true,
  },
  'POST /api/templates': {
    base: async () => ({
      body: { name: `Fuzz template ${short()}`, filename: 'fuzz.pdf', pdfBase64: await fuzzPdf() },
    }),
    readBack: async (answer, target) =>
      getAt(await templateShown((answer.body as { id: string }).id), target.path),
  },
  'PUT /api/templates/{id}/name': {
    base: async () => ({ params: { id: await fuzzTemplate() }, body: { name: `Fuzz template ${short()}` } }),
    readBack: async (_answer, target, sent) =>
      getAt(await templateShown(sent.params?.id as string), target.path),
  },
  'PUT /api/templates/{id}/definition': {
    // Two roles: the first has no field, so a fuzzed first role name that is accepted stands on its own; the
    // field is the second role's, and every property of the base field's type is refused on a Text field.
    base: async () => ({ params: { id: await fuzzTemplate() }, body: FUZZ_DEFINITION }),
    readBack: async (answer, target) =>
      getAt(await templateShown((answer.body as { id: string }).id), target.path),
  },
  'POST /api/templates/{id}/duplicate': {
    base: async () => ({ params: { id: await fuzzTemplate() }, body: { name: `Fuzz copy ${short()}` } }),
    readBack: async (answer, target) =>
      getAt(await templateShown((answer.body as { id: string }).id), target.path),
  },

  // ---- The documents (docs/documents.md), as the owner (who sees every envelope) ----

  'GET /api/documents': {
    // A list: the search, the filters and the cursor find envelopes, they store nothing.
    base: async () => ({ query: { limit: '10' } }),
    storesNothing: true,
  },
  'GET /api/documents/export': {
    // The list as CSV: the same search and filters, it stores nothing.
    base: async () => ({ query: {} }),
    storesNothing: true,
  },
  'PATCH /api/documents/{id}': {
    // PATCH /api/v1/envelopes/{id}'s body on the owner's Draft: an accepted text reads back as /api/v1's.
    base: async () => ({ params: { id: await fuzzDraft() }, body: envelopeBody() }),
    alsoRefusedWith: [404],
    readBack: (...args) => readBackOf('POST /api/v1/envelopes/from-template', ...args),
  },
  'POST /api/documents/{id}/recipients/{recipientId}/correct': {
    // As PATCH /api/v1/envelopes/{id}/recipients/{recipientId}: a new envelope after each accepted correction.
    base: async () => correctionBase(),
    consumes: true,
    alsoRefusedWith: [404],
    readBack: async (answer, target, sent) => getAt(correctedRecipient(answer, sent), target.path),
  },
  'POST /api/documents/{id}/settings': {
    // Its only text is the envelope's id, as PUT /api/v1/envelopes/{id}/settings.
    base: async () => ({ params: { id: await fuzzDraft() }, body: { reminderIntervalDays: 3 } }),
    alsoRefusedWith: [404],
  },

  // ---- The reports (docs/reports.md), as the owner ----

  'GET /api/reports/summary': {
    // A report of a range: it reads, it stores nothing.
    base: async () => ({
      query: { from: '2025-01-01T00:00:00Z', to: '2025-02-01T00:00:00Z', timeZone: 'Asia/Jerusalem' },
    }),
    storesNothing: true,
  },
  'POST /api/documents/{id}/cancel': {
    base: async () => ({
      params: {
        id: (await sentEnvelope({ app: baseUrl, ctx }, { organizationId, headers: auth }, envelopeBody())).id,
      },
      body: { reason: 'changed plans' },
    }),
    consumes: true,
    alsoRefusedWith: [404],
    readBack: async (answer) => {
      const { id } = answer.body as { id: string };
      const event = await ctx.orm.em
        .fork()
        .findOne(AuditEvent, { envelopeId: id, type: 'envelope.cancelled' });
      return event?.data.reason;
    },
  },
  'POST /api/documents/{id}/extend': {
    base: async () => ({
      params: {
        id: (await sentEnvelope({ app: baseUrl, ctx }, { organizationId, headers: auth }, envelopeBody())).id,
      },
      body: { expiresAt: new Date(Date.now() + 90 * 86_400_000).toISOString() },
    }),
    alsoRefusedWith: [404],
  },
  // The send page (docs/documents.md, "Sending"): /api/v1's create bodies plus `draft`, kept as Drafts; an
  // accepted text reads back from the envelope exactly as /api/v1's creates do.
  'POST /api/documents/send-from-template': {
    base: async () => ({ body: { ...envelopeBody(), draft: true } }),
    readBack: (...args) => readBackOf('POST /api/v1/envelopes/from-template', ...args),
  },
  'POST /api/documents/send-from-file': {
    base: async () => ({ body: { ...fileEnvelopeBody(), draft: true } }),
    readBack: (...args) => readBackOf('POST /api/v1/envelopes/from-file', ...args),
  },
  'POST /api/documents/files': {
    // A fuzzed PDF (its base64) is never a PDF: refused, naming body.pdfBase64; an accepted file name is the
    // stored file's.
    base: async () => ({ body: { filename: 'fuzz.pdf', pdfBase64: await fuzzPdf() } }),
    readBack: async (answer, target) => {
      const { fileId } = answer.body as { fileId: string };
      const file = await ctx.orm.em.fork().findOneOrFail(StoredFile, { id: fileId });
      return getAt({ filename: file.filename }, target.path);
    },
  },
};

/** Another recipe's read-back (the send page's creations read back as /api/v1's). */
function readBackOf(route: string, ...args: Parameters<NonNullable<RouteRecipe['readBack']>>) {
  const readBack = RECIPES[route]?.readBack;
  if (!readBack) throw new Error(`${route} has no read-back`);
  return readBack(...args);
}

/** A version's roles and fields with its name and file name, as the builder loads it. */
function templateShown(id: string): Promise<unknown> {
  return appCall('GET', `/api/templates/${id}`);
}

let fuzzPdfBase64: Promise<string> | undefined;
function fuzzPdf(): Promise<string> {
  fuzzPdfBase64 ??= buildDemoPdf('Fuzz template').then((bytes) => Buffer.from(bytes).toString('base64'));
  return fuzzPdfBase64;
}

/** A roles-and-fields body every part of which is valid (docs/templates.md). */
const FUZZ_DEFINITION = {
  roles: [
    { name: 'Witness', required: false, defaultRecipientType: 'Signer', signingOrder: 2 },
    { name: 'Signer', required: true, defaultRecipientType: 'Signer', signingOrder: 1 },
  ],
  fields: [
    {
      type: 'Text',
      role: 'Signer',
      label: 'Company',
      page: 1,
      x: 20,
      y: 20,
      width: 120,
      height: 20,
      required: true,
    },
  ],
};

let fuzzTemplateId: Promise<string> | undefined;
/** One draft template of the organization for the `{id}` of the template routes, made once through the route. */
function fuzzTemplate(): Promise<string> {
  fuzzTemplateId ??= fuzzPdf().then((pdfBase64) =>
    appCall<{ id: string }>('POST', '/api/templates', { name: 'Fuzz template', pdfBase64 }).then(
      (template) => template.id,
    ),
  );
  return fuzzTemplateId;
}

/** The owner's stamp with this id, as the list answers it. */
async function listedStamp(id: string): Promise<unknown> {
  const { stamps } = await appCall<{ stamps: { id: string }[] }>('GET', '/api/me/stamps');
  return stamps.find((stamp) => stamp.id === id);
}

let fuzzStampId: Promise<string> | undefined;
/** One stamp of the owner for the `{id}` of the stamp routes, made once through the route. */
function fuzzStamp(): Promise<string> {
  fuzzStampId ??= appCall<{ id: string }>('POST', '/api/me/stamps', {
    name: 'Fuzz stamp',
    ...STAMP_IMAGE,
  }).then((stamp) => stamp.id);
  return fuzzStampId;
}

/** The contact of the organization's address book with this id, as the list answers it. */
async function listedContact(id: string): Promise<unknown> {
  const { contacts } = await appCall<{ contacts: { id: string }[] }>('GET', '/api/contacts?limit=200');
  return contacts.find((contact) => contact.id === id);
}

async function listedWebhook(id: string): Promise<unknown> {
  const { endpoints } = await appCall<{ endpoints: { id: string }[] }>('GET', '/api/webhooks');
  return endpoints.find((endpoint) => endpoint.id === id);
}

/** A valid body of POST and PUT /api/api-keys: every part of it is text the fuzz replaces. */
function apiKeyBody() {
  return { name: 'Fuzz API key', scopes: ['templates.read'], ipAllowlist: ['192.0.2.0/24'] };
}

async function listedApiKey(id: string): Promise<unknown> {
  const { apiKeys } = await appCall<{ apiKeys: { id: string }[] }>('GET', '/api/api-keys');
  return apiKeys.find((apiKey) => apiKey.id === id);
}

let fuzzApiKeyId: string | undefined;

/** The API key that PUT /api/api-keys/{id} changes (made once). */
async function fuzzApiKey(): Promise<string> {
  fuzzApiKeyId ??= (await appCall<{ apiKey: { id: string } }>('POST', '/api/api-keys', apiKeyBody())).apiKey
    .id;
  return fuzzApiKeyId;
}

let fuzzWebhookId: string | undefined;

/** The webhook endpoint that PUT /api/webhooks/{id} changes (made once, disabled). */
async function fuzzWebhook(): Promise<string> {
  fuzzWebhookId ??= (
    await appCall<{ id: string }>('POST', '/api/webhooks', {
      url: 'https://hooks.example.com/fuzz',
      enabled: false,
    })
  ).id;
  return fuzzWebhookId;
}

let fuzzDraftId: Promise<string> | undefined;

/** One Draft of the organization for the edit and settings routes (made once; an edit keeps it a Draft). */
function fuzzDraft(): Promise<string> {
  fuzzDraftId ??= sentEnvelope({ app: baseUrl, ctx }, { organizationId, headers: auth }, envelopeBody(), {
    send: false,
  }).then((draft) => draft.id);
  return fuzzDraftId;
}

/**
 * A sent envelope's recipient and a correction of them that changes their name (the other fields as they are),
 * for the correction routes.
 */
async function correctionBase(): Promise<SentRequest> {
  const envelope = await sentEnvelope(
    { app: baseUrl, ctx },
    { organizationId, headers: auth },
    envelopeBody(),
  );
  return {
    params: { id: envelope.id, recipientId: envelope.recipientIdOf('Dana Levi') },
    body: {
      fullName: 'Dana Cohen',
      email: 'dana@example.com',
      language: 'en',
      deliveryChannel: 'ManualLink',
    },
  };
}

/** The corrected recipient as the correction's answer (the envelope afterwards) shows them. */
function correctedRecipient(answer: Answer, sent: SentRequest): unknown {
  const { recipients } = answer.body as { recipients: { id: string }[] };
  return recipients.find((recipient) => recipient.id === sent.params?.recipientId);
}

async function listedApiWebhook(id: string): Promise<unknown> {
  const { endpoints } = (await (
    await asUser(baseUrl, { headers: auth }, 'GET', '/api/v1/webhooks')
  ).json()) as { endpoints: { id: string }[] };
  return endpoints.find((endpoint) => endpoint.id === id);
}

let fuzzApiWebhookId: string | undefined;

/** The webhook endpoint that PUT /api/v1/webhooks/{id} changes (made once through /api/v1, disabled). */
async function fuzzApiWebhook(): Promise<string> {
  fuzzApiWebhookId ??= (
    (await (
      await asUser(baseUrl, { headers: auth }, 'POST', '/api/v1/webhooks', {
        url: 'https://hooks.example.com/fuzz',
        enabled: false,
      })
    ).json()) as { id: string }
  ).id;
  return fuzzApiWebhookId;
}

let fuzzContactId: string | undefined;

/** The contact that PUT /api/contacts/{id} changes (made once). */
async function fuzzContact(): Promise<string> {
  fuzzContactId ??= (
    await appCall<{ id: string }>('POST', '/api/contacts', {
      name: 'Fuzz Contact',
      email: 'fuzz-contact@example.com',
    })
  ).id;
  return fuzzContactId;
}

function userIdOf(answer: Answer): string {
  return (answer.body as { id: string }).id;
}

/** A separate user's password reset link (forgot-password through the route, the link from the capture). */
async function resetToken(email?: string): Promise<string> {
  const address = email ?? (await separateUser()).email;
  await appCall('POST', '/api/auth/forgot-password', { email: address }, null);
  return linkTokenFor(app, address, 'reset_password');
}

/** A new invited user of the organization and the token of their invitation link. */
async function invitedWithToken(): Promise<{ token: string; userId: string }> {
  const email = newEmail();
  const { id } = await appCall<{ id: string }>('POST', '/api/users/invite', invitation(email));
  return { token: await linkTokenFor(app, email, 'invite'), userId: id };
}

// ---- The backoffice (docs/backoffice.md) ----

const BACKOFFICE_DOMAIN = `fuzz-backoffice-${randomUUID().slice(0, 8)}.example.test`;
const backofficeEmail = () => `fuzz-${randomUUID().slice(0, 12)}@${BACKOFFICE_DOMAIN}`;
let backofficeAdmin: Promise<{ id: string; email: string }> | undefined;

/** This file's platform administrator (its domain allowed as the CLI does). */
function fuzzBackofficeAdmin(): Promise<{ id: string; email: string }> {
  backofficeAdmin ??= (async () => {
    const { admin } = await createPlatformAdmin(
      ctx,
      { kind: 'operator_cli' },
      { email: backofficeEmail(), fullName: 'Fuzz Platform Admin', allowDomain: true },
    );
    return { id: admin.id, email: admin.email };
  })();
  return backofficeAdmin;
}

/**
 * The routes that change the backoffice IP allowlist, one list for the whole platform: fuzzed in a test of
 * their own, inside the allowlist's turn (test/support/backoffice-allowlist.ts) with the loopback addresses on
 * the list (so the fuzzed entries, IPv6 documentation addresses, do not lock this file's requests out), and
 * every entry removed before the turn ends.
 */
const ALLOWLIST_ROUTES = new Set([
  'POST /api/backoffice/platform-admins/ip-allowlist',
  'PUT /api/backoffice/platform-admins/ip-allowlist/{id}',
  'DELETE /api/backoffice/platform-admins/ip-allowlist/{id}',
]);

/**
 * The notification providers' routes: what they save applies to every message of the platform, and the other
 * files running next to this one send messages. test/integration/backoffice-providers.test.ts fuzzes their
 * text (NUL, control characters, lone surrogates) on a database of its own.
 */
const PROVIDER_ROUTES = new Set([
  ...['smtp', 'sms', 'whatsapp'].flatMap((kind) => [
    `PUT /api/backoffice/${kind}`,
    `POST /api/backoffice/${kind}/test`,
  ]),
  // Stored templates apply to every message of the platform too (backoffice-templates.test.ts, own database).
  'PUT /api/backoffice/notification-templates',
]);

function backofficeActor() {
  return {
    kind: 'platform_admin' as const,
    admin: { id: randomUUID(), email: 'fuzz@example.test' },
    ipAddress: '127.0.0.1',
  };
}

/** A new backoffice session of this file's administrator, as its cookie (idle sessions end after 15 minutes). */
async function backofficeCookie(): Promise<string> {
  const { id } = await fuzzBackofficeAdmin();
  const em = ctx.orm.em.fork();
  const admin = await em.findOneOrFail(PlatformAdmin, { id });
  const { token } = await startBackofficeSession({ em }, { admin, ipAddress: '127.0.0.1', userAgent: null });
  return `sigil_backoffice_session=${token}`;
}

function allowlistBody() {
  return {
    entry: `2001:db8::${randomUUID().slice(0, 4)}:${randomUUID().slice(0, 4)}`,
    description: 'Fuzz entry',
  };
}

async function backofficeAllowlistEntry(): Promise<{ id: string }> {
  const { id } = await fuzzBackofficeAdmin();
  return addAllowlistEntry(
    ctx,
    { kind: 'platform_admin', admin: { id, email: 'fuzz@example.test' }, ipAddress: '127.0.0.1' },
    allowlistBody(),
  );
}

function idOfAdministrator(answer: Answer): string {
  return (answer.body as { administrator: { id: string } }).administrator.id;
}

/** One item of a backoffice list (`administrators`, `ipAllowlist`) by its id. */
async function listedBackoffice(path: string, key: string, id: string): Promise<unknown> {
  const list = await appCall<Record<string, { id: string }[]>>(
    'GET',
    path,
    undefined,
    await backofficeCookie(),
  );
  return list[key]?.find((item) => item.id === id);
}

let fuzzOrganization: Promise<string> | undefined;

/** The OpenID provider the single sign-on settings are saved against, started when first needed. */
let ssoProvider: Promise<TestProvider> | undefined;
const FUZZ_SSO_DOMAIN = `fuzz-${randomUUID().slice(0, 8)}.test`;
function fuzzSsoProvider(): Promise<TestProvider> {
  ssoProvider ??= startTestProvider({ redirectUri: 'http://localhost:3000/app/sso/callback' });
  return ssoProvider;
}
afterAll(async () => {
  await (await ssoProvider)?.close();
});

/** An organization of the backoffice recipes' own: they suspend it and give it credits. */
function backofficeOrganization(): Promise<string> {
  fuzzOrganization ??= createOrganization(ctx, {
    name: `Fuzz backoffice ${randomUUID().slice(0, 8)}`,
    plan: 'Business',
    apiEnabled: false,
  }).then((organization) => organization.id);
  return fuzzOrganization;
}

/** A backoffice route whose only text is a uuid path parameter: refused before a lookup, or not found. */
function backofficeLookup(): RouteRecipe {
  return {
    base: async () => ({ params: { id: randomUUID() }, cookie: await backofficeCookie() }),
    alsoRefusedWith: [404],
    storesNothing: true,
  };
}

/** Routes whose only text input is a uuid path parameter: every fuzzed value is refused before a lookup. */
function recipeFor(operation: Operation, hasBody: boolean): RouteRecipe | undefined {
  const recipe = RECIPES[`${operation.method} ${operation.path}`];
  if (recipe) return recipe;
  const uuidOnly =
    !hasBody &&
    operation.parameters
      .filter((p) => p.in === 'path' || p.in === 'query')
      .every((p) => p.schema?.format === 'uuid' || p.schema?.pattern !== undefined);
  if (!uuidOnly) return undefined;
  // The backoffice's own routes take a platform administrator's session, not the owner's.
  if (operation.path.startsWith('/api/backoffice/')) return backofficeLookup();
  return { base: uuidParams, alsoRefusedWith: [404], storesNothing: true };
}

function urlOf(
  path: string,
  params: Record<string, string> = {},
  query: Record<string, string> = {},
): string {
  const filled = path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? randomUUID());
  const search = Object.entries(query)
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
  return search ? `${filled}?${search}` : filled;
}

function encodeParams(values: Record<string, string> = {}): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, encodeURIComponent(value)]));
}

async function fuzzOperation(operation: Operation, resolve: (ref: string) => JsonSchema): Promise<number> {
  const route = `${operation.method} ${operation.path}`;
  const targets: Target[] = [
    ...operation.parameters
      .filter(
        (p) => (p.in === 'path' || p.in === 'query') && stringPaths(p.schema, resolve, [p.name]).length > 0,
      )
      .map((p) => ({ part: (p.in === 'path' ? 'path' : 'query') as Part, path: [p.name] })),
    ...(operation.body && operation.body.contentType !== 'multipart/form-data'
      ? stringPaths(operation.body.schema, resolve).map((path) => ({ part: 'body' as Part, path }))
      : []),
  ];
  if (targets.length === 0) return 0;
  const recipe = recipeFor(operation, Boolean(operation.body));
  expect(
    recipe,
    `${route} takes text (${targets.map((t) => t.path.join('.')).join(', ')}) but text-safety.test.ts has no recipe for a valid request to it: add one to RECIPES`,
  ).toBeDefined();
  if (!recipe) return 0;
  let base = await recipe.base();
  let sent = 0;
  for (const target of targets) {
    for (const value of VALUES) {
      if (recipe.fresh && sent > 0) base = await recipe.base();
      const params = encodeParams(base.params);
      const query = encodeParams(base.query);
      let body = base.body;
      if (target.part === 'path') params[target.path[0] as string] = value.url;
      else if (target.part === 'query') query[target.path[0] as string] = value.url;
      else body = setAt(body, target.path, value.text);
      const form = operation.body?.contentType === 'application/x-www-form-urlencoded';
      const answer = await send(urlOf(operation.path, params, query), {
        method: operation.method,
        headers: {
          ...(operation.path.startsWith('/api/v1/') ? auth : {}),
          ...(isAppRoute(operation.path)
            ? appHeaders(operation.method, base.cookie === undefined ? owner.cookie : base.cookie)
            : {}),
          ...(body === undefined
            ? {}
            : { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' }),
        },
        ...(body === undefined
          ? {}
          : { body: form ? formBody(body as Record<string, string>) : JSON.stringify(body) }),
      });
      sent += 1;
      await check(route, target, value, answer, recipe, { ...base, body });
      if (answer.status < 300 && recipe.consumes && !recipe.fresh) base = await recipe.base();
    }
  }
  return sent;
}

/** A form body as a browser writes it, except that lone surrogates go out as their ill-formed UTF-8 bytes. */
function formBody(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([key, value]) => `${key}=${percentEncode(value)}`)
    .join('&');
}

function percentEncode(value: string): string {
  let out = '';
  for (const character of value) {
    const code = character.codePointAt(0) ?? 0;
    out +=
      code >= 0xd800 && code <= 0xdfff
        ? `%ED%${(0xa0 | ((code >> 6) & 0x1f)).toString(16).toUpperCase()}%${(0x80 | (code & 0x3f)).toString(16).toUpperCase()}`
        : encodeURIComponent(character);
  }
  return out;
}

describe('text fuzzing of every route', () => {
  // About 1,700 requests: on a slow machine next to another test file, well over the default five minutes.
  it('answers every documented route (/api/v1, the token endpoints, the application routes) with a 400 naming the field or stores the text exactly', async () => {
    let sent = 0;
    const covered: string[] = [];
    for (const documentPath of [OPENAPI_PATH, APP_OPENAPI_PATH]) {
      const { operations, resolve } = await documentedOperations(documentPath);
      for (const operation of operations) {
        const label = `${operation.method} ${operation.path}`;
        if (ALLOWLIST_ROUTES.has(label) || PROVIDER_ROUTES.has(label)) continue;
        const count = await fuzzOperation(operation, resolve);
        if (count > 0) covered.push(`${operation.method} ${operation.path}`);
        sent += count;
      }
    }
    console.info(`documented routes: ${sent} fuzzed requests over ${covered.length} operations`);
    // The routes the defects were found on are among them.
    expect(covered).toEqual(
      expect.arrayContaining([
        'POST /oauth/token',
        'POST /api/v1/envelopes/from-template',
        'POST /api/v1/envelopes/from-file',
        'GET /api/v1/envelopes/by-external-reference/{externalReference}',
        'POST /api/v1/envelopes/{id}/cancel',
        'POST /api/v1/envelopes/{id}/extend',
        'POST /api/auth/register',
        'POST /api/users/invite',
        'PUT /api/organization/settings',
        'POST /api/roles',
        'GET /api/contacts',
        'POST /api/contacts',
        'PUT /api/contacts/{id}',
        'POST /api/contacts/import',
        'POST /api/bulk-sends/check',
        'POST /api/bulk-sends',
        'GET /api/documents',
        'POST /api/documents/{id}/cancel',
        'POST /api/documents/{id}/extend',
        'POST /api/documents/send-from-template',
        'POST /api/documents/send-from-file',
        'POST /api/documents/files',
        'GET /api/templates',
        'POST /api/templates',
        'PUT /api/templates/{id}/name',
        'PUT /api/templates/{id}/definition',
        'POST /api/templates/{id}/duplicate',
      ]),
    );
  }, 900_000);

  it('answers the backoffice IP allowlist’s routes with a 400 naming the field or stores the text exactly', async () => {
    const { operations, resolve } = await documentedOperations(APP_OPENAPI_PATH);
    const allowlistOperations = operations.filter((operation) =>
      ALLOWLIST_ROUTES.has(`${operation.method} ${operation.path}`),
    );
    expect(allowlistOperations.map((operation) => `${operation.method} ${operation.path}`).sort()).toEqual(
      [...ALLOWLIST_ROUTES].sort(),
    );
    const { id, email } = await fuzzBackofficeAdmin();
    const actor = { kind: 'platform_admin' as const, admin: { id, email }, ipAddress: '127.0.0.1' };
    let sent = 0;
    await withBackofficeAllowlist(async () => {
      try {
        await addAllowlistEntry(ctx, actor, { entry: '127.0.0.0/8' });
        await addAllowlistEntry(ctx, actor, { entry: '::1' });
        for (const operation of allowlistOperations) sent += await fuzzOperation(operation, resolve);
      } finally {
        // The list as the other files expect it between turns: empty.
        await ctx.orm.em.fork().execute('delete from platform_admin_ip_allowlist');
      }
    });
    expect(sent).toBeGreaterThan(0);
  }, 600_000);

  it('answers the upload’s file name: refused, or stored as a safe name', async () => {
    for (const value of VALUES) {
      const form = new FormData();
      form.append(
        'file',
        new Blob([PDF_BYTES], { type: 'application/pdf' }),
        `${value.text.slice(0, 4000)}.pdf`,
      );
      const answer = await send('/api/v1/files/upload', { method: 'POST', headers: auth, body: form });
      report.push(`${answer.status}  POST /api/v1/files/upload  filename  ${value.name}`);
      expect(answer.status, JSON.stringify(answer.body)).toBeLessThan(500);
      if (answer.status < 300) {
        // The documented rule: the name is reduced to a safe base name (bidi controls and control characters go).
        const name = (answer.body as { name: string }).name;
        expect(textProblem(name)).toBeUndefined();
        expect(name).not.toMatch(/[\u202A-\u202E]/);
      } else {
        expect(isErrorBody(answer.body)).toBe(true);
      }
    }
  });
});

describe('text fuzzing of the signer API and the development routes (hidden from the OpenAPI documents)', () => {
  it('refuses or stores exactly every text of a save, a decline and a code', async () => {
    let envelope = await sentEnvelope(
      { app: baseUrl, ctx },
      { organizationId, headers: auth },
      envelopeBody(),
    );
    const signer = (path: string, method: string, body: unknown) =>
      send(path, {
        method,
        headers: { 'content-type': 'application/json', 'user-agent': 'text fuzz' },
        body: JSON.stringify(body),
      });
    const savedValue = async (fieldId: string) => {
      const view = (await (await fetch(`${baseUrl}/api/signing/${envelope.tokenOf()}`)).json()) as {
        fields: { fieldDefinitionId: string; value: unknown }[];
      };
      return view.fields.find((f) => f.fieldDefinitionId === fieldId)?.value;
    };

    // The body schemas' own strings (fieldDefinitionId, reason, code), walked from domain/signing.ts.
    const decline = zodPaths(DeclineSigningRequest);
    const verify = zodPaths(VerifyCodeRequest);
    const save = zodPaths(SaveFieldsRequest);
    expect(decline.map((p) => p.join('.'))).toEqual(['reason']);
    expect(save.map((p) => p.join('.')).sort()).toEqual(['values.0.fieldDefinitionId', 'values.0.value']);

    // Each field type's value: a string, or the strings of its object shape (field-value.ts).
    const valueShapes: Record<string, { base: unknown; paths: Path[] }> = {};
    for (const field of FUZZ_FIELDS) {
      if (field.type === 'Signature') {
        valueShapes[field.label] = {
          base: { imagePngBase64: PNG, typedName: 'Dana' },
          paths: [['imagePngBase64'], ['typedName']],
        };
      } else if (field.type === 'Image upload' || field.type === 'File upload') {
        valueShapes[field.label] = {
          base: { fileBase64: PNG, filename: 'logo.png', contentType: 'image/png' },
          paths: [['fileBase64'], ['filename'], ['contentType']],
        };
      } else {
        valueShapes[field.label] = { base: 'ok', paths: [[]] };
      }
    }

    for (const value of VALUES) {
      const answer = await signer(`/api/signing/${envelope.tokenOf()}/fields`, 'PUT', {
        values: [{ fieldDefinitionId: value.text, value: 'x' }],
      });
      await check(
        'PUT /api/signing/{token}/fields',
        { part: 'body', path: ['values', 0, 'fieldDefinitionId'] },
        value,
        answer,
        {},
      );
    }
    for (const [label, shape] of Object.entries(valueShapes)) {
      const fieldId = fieldIds[label] as string;
      for (const path of shape.paths) {
        for (const value of VALUES) {
          const fuzzed = setAt(shape.base, path, value.text);
          const answer = await signer(`/api/signing/${envelope.tokenOf()}/fields`, 'PUT', {
            values: [{ fieldDefinitionId: fieldId, value: fuzzed }],
          });
          const target: Target = { part: 'body', path: ['values', 0, 'value', ...path] };
          await check(`PUT /api/signing/{token}/fields (${label})`, target, value, answer, {
            readBack: async () => getAt(await savedValue(fieldId), path),
          });
        }
      }
    }

    for (const value of VALUES) {
      const answer = await signer(
        `/api/signing/${envelope.tokenOf()}/otp/verify`,
        'POST',
        setAt({ code: '123456' }, verify[0] as Path, value.text),
      );
      await check(
        'POST /api/signing/{token}/otp/verify',
        { part: 'body', path: verify[0] as Path },
        value,
        answer,
        {},
      );
    }

    for (const value of VALUES) {
      const answer = await signer(`/api/signing/${envelope.tokenOf()}/decline`, 'POST', {
        reason: value.text,
      });
      const declined = envelope;
      await check('POST /api/signing/{token}/decline', { part: 'body', path: ['reason'] }, value, answer, {
        readBack: async () =>
          (
            await ctx.orm.em
              .fork()
              .findOne(AuditEvent, { envelopeId: declined.id, type: 'recipient.declined' })
          )?.data.reason,
      });
      if (answer.status < 300)
        envelope = await sentEnvelope(
          { app: baseUrl, ctx },
          { organizationId, headers: auth },
          envelopeBody(),
        );
    }
  }, 600_000);

  it('refuses every text of a personal stamp’s choice (fieldDefinitionId, stampId) or finds no stamp', async () => {
    const envelope = await sentEnvelope(
      { app: baseUrl, ctx },
      { organizationId, headers: auth },
      envelopeBody(),
    );
    const paths = zodPaths(UsePersonalStampRequest);
    expect(paths.map((p) => p.join('.')).sort()).toEqual(['fieldDefinitionId', 'stampId']);
    for (const path of paths) {
      for (const value of VALUES) {
        const body = setAt({ fieldDefinitionId: randomUUID(), stampId: randomUUID() }, path, value.text);
        // As the signer page sends it: this server's Origin, and the owner's session (not the recipient's).
        const answer = await send(`/api/signing/${envelope.tokenOf()}/personal-stamps`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', origin: baseUrl, cookie: owner.cookie },
          body: JSON.stringify(body),
        });
        await check('POST /api/signing/{token}/personal-stamps', { part: 'body', path }, value, answer, {
          alsoRefusedWith: [404],
        });
      }
    }
  });

  it('refuses or answers every text of the development notifications query', async () => {
    for (const name of ['to', 'envelopeId', 'recipientId', 'kind', 'limit']) {
      for (const value of VALUES) {
        const answer = await send(`/api/dev/notifications?${name}=${value.url}`, { method: 'GET' });
        await check('GET /api/dev/notifications', { part: 'query', path: [name] }, value, answer, {
          storesNothing: true,
        });
      }
    }
  });
});

describe('text fuzzing of what the operator CLI sends (the same domain schemas)', () => {
  it('refuses what cannot be stored in organizations, OAuth clients, templates and webhook endpoints', () => {
    const schemas: [string, z.ZodType, unknown][] = [
      ['organization', CreateOrganizationRequest, { name: 'Acme', plan: 'Business' }],
      [
        'OAuth client',
        CreateOAuthClientRequest,
        { name: 'Client', scopes: ['envelopes.read'], ipAllowlist: ['10.0.0.0/8'] },
      ],
      [
        'template',
        TemplateDefinition,
        {
          name: 'T',
          roles: [{ name: 'Client' }],
          fields: [
            {
              type: 'Radio',
              role: 'Client',
              label: 'L',
              options: ['a'],
              page: 1,
              x: 1,
              y: 1,
              width: 1,
              height: 1,
            },
          ],
        },
      ],
      [
        'webhook endpoint',
        CreateWebhookEndpointRequest,
        { url: 'https://example.com/hook', eventTypes: ['envelope.completed'] },
      ],
      ['webhook update', UpdateWebhookEndpointRequest, { url: 'https://example.com/hook' }],
    ];
    let checked = 0;
    for (const [what, schema, base] of schemas) {
      expect(schema.safeParse(base).success, what).toBe(true);
      for (const path of zodPaths(schema)) {
        for (const value of VALUES) {
          const result = schema.safeParse(setAt(base, path, value.text));
          checked += 1;
          if (!value.storable) {
            expect(result.success, `${what} ${path.join('.')} accepted ${value.name}`).toBe(false);
            expect(
              result.error?.issues.some((issue) => issue.path.join('.') === path.join('.')),
              `${what} ${path.join('.')} with ${value.name}: ${result.error?.message}`,
            ).toBe(true);
          } else if (result.success) {
            expect(getAt(result.data, path), `${what} ${path.join('.')}`).toBe(value.text);
          }
        }
      }
    }
    console.info(`operator schemas: ${checked} fuzzed values`);
  });
});

// The two jams of defect 1: a decline or cancel with a NUL reason answered nothing, the workflow decided and
// the projection retried forever. Now: 400, the envelope still Sent, and a later cancel works.
describe('a NUL in a reason no longer jams an envelope', () => {
  it('refuses a signer’s decline with a NUL reason; the envelope stays Sent and can still be cancelled', async () => {
    const envelope = await sentEnvelope(
      { app: baseUrl, ctx },
      { organizationId, headers: auth },
      envelopeBody(),
    );
    const answer = await send(`/api/signing/${envelope.tokenOf()}/decline`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'a\u0000b' }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: {
        code: 'invalid_request',
        details: [{ field: 'body.reason', message: 'must not contain NUL characters' }],
      },
    });
    await expectStillSentThenCancellable(envelope.id);
  });

  it('refuses an integrator’s cancel with a NUL reason; the envelope stays Sent and can still be cancelled', async () => {
    const envelope = await sentEnvelope(
      { app: baseUrl, ctx },
      { organizationId, headers: auth },
      envelopeBody(),
    );
    const answer = await send(`/api/v1/envelopes/${envelope.id}/cancel`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: 'x\u0000y' }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: {
        code: 'invalid_request',
        details: [{ field: 'body.reason', message: 'must not contain NUL characters' }],
      },
    });
    await expectStillSentThenCancellable(envelope.id);
  });

  it('refuses the by-external-reference lookup of a%00b with a 400, not a 500', async () => {
    const answer = await send('/api/v1/envelopes/by-external-reference/a%00b', {
      method: 'GET',
      headers: auth,
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { details: [{ field: 'params.externalReference' }] } });
  });
});

async function expectStillSentThenCancellable(envelopeId: string): Promise<void> {
  const row = await ctx.orm.em.fork().findOneOrFail(Envelope, { id: envelopeId });
  expect(row.status).toBe('Sent');
  const state = await ctx.temporal.workflow
    .getHandle(`envelope/${envelopeId}`)
    .query<{ status: string }>('envelopeState');
  expect(state.status).toBe('Sent');
  const cancel = await send(`/api/v1/envelopes/${envelopeId}/cancel`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'a plain reason' }),
  });
  expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
  expect((await ctx.orm.em.fork().findOneOrFail(Envelope, { id: envelopeId })).status).toBe('Cancelled');
}

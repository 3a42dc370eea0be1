// POST /oauth/token: the OAuth 2.0 client-credentials grant (RFC 6749 §4.4), and POST /oauth/revoke: token
// revocation (RFC 7009, an addition to the specification). Bodies are form-encoded; the client authenticates
// by HTTP Basic (preferred) or by the client_id and client_secret form fields, the same way at both. Every
// answer carries `Cache-Control: no-store`, and every error the specification's body.
import formbody from '@fastify/formbody';
import type { FastifyReply, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IsoDateTime } from '../../domain/common.ts';
import { AppError, InvalidRequest, Unauthorized } from '../../services/errors.ts';
import { issueAccessToken } from '../../services/oauth-clients/issue-access-token.ts';
import { revokeAccessToken } from '../../services/oauth-clients/revoke-access-token.ts';
import type { AppDependencies } from '../dependencies.ts';
import { createAddressThrottle } from '../plugins/rate-limit.ts';
import { ERROR_RESPONSES } from './v1/schemas.ts';

const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="sigil"' };
const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

// Permissive on purpose: every field is an optional string and the handler produces the OAuth error codes
// (invalid_request, unsupported_grant_type, ...), which a schema failure could not.
const TokenRequest = z
  .object({
    grant_type: z.string().optional().meta({ description: 'Must be `client_credentials`.' }),
    scope: z.string().optional().meta({
      description: 'Space-separated scopes, each allowed on the client. Absent: all the client’s scopes.',
    }),
    client_id: z.string().optional().meta({ description: 'Only when HTTP Basic is not used.' }),
    client_secret: z.string().optional().meta({ description: 'Only when HTTP Basic is not used.' }),
  })
  .meta({ id: 'TokenRequest' });

const AccessTokenResponse = z
  .object({
    access_token: z.string().meta({ description: 'Opaque bearer token.' }),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().meta({ description: 'Seconds; 3600 by default.', example: 3600 }),
    scope: z.string().meta({ description: 'Space-separated granted scopes.' }),
    expires_at: IsoDateTime,
  })
  .meta({ id: 'AccessToken' });

// Permissive for the same reason as TokenRequest.
const RevocationRequest = z
  .object({
    token: z.string().optional().meta({ description: 'Required: the access token to revoke.' }),
    token_type_hint: z.string().optional().meta({
      description:
        'Optional (RFC 7009 §2.1). Sigil issues access tokens only, so the hint is accepted and ignored.',
    }),
    client_id: z.string().optional().meta({ description: 'Only when HTTP Basic is not used.' }),
    client_secret: z.string().optional().meta({ description: 'Only when HTTP Basic is not used.' }),
  })
  .meta({ id: 'RevocationRequest' });

/** The client's credentials, in either request. */
type ClientAuthenticationFields = Pick<z.infer<typeof TokenRequest>, 'client_id' | 'client_secret'>;

export const oauthTokenRoutes: FastifyPluginAsyncZod<AppDependencies> = async (app, deps) => {
  // Registered inside this plugin: the form parser applies to the token endpoint's scope only.
  await app.register(formbody);

  app.addHook('onRequest', async (_request, reply) => {
    // RFC 6749 §5.1: token responses must not be cached.
    reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
  });
  // Guessing secrets is throttled per source address, before any secret is checked. Both endpoints check
  // secrets, so they share one allowance: revocation is no second door for guessing.
  app.addHook(
    'onRequest',
    createAddressThrottle(deps, {
      name: 'token',
      limit: deps.config.api.tokenRatePerMinute,
      what: 'token and revocation requests',
    }),
  );

  app.post(
    '/oauth/token',
    {
      schema: {
        operationId: 'requestAccessToken',
        tags: ['oauth'],
        summary: 'Obtain an access token (OAuth 2.0 client credentials)',
        description:
          'Authenticate with HTTP Basic (client_id as user name, client_secret as password, each ' +
          'form-URL-encoded; preferred) or with the client_id and client_secret form fields, not both.',
        security: [],
        consumes: [FORM_CONTENT_TYPE],
        body: TokenRequest,
        response: { 200: AccessTokenResponse, ...ERROR_RESPONSES },
      },
      preValidation: formBodyOnly,
    },
    async (request) => {
      const credentials = clientCredentials(request, request.body);
      const grantType = request.body.grant_type;
      if (grantType === undefined || grantType === '') {
        throw new InvalidRequest('grant_type is required; use grant_type=client_credentials.');
      }
      if (grantType !== 'client_credentials') {
        throw new InvalidRequest(
          `Unsupported grant_type "${grantType}"; only client_credentials is supported.`,
          [],
          'unsupported_grant_type',
        );
      }
      return withBasicChallenge(credentials, () =>
        issueAccessToken(request.services, {
          clientId: credentials.clientId,
          clientSecret: credentials.clientSecret,
          requestedScope: request.body.scope,
          ttlSeconds: deps.config.api.accessTokenTtlSeconds,
          sourceAddress: request.ip,
        }),
      );
    },
  );

  app.post(
    '/oauth/revoke',
    {
      schema: {
        operationId: 'revokeAccessToken',
        tags: ['oauth'],
        summary: 'Revoke an access token (RFC 7009)',
        description:
          'An addition to the specification. The client authenticates as at POST /oauth/token. Answers 200 ' +
          'with an empty body once the token no longer works, and also for a token that is unknown, expired, ' +
          'already revoked or not this client’s (that one stays untouched): the answer never tells whether a ' +
          'token exists. Shares the token endpoint’s per-address rate limit.',
        security: [],
        consumes: [FORM_CONTENT_TYPE],
        body: RevocationRequest,
        response: {
          200: z.null().describe('Revoked, or nothing of this client’s to revoke; empty body'),
          ...ERROR_RESPONSES,
        },
      },
      preValidation: formBodyOnly,
    },
    async (request, reply) => {
      const credentials = clientCredentials(request, request.body);
      await withBasicChallenge(credentials, () =>
        revokeAccessToken(request.services, {
          clientId: credentials.clientId,
          clientSecret: credentials.clientSecret,
          token: request.body.token ?? '',
          sourceAddress: request.ip,
        }),
      );
      // RFC 7009 §2.2: the status is the whole answer; the body stays empty (not the JSON `null`, which the
      // typed reply would insist on).
      return (reply as FastifyReply).code(200).send();
    },
  );
};

/** Both endpoints take form bodies only, each parameter once (RFC 6749 §3.2; RFC 7009 §2.1). */
const formBodyOnly: preValidationAsyncHookHandler = async (request) => {
  const contentType = request.headers['content-type'];
  if (request.body === undefined || request.body === null) {
    request.body = {};
  } else if (!contentType?.toLowerCase().startsWith(FORM_CONTENT_TYPE)) {
    throw new InvalidRequest(`The request body must be ${FORM_CONTENT_TYPE}.`);
  }
  // The form parser turns repeated parameters into arrays. Parameters neither endpoint knows are ignored
  // (RFC 6749 §3.2), repeated or not; a known one given twice is refused.
  const body = request.body as Record<string, unknown>;
  for (const name of Object.keys(body)) if (!FORM_PARAMETERS.has(name)) delete body[name];
  const repeated = Object.entries(body)
    .filter(([, value]) => Array.isArray(value))
    .map(([name]) => name);
  if (repeated.length > 0) {
    throw new InvalidRequest(
      `Parameter ${repeated.join(', ')} must be given only once.`,
      repeated.map((name) => ({ field: `body.${name}`, message: 'given more than once' })),
    );
  }
};

/** Every parameter /oauth/token and /oauth/revoke read. */
const FORM_PARAMETERS = new Set([
  'grant_type',
  'scope',
  'client_id',
  'client_secret',
  'token',
  'token_type_hint',
]);

/** RFC 6749 §5.2: a client that tried HTTP Basic gets the Basic challenge with its 401. */
async function withBasicChallenge<T>(credentials: ClientCredentials, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (credentials.basic && error instanceof AppError && error.status === 401) {
      throw new Unauthorized(error.message, error.code, BASIC_CHALLENGE);
    }
    throw error;
  }
}

interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  /** True when they came from HTTP Basic. */
  basic: boolean;
}

/** The client's credentials from exactly one method: HTTP Basic or the form fields. */
function clientCredentials(request: FastifyRequest, body: ClientAuthenticationFields): ClientCredentials {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) {
    const [scheme = '', encoded = '', ...rest] = authorization.trim().split(/\s+/);
    if (scheme.toLowerCase() !== 'basic') {
      throw new Unauthorized(
        `Unsupported client authentication scheme "${scheme}"; use HTTP Basic or the client_id and client_secret form fields.`,
        'invalid_client',
        BASIC_CHALLENGE,
      );
    }
    const basic = rest.length === 0 ? decodeBasic(encoded) : undefined;
    if (!basic) {
      throw new InvalidRequest(
        'The Authorization header is not valid HTTP Basic credentials: expected base64 of ' +
          '"client_id:client_secret", each form-URL-encoded.',
      );
    }
    if (body.client_secret !== undefined) {
      throw new InvalidRequest(
        'Use one client authentication method: HTTP Basic or the client_id and client_secret form fields, not both.',
      );
    }
    // A client_id repeated in the form is tolerated, but only when it names the same client.
    if (body.client_id !== undefined && body.client_id !== basic.clientId) {
      throw new InvalidRequest('The client_id form field does not match the HTTP Basic user name.');
    }
    return { ...basic, basic: true };
  }
  if (!body.client_id && !body.client_secret) {
    throw new InvalidRequest(
      'Client authentication is required: HTTP Basic (preferred) or the client_id and client_secret form fields.',
    );
  }
  if (!body.client_id) throw new InvalidRequest('client_id is required with client_secret.');
  if (!body.client_secret) throw new InvalidRequest('client_secret is required with client_id.');
  return { clientId: body.client_id, clientSecret: body.client_secret, basic: false };
}

/** RFC 6749 §2.3.1: user name and password are form-URL-encoded before Basic encoding. */
function decodeBasic(encoded: string): { clientId: string; clientSecret: string } | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    const clientId = formDecode(decoded.slice(0, colon));
    const clientSecret = formDecode(decoded.slice(colon + 1));
    return clientId && clientSecret ? { clientId, clientSecret } : undefined;
  } catch {
    return undefined;
  }
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replaceAll('+', ' '));
}

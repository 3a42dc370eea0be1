// The bearer-token check of every /api/v1 route, as an onRequest hook. The order of the checks keeps
// information from callers that have not earned it: first the token (401), then the organization's standing
// (403 when suspended or deleted) and its API flag and plan (403), then the client's IP allowlist (403), and only then the route's scope (403):
// a scope the key's last changer no longer holds is suspended, with a message that says so (issue 30).
// The scope is the route's `config.scope`; a route without one needs only a valid token.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config/config.ts';
import type { Orm } from '../../db/orm.ts';
import { prepared, runPrepared } from '../../db/prepared.ts';
import { type CredentialChanger, suspendedScopes } from '../../domain/credential-permissions.ts';
import { isScope } from '../../domain/scopes.ts';
import { permissionsOf } from '../../services/accounts/sessions.ts';
import { Forbidden, Unauthorized } from '../../services/errors.ts';
import { apiAccessRefusal } from '../../services/oauth-clients/issue-access-token.ts';
import { organizationRefusal } from '../../services/organizations/organization-standing.ts';
import { allowlistRefusal } from '../../services/security/ip-allowlist.ts';
import { sha256Hex } from '../../services/security/secrets.ts';

export interface BearerAuthDependencies {
  orm: Orm;
  /** Not read yet: the client address comes from `request.ip`, which honours `api.trustedProxies`. */
  config: Pick<Config, 'api'>;
}

// RFC 6750 §2.1: b64token.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const REALM = 'Bearer realm="sigil"';

/** The token with its client, organization and plan, in one statement run on every /api/v1 request. */
const TOKEN_CHECK = prepared(
  'bearer_token_check',
  `select t.scopes, c.scopes as client_scopes, t.expires_at, t.oauth_client_id, t.organization_id,
          c.client_id, c.ip_allowlist, o.api_enabled, o.plan_name, p.api_access,
          o.name as organization_name, o.status as organization_status,
          o.deleted_at as organization_deleted_at,
          p.rate_limit_per_minute as plan_rate, p.upload_rate_limit_per_minute as plan_upload_rate,
          o.rate_limit_per_minute as org_rate, o.upload_rate_limit_per_minute as org_upload_rate,
          c.changed_by_user_id, u.status as changer_status, r.built_in as changer_built_in,
          r.permissions as changer_permissions
     from oauth_access_token t
     join oauth_client c on c.id = t.oauth_client_id
     join organization o on o.id = t.organization_id
     left join plan p on p.name = o.plan_name
     left join app_user u on u.id = c.changed_by_user_id
     left join role r on r.id = u.role_id
    where t.token_hash = ? and t.revoked_at is null`,
);

interface TokenRow {
  scopes: string[];
  /** The client's allowed scopes now: a token opens only what its client still allows. */
  client_scopes: string[];
  expires_at: Date | string;
  oauth_client_id: string;
  organization_id: string;
  client_id: string;
  ip_allowlist: string[];
  api_enabled: boolean;
  plan_name: string;
  organization_name: string;
  organization_status: string;
  organization_deleted_at: Date | string | null;
  api_access: boolean | null;
  plan_rate: number | null;
  plan_upload_rate: number | null;
  org_rate: number | null;
  org_upload_rate: number | null;
  /** The user who last changed the key (null: the operator CLI), their status and role now. */
  changed_by_user_id: string | null;
  changer_status: string | null;
  changer_built_in: string | null;
  changer_permissions: string[] | null;
}

export function createBearerAuth(deps: BearerAuthDependencies) {
  return async function bearerAuth(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const authorization = request.headers.authorization;
    if (authorization === undefined || authorization.trim() === '') {
      throw new Unauthorized(
        'Missing access token: send Authorization: Bearer <access token> (obtain one from POST /oauth/token).',
        'unauthorized',
        { 'WWW-Authenticate': REALM },
      );
    }
    const token = BEARER.exec(authorization)?.[1];
    if (!token) {
      // RFC 6750 §3: no error attribute when the request carried no bearer token at all.
      const bearerGiven = /^bearer\b/i.test(authorization.trim());
      throw new Unauthorized('The Authorization header must be "Bearer <access token>".', 'unauthorized', {
        'WWW-Authenticate': bearerGiven ? invalidToken('malformed access token') : REALM,
      });
    }

    const [row] = await runPrepared<TokenRow>(deps.orm.em, TOKEN_CHECK, [sha256Hex(token)]);
    // A revoked token (by RFC 7009, or with its secret) is refused exactly like one that never existed.
    if (!row) {
      throw new Unauthorized('The access token is not valid.', 'unauthorized', {
        'WWW-Authenticate': invalidToken('unknown access token'),
      });
    }
    if (new Date(row.expires_at).getTime() <= Date.now()) {
      throw new Unauthorized(
        'The access token has expired; obtain a new one from POST /oauth/token.',
        'unauthorized',
        { 'WWW-Authenticate': invalidToken('the access token expired') },
      );
    }

    // Authenticated: from here on the request is the client's, so the request statistics count the
    // refusals below (API off, address, scope) against it. No route handler runs when one is thrown.
    // The scopes granted with the token that the client still allows: a scope taken from the client (PUT
    // /api/api-keys/{id}) stops opening its routes at once, not when the token expires.
    const granted = row.scopes.filter(isScope).filter((scope) => row.client_scopes.includes(scope));
    // …and that the user who last changed the key still holds (issue 30): a scope whose permissions their role
    // lost, or every scope once they are deactivated or deleted, is suspended until someone who holds it saves
    // the key. A key the operator made (no changer) is not bounded by anyone's role.
    const suspended = suspendedScopes(granted, changerOf(row));
    const scopes = granted.filter((scope) => !suspended.some((suspension) => suspension.item === scope));
    request.principal = {
      organizationId: row.organization_id,
      oauthClientId: row.oauth_client_id,
      clientId: row.client_id,
      scopes,
      changedByUserId: row.changed_by_user_id,
      // Read with the token, so a changed plan or override applies from the next request (no cache).
      rateLimitSources: {
        plan: { ratePerMinute: row.plan_rate, uploadRatePerMinute: row.plan_upload_rate },
        organization: { ratePerMinute: row.org_rate, uploadRatePerMinute: row.org_upload_rate },
      },
    };

    // A token of a suspended or deleted organization stops working at once (docs/backoffice.md).
    const standing = organizationRefusal(
      {
        id: row.organization_id,
        name: row.organization_name,
        status: row.organization_status,
        deletedAt: row.organization_deleted_at ? new Date(row.organization_deleted_at) : null,
      },
      'use the API',
    );
    if (standing) throw standing;

    const refusal = apiAccessRefusal(
      { apiEnabled: row.api_enabled, planName: row.plan_name },
      row.api_access ?? false,
    );
    if (refusal) throw refusal;

    const notAllowed = allowlistRefusal(row.ip_allowlist, request.ip, row.client_id);
    if (notAllowed) throw new Forbidden(notAllowed);

    const required = request.routeOptions.config.scope;
    const suspension = suspended.find((candidate) => candidate.item === required);
    if (required && suspension) {
      throw new Forbidden(
        `This token's scope ${required}, required by ${request.method} ${routePath(request)}, is suspended: ` +
          (suspension.reason === 'user_inactive'
            ? 'the user who last changed its API key is deactivated or deleted.'
            : `the user who last changed its API key no longer holds ${suspension.lacking.join(', ')}.`) +
          ' Someone who holds what the scope needs must save the key again (Integrations, Edit).',
        [
          {
            field: 'scope',
            scope: required,
            suspended: true,
            reason: suspension.reason,
            permissions: suspension.lacking,
            message: `scope ${required} is suspended`,
          },
        ],
      );
    }
    if (required && !scopes.includes(required)) {
      throw new Forbidden(
        `This token lacks the scope ${required} required by ${request.method} ${routePath(request)}.`,
        [{ field: 'scope', scope: required, message: `scope ${required} is required` }],
      );
    }
  };
}

/** The key's last changer as the row read them; null: the operator made or last changed the key. */
function changerOf(row: TokenRow): CredentialChanger | null {
  if (row.changed_by_user_id === null) return null;
  return {
    // A user id that finds no user (no foreign key) reads as inactive.
    active: row.changer_status === 'active',
    permissions: permissionsOf({ builtIn: row.changer_built_in, permissions: row.changer_permissions ?? [] }),
  };
}

function invalidToken(description: string): string {
  return `${REALM}, error="invalid_token", error_description="${description}"`;
}

/** The route as the specification writes it: `/api/v1/envelopes/{id}/send`. */
function routePath(request: FastifyRequest): string {
  const url = request.routeOptions.url ?? request.url.split('?')[0] ?? '';
  return url.replace(/:(\w+)/g, '{$1}');
}

// Who is calling the public API: set on the request by the bearer-token check, read by every /api/v1 route.
import type { Scope } from '../../domain/scopes.ts';
import type { LimitSource } from '../../services/usage/rate-limit-policy.ts';

export interface ApiPrincipal {
  organizationId: string;
  /** oauth_client.id (uuid) */
  oauthClientId: string;
  /** The public client_id. */
  clientId: string;
  scopes: Scope[];
  /**
   * The user who created or last changed the client's API key (null: the operator CLI): what the client saves
   * (a webhook endpoint) answers to them as the key does.
   */
  changedByUserId?: string | null;
  /**
   * The plan's and the organization's per-minute limits as the bearer check read them with the token (the rate
   * limiter resolves them; absent: it reads them itself).
   */
  rateLimitSources?: { plan: LimitSource; organization: LimitSource };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the bearer-token check on /api/v1 routes; undefined elsewhere. */
    principal?: ApiPrincipal;
  }
  interface FastifyContextConfig {
    /** The OAuth scope a /api/v1 route requires. */
    scope?: Scope;
    /** Counts against the lower rate limit for uploads and other heavy operations. */
    heavy?: boolean;
    /** Honours the Idempotency-Key header. */
    idempotent?: boolean;
  }
}

/** The principal of a request that passed the bearer-token check. */
export function principalOf(request: { principal?: ApiPrincipal }): ApiPrincipal {
  if (!request.principal) throw new Error('route registered outside the authenticated /api/v1 scope');
  return request.principal;
}

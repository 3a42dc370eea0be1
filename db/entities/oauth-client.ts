// OAuth 2.0 clients of the public API, their (at most two active) expiring secrets and the access tokens
// issued to them.
import { defineEntity, p } from '@mikro-orm/core';
import { createdAtColumn, tenantKeys, uuidKey } from './columns.ts';

export const OAuthClientSchema = defineEntity({
  name: 'OAuthClient',
  tableName: 'oauth_client',
  properties: {
    ...tenantKeys(),
    name: p.string(),
    clientId: p.string().unique(),
    scopes: p.array(),
    ipAllowlist: p.array(),
    /**
     * The user who created or last changed the key; the key's scopes work only while that user holds their
     * permissions (domain/credential-permissions.ts). Null: made by the operator CLI (migration 0032).
     */
    changedByUserId: p.uuid().nullable(),
    lastUsedAt: p.datetime().nullable(),
    requestCount: p.bigint('number').default(0),
    errorCount: p.bigint('number').default(0),
    ...createdAtColumn(),
  },
});
export class OAuthClient extends OAuthClientSchema.class {}
OAuthClientSchema.setClass(OAuthClient);

export const OAuthClientSecretSchema = defineEntity({
  name: 'OAuthClientSecret',
  tableName: 'oauth_client_secret',
  properties: {
    ...uuidKey(),
    oauthClientId: p.uuid(),
    secretHash: p.string().hidden(),
    hint: p.string(),
    expiresAt: p.datetime(),
    ...createdAtColumn(),
    deletedAt: p.datetime().nullable(),
  },
});
export class OAuthClientSecret extends OAuthClientSecretSchema.class {}
OAuthClientSecretSchema.setClass(OAuthClientSecret);

export const OAuthAccessTokenSchema = defineEntity({
  name: 'OAuthAccessToken',
  tableName: 'oauth_access_token',
  properties: {
    tokenHash: p.string().primary(),
    oauthClientId: p.uuid(),
    /** The secret the client authenticated with; null only for tokens issued before migration 0010. */
    oauthClientSecretId: p.uuid().nullable(),
    organizationId: p.uuid(),
    scopes: p.array(),
    expiresAt: p.datetime(),
    ...createdAtColumn(),
    /** Set when the token was revoked (RFC 7009, or its secret deleted); a revoked token opens nothing. */
    revokedAt: p.datetime().nullable(),
  },
});
export class OAuthAccessToken extends OAuthAccessTokenSchema.class {}
OAuthAccessTokenSchema.setClass(OAuthAccessToken);

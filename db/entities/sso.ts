// Single sign-on with OpenID Connect (migration 0043, docs/sso.md): an organization's provider settings, the
// email domains it claims, and the sign-ins under way (one-time state, nonce and PKCE verifier).
import { defineEntity, p } from '@mikro-orm/core';
import { tenantKeys, timestampColumns, uuidKey } from './columns.ts';

export const OrganizationSsoSchema = defineEntity({
  name: 'OrganizationSso',
  tableName: 'organization_sso',
  properties: {
    ...tenantKeys(),
    /** The issuer URL; its metadata is discovered (/.well-known/openid-configuration). */
    issuer: p.string(),
    clientId: p.string(),
    /** AES-256-GCM with the secrets key (config/secrets-encryption.ts); never answered. */
    clientSecretEncrypted: p.string().hidden(),
    /** Lower-cased domains; a user signs in only with a verified address at one of them. */
    allowedDomains: p.array().default([]),
    jitEnabled: p.boolean().default(false),
    /** The role just-in-time accounts get (never `owner`); null: no just-in-time accounts. */
    jitRoleId: p.uuid().nullable(),
    ssoRequired: p.boolean().default(false),
    /** The owner who may still sign in with a password when SSO is required. */
    breakGlassUserId: p.uuid().nullable(),
    ...timestampColumns(),
  },
});
export class OrganizationSso extends OrganizationSsoSchema.class {}
OrganizationSsoSchema.setClass(OrganizationSso);

export const SsoDomainSchema = defineEntity({
  name: 'SsoDomain',
  tableName: 'sso_domain',
  properties: {
    domain: p.string().primary(),
    organizationId: p.uuid(),
  },
});
export class SsoDomain extends SsoDomainSchema.class {}
SsoDomainSchema.setClass(SsoDomain);

export const SsoSignInSchema = defineEntity({
  name: 'SsoSignIn',
  tableName: 'sso_sign_in',
  properties: {
    ...uuidKey(),
    organizationId: p.uuid(),
    /** SHA-256 of the one-time `state` (the state itself travels only through the browser). */
    stateHash: p.string(),
    nonce: p.string().hidden(),
    codeVerifier: p.string().hidden(),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    consumedAt: p.datetime().nullable(),
  },
});
export class SsoSignIn extends SsoSignInSchema.class {}
SsoSignInSchema.setClass(SsoSignIn);

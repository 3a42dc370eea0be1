// Single sign-on with OpenID Connect (docs/sso.md): an organization's provider settings as the settings page
// reads and writes them, and the two sign-in steps (start: the provider's authorization URL; callback: what the
// provider sent back to the browser).
import { z } from 'zod';
import { EmailAddress } from './account.ts';
import { IsoDateTime, safeText, uuidOf } from './common.ts';

/** A lower-cased DNS name such as `example.com` (no scheme, no `@`). */
export const SsoDomain = z
  .string()
  .trim()
  .toLowerCase()
  .max(253, 'a domain must be at most 253 characters')
  .regex(
    /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
    'a domain is a name such as example.com',
  );

export const SsoSettings = z.object({
  /** False until an administrator saves a provider; the other fields are then empty. */
  configured: z.boolean(),
  issuer: z.string(),
  clientId: z.string(),
  /** The client secret is write-only: only whether one is stored. */
  clientSecretSet: z.boolean(),
  allowedDomains: z.array(z.string()),
  jitEnabled: z.boolean(),
  /** The role of just-in-time accounts (never the Owner role). */
  jitRoleId: z.uuid().nullable(),
  ssoRequired: z.boolean(),
  /** The owner who may still sign in with a password while SSO is required. */
  breakGlassUserId: z.uuid().nullable(),
  /** The redirect URI to register at the provider. */
  redirectUri: z.string(),
  updatedAt: IsoDateTime.nullable(),
  /** What the page offers: the roles just-in-time accounts may get (every role but Owner). */
  roleChoices: z.array(z.object({ id: z.uuid(), name: z.string(), builtIn: z.string().nullable() })),
  /** ... and the organization's active owners, one of whom is the break-glass owner. */
  ownerChoices: z.array(z.object({ id: z.uuid(), fullName: z.string(), email: z.string() })),
});
export type SsoSettings = z.output<typeof SsoSettings>;

export const UpdateSsoSettingsRequest = z.strictObject({
  /** The issuer URL; its metadata is discovered when saving (/.well-known/openid-configuration). */
  issuer: safeText()
    .trim()
    .min(1)
    .max(500)
    .pipe(z.url({ protocol: /^https?$/, error: 'issuer must be an http(s) URL' })),
  clientId: safeText().trim().min(1, 'clientId is required').max(255),
  /** Required the first time; absent: keep the stored one. */
  clientSecret: safeText().min(1).max(1000).optional(),
  allowedDomains: z
    .array(SsoDomain)
    .min(1, 'name at least one allowed email domain')
    .max(20, 'at most 20 domains'),
  jitEnabled: z.boolean(),
  jitRoleId: uuidOf('jitRoleId').nullable(),
  ssoRequired: z.boolean(),
  breakGlassUserId: uuidOf('breakGlassUserId').nullable(),
});
export type UpdateSsoSettingsRequest = z.output<typeof UpdateSsoSettingsRequest>;

export const SsoStartRequest = z.strictObject({ email: EmailAddress });
export const SsoStart = z.object({
  /** Where to send the browser: the provider's authorization endpoint with this sign-in's state. */
  authorizationUrl: z.string(),
});

/** What the provider appended to the redirect URI, as the callback page forwards it. */
export const SsoCallbackRequest = z.strictObject({
  state: safeText().min(1).max(200),
  code: safeText().min(1).max(2000).optional(),
  iss: safeText().min(1).max(500).optional(),
  error: safeText().min(1).max(200).optional(),
  error_description: safeText().max(1000).optional(),
});
export type SsoCallbackRequest = z.output<typeof SsoCallbackRequest>;

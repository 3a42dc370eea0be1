// POST /api/auth/sso/start (docs/sso.md, "Signing in"): the organization whose allowed domains hold the
// address's domain, and the URL of its provider's authorization endpoint for an authorization-code request with
// PKCE (S256). Its one-time `state` (stored as SHA-256), `nonce` and code verifier are kept server-side for
// SSO_SIGN_IN_LIFETIME_MS; the callback consumes them once.
import { randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { decryptSecret } from '../../config/secrets-encryption.ts';
import { OrganizationSso, SsoDomain, SsoSignIn } from '../../db/entities/index.ts';
import { secretsKeyOf } from '../accounts/mfa-totp.ts';
import { nowOf } from '../accounts/sessions.ts';
import type { ServiceContext } from '../context.ts';
import { AppError } from '../errors.ts';
import { randomToken, sha256Hex } from '../security/secrets.ts';
import { discoverProvider, ssoRedirectUri } from './sso-provider.ts';

/** How long a started sign-in may take at the provider before its state is refused. */
export const SSO_SIGN_IN_LIFETIME_MS = 10 * 60 * 1000;
/** Expired sign-ins are deleted this long after they expired (when another sign-in starts). */
const SSO_SIGN_IN_KEPT_MS = 60 * 60 * 1000;

type SsoContext = Pick<ServiceContext, 'em' | 'config' | 'clock'>;

export async function startSsoSignIn(
  ctx: SsoContext,
  input: { email: string },
): Promise<{ authorizationUrl: string }> {
  const email = input.email.toLowerCase();
  const domain = email.slice(email.lastIndexOf('@') + 1);
  const claimed = await ctx.em.findOne(SsoDomain, { domain });
  const sso = claimed
    ? await ctx.em.findOne(OrganizationSso, { organizationId: claimed.organizationId })
    : null;
  if (!sso) {
    throw new AppError(
      404,
      'sso_not_configured',
      `No organization signs in with single sign-on at ${domain}: sign in with your email and password.`,
    );
  }
  const provider = await discoverProvider(
    ctx.config,
    {
      issuer: sso.issuer,
      clientId: sso.clientId,
      clientSecret: decryptSecret(secretsKeyOf(ctx.config), sso.clientSecretEncrypted),
    },
    'sign-in',
  );
  const state = randomToken(32);
  const nonce = randomToken(32);
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const authorizationUrl = oidc.buildAuthorizationUrl(provider, {
    redirect_uri: ssoRedirectUri(ctx.config),
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
    login_hint: email,
  });
  const now = nowOf(ctx);
  await ctx.em.nativeDelete(SsoSignIn, { expiresAt: { $lt: new Date(now.getTime() - SSO_SIGN_IN_KEPT_MS) } });
  ctx.em.create(SsoSignIn, {
    id: randomUUID(),
    organizationId: sso.organizationId,
    stateHash: sha256Hex(state),
    nonce,
    codeVerifier,
    createdAt: now,
    expiresAt: new Date(now.getTime() + SSO_SIGN_IN_LIFETIME_MS),
    consumedAt: null,
  });
  await ctx.em.flush();
  return { authorizationUrl: authorizationUrl.href };
}

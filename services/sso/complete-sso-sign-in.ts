// POST /api/auth/sso/callback (docs/sso.md, "Signing in"): what the provider sent back to the browser. The
// `state` is consumed once (unknown, used or expired: 400 `sso_state_invalid`, nothing else happens); the code is
// exchanged with the stored PKCE verifier and openid-client checks the ID token (issuer, audience, signature,
// expiry, nonce). Then only a verified address (`email_verified` true) at one of the organization's allowed
// domains is accepted: its active user of THIS organization signs in (Sigil's own second step still applies),
// or, with just-in-time accounts on and none there, an account is made with the default role (within the plan's
// users). Every other outcome is refused with a code of its own and recorded in the security log.
import { randomUUID } from 'node:crypto';
import * as oidc from 'openid-client';
import { decryptSecret } from '../../config/secrets-encryption.ts';
import {
  AppUser,
  Organization,
  OrganizationSso,
  Role,
  SsoSignIn,
  type UserSession,
} from '../../db/entities/index.ts';
import { EmailAddress } from '../../domain/account.ts';
import type { SsoCallbackRequest } from '../../domain/sso.ts';
import { textProblem } from '../../domain/text.ts';
import { findUserByEmail, type SignedIn, signIn } from '../accounts/account-users.ts';
import { secretsKeyOf } from '../accounts/mfa-totp.ts';
import { recordSecurityEvent } from '../accounts/security-log.ts';
import { nowOf } from '../accounts/sessions.ts';
import { lockOrganization, requirePlanRoom } from '../administration/administration.ts';
import type { ServiceContext } from '../context.ts';
import { AppError, InvalidRequest } from '../errors.ts';
import { sha256Hex } from '../security/secrets.ts';
import { discoverProvider, ssoRedirectUri } from './sso-provider.ts';

type SsoContext = Pick<ServiceContext, 'em' | 'config' | 'clock'>;
/** What the sign-in reads of the person: the verified ID token's claims, with UserInfo's email when it had none. */
interface SsoClaims {
  sub: string;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
}

export interface SsoRequestMeta {
  ipAddress: string;
  userAgent: string | null;
  currentSession: UserSession | null;
}

/** Why a sign-in through the provider was refused: the answer's code, status and words. */
const REFUSALS = {
  provider_error: [401, 'sso_provider_error', 'Your identity provider did not sign you in.'],
  token_rejected: [
    401,
    'sso_token_rejected',
    "Your identity provider's answer could not be verified (it may have expired): start again.",
  ],
  no_email: [403, 'sso_email_missing', 'Your identity provider did not give your email address.'],
  email_not_verified: [
    403,
    'sso_email_not_verified',
    'Your identity provider has not verified your email address, so it cannot sign you in here.',
  ],
  domain_not_allowed: [
    403,
    'sso_domain_not_allowed',
    "Your email address is not at one of your organization's single sign-on domains.",
  ],
  other_organization: [
    403,
    'sso_no_account',
    'Your email address belongs to an account of another organization: sign in there with your password.',
  ],
  no_account: [
    403,
    'sso_no_account',
    'There is no account for your email address in this organization: ask an administrator to invite you.',
  ],
  deactivated: [403, 'sso_account_disabled', 'Your account is deactivated: ask an administrator.'],
  invitation_not_accepted: [
    403,
    'sso_account_disabled',
    'Accept the invitation emailed to you before signing in with single sign-on.',
  ],
} as const satisfies Record<string, readonly [number, string, string]>;
type RefusalReason = keyof typeof REFUSALS;

const invalidState = () =>
  new InvalidRequest(
    'This single sign-on attempt is unknown, already used or expired: start again with “Sign in with SSO”.',
    [{ field: 'body.state', message: 'unknown, used or expired' }],
    'sso_state_invalid',
  );

export async function completeSsoSignIn(
  ctx: SsoContext,
  input: SsoCallbackRequest,
  meta: SsoRequestMeta,
): Promise<SignedIn> {
  const now = nowOf(ctx);
  const stateHash = sha256Hex(input.state);
  // Consumed here, at once and only once: a replayed or forged state finds nothing to consume.
  const consumed = await ctx.em.nativeUpdate(
    SsoSignIn,
    { stateHash, consumedAt: null, expiresAt: { $gt: now } },
    { consumedAt: now },
  );
  if (consumed !== 1) throw invalidState();
  const attempt = await ctx.em.findOneOrFail(SsoSignIn, { stateHash });
  const sso = await ctx.em.findOne(OrganizationSso, { organizationId: attempt.organizationId });
  if (!sso) throw invalidState();

  const refuse = async (reason: RefusalReason, who: { email?: string; user?: AppUser | null } = {}) => {
    recordSecurityEvent(ctx, {
      organizationId: sso.organizationId,
      type: 'user.sign_in_failed',
      subjectUserId: who.user?.organizationId === sso.organizationId ? who.user.id : null,
      subjectEmail: who.email ?? null,
      ipAddress: meta.ipAddress,
      details: { method: 'sso', reason },
    });
    await ctx.em.flush();
    const [status, code, message] = REFUSALS[reason];
    return new AppError(status, code, message);
  };

  if (input.error || !input.code) throw await refuse('provider_error');
  const provider = await discoverProvider(
    ctx.config,
    {
      issuer: sso.issuer,
      clientId: sso.clientId,
      clientSecret: decryptSecret(secretsKeyOf(ctx.config), sso.clientSecretEncrypted),
    },
    'sign-in',
    // The service's clock (tests move it) is the one the ID token's expiry is judged by too.
    Math.round((now.getTime() - Date.now()) / 1000),
  );
  const callback = new URL(ssoRedirectUri(ctx.config));
  callback.searchParams.set('code', input.code);
  callback.searchParams.set('state', input.state);
  if (input.iss) callback.searchParams.set('iss', input.iss);
  let claims: SsoClaims | undefined;
  try {
    const tokens = await oidc.authorizationCodeGrant(provider, callback, {
      pkceCodeVerifier: attempt.codeVerifier,
      expectedState: input.state,
      expectedNonce: attempt.nonce,
      idTokenExpected: true,
    });
    const idToken = tokens.claims();
    if (!idToken) throw new Error('no ID token');
    claims = idToken;
    if (idToken.email === undefined && tokens.access_token) {
      // Providers that conform the ID token to the scope's minimum (oidc-provider's default) give the email at
      // the UserInfo endpoint: read there, for the ID token's subject only.
      const info = await oidc.fetchUserInfo(provider, tokens.access_token, idToken.sub);
      claims = {
        ...idToken,
        email: info.email,
        email_verified: info.email_verified,
        name: info.name ?? idToken.name,
      };
    }
  } catch {
    // The reason (a wrong signature, audience or nonce, an expired token) is openid-client's; none is a secret,
    // but the client is told only to start again.
    claims = undefined;
  }
  if (!claims) throw await refuse('token_rejected');

  const parsedEmail = EmailAddress.safeParse(claims.email);
  if (!parsedEmail.success) throw await refuse('no_email');
  const email = parsedEmail.data;
  if (claims.email_verified !== true) throw await refuse('email_not_verified', { email });
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (!sso.allowedDomains.includes(domain)) throw await refuse('domain_not_allowed', { email });

  const organization = await ctx.em.findOneOrFail(Organization, { id: sso.organizationId });
  let user = await findUserByEmail(ctx, email);
  if (user && user.organizationId !== sso.organizationId) throw await refuse('other_organization', { email });
  if (user?.status === 'deactivated') throw await refuse('deactivated', { email, user });
  if (user?.status === 'invited') throw await refuse('invitation_not_accepted', { email, user });
  let provisioned = false;
  if (!user) {
    const role = sso.jitEnabled && sso.jitRoleId ? await ctx.em.findOne(Role, { id: sso.jitRoleId }) : null;
    if (!role || role.builtIn === 'owner') throw await refuse('no_account', { email });
    user = await provisionUser(ctx, organization, role, email, claims);
    provisioned = true;
  } else if (!user.emailVerifiedAt) {
    // The provider verified the address at one of the organization's domains.
    user.emailVerifiedAt = now;
  }
  if (provisioned) {
    recordSecurityEvent(ctx, {
      organizationId: organization.id,
      type: 'user.provisioned',
      subjectUserId: user.id,
      subjectEmail: user.email,
      ipAddress: meta.ipAddress,
      details: { method: 'sso', roleId: user.roleId },
    });
  }
  return signIn(ctx, {
    user,
    organization,
    replaces: meta.currentSession,
    ipAddress: meta.ipAddress,
    userAgent: meta.userAgent,
    method: 'sso',
  });
}

/** A just-in-time account: active, verified by the provider, the default role, no password; within the plan. */
async function provisionUser(
  ctx: SsoContext,
  organization: Organization,
  role: Role,
  email: string,
  claims: SsoClaims,
): Promise<AppUser> {
  const given = typeof claims.name === 'string' ? claims.name.trim().slice(0, 200) : '';
  const name = given && !textProblem(given, 'line') ? given : email;
  return ctx.em.transactional(async (tx) => {
    await lockOrganization(tx, organization.id);
    await requirePlanRoom(tx, organization, 'users');
    const now = nowOf(ctx);
    const user = tx.create(AppUser, {
      id: randomUUID(),
      organizationId: organization.id,
      email,
      fullName: name,
      passwordHash: null,
      status: 'active',
      emailVerifiedAt: now,
      roleId: role.id,
      teamId: null,
      language: organization.defaultLanguage === 'he' ? 'he' : 'en',
      totpSecretEncrypted: null,
      totpPendingSecretEncrypted: null,
      totpEnabledAt: null,
      invitedAt: null,
      invitedBy: null,
      lastLoginAt: null,
      deletedAt: null,
      createdAt: now,
      updatedAt: now,
    });
    await tx.flush();
    return user;
  });
}

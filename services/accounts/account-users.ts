// What the account use cases share: finding a user by email address, the password rule beyond its length,
// creating an organization's first user (registration, the development seed), and the end of a successful
// sign-in (a login, an accepted invitation): a new session in the state the user and the organization call
// for, the cookie's token, `last_login_at` and the security log.
import { randomUUID } from 'node:crypto';
import { AppUser, type Organization, Passkey, Role, type UserSession } from '../../db/entities/index.ts';
import type { LoginResult } from '../../domain/account.ts';
import type { DataContext } from '../context.ts';
import { InvalidRequest } from '../errors.ts';
import { requireActiveOrganization } from '../organizations/organization-standing.ts';
import { recordOwnEvent } from './security-log.ts';
import { nowOf, type SessionClock, type SessionState, startSession } from './sessions.ts';

/**
 * The user holding an email address (lower-cased), whatever their status but deleted; null: none. An invitation
 * made while the address had an account elsewhere (`emailHeldElsewhere`) does not hold it.
 */
export function findUserByEmail(ctx: DataContext, email: string): Promise<AppUser | null> {
  return ctx.em.findOne(AppUser, {
    email: email.toLowerCase(),
    status: { $ne: 'deleted' },
    emailHeldElsewhere: false,
  });
}

/** A password equal to the account's email address is refused (400 naming `field`, `body.password` by default). */
export function requirePasswordNotEmail(password: string, email: string, field = 'body.password'): void {
  if (password.trim().toLowerCase() === email.trim().toLowerCase()) {
    const name = field.replace(/^body\./, '');
    throw new InvalidRequest(`Invalid request: ${field}: ${name} must not be your email address`, [
      { field, message: `${name} must not be your email address` },
    ]);
  }
}

/** The organization's first user: active, with the built-in `owner` role. Added to the unit of work. */
export async function addOwner(
  ctx: DataContext & SessionClock,
  input: {
    organization: Organization;
    email: string;
    fullName: string;
    passwordHash: string;
    language: 'en' | 'he';
    emailVerified: boolean;
  },
): Promise<AppUser> {
  const owner = await ctx.em.findOneOrFail(Role, { organizationId: input.organization.id, builtIn: 'owner' });
  const now = nowOf(ctx);
  return ctx.em.create(AppUser, {
    id: randomUUID(),
    organizationId: input.organization.id,
    email: input.email.toLowerCase(),
    fullName: input.fullName,
    passwordHash: input.passwordHash,
    status: 'active',
    emailVerifiedAt: input.emailVerified ? now : null,
    roleId: owner.id,
    teamId: null,
    language: input.language,
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
}

export interface SignedIn {
  result: LoginResult;
  /** The session cookie's value (shown to the browser once, never stored). */
  token: string;
  session: UserSession;
}

/**
 * What a session starts as: the second step first when the user has a second factor (an authenticator app or
 * a passkey, `passkeys` of them), else MFA enrolment when required, else complete.
 */
export function signInState(user: AppUser, organization: Organization, passkeys = 0): SessionState {
  if (user.totpEnabledAt || passkeys > 0) return 'mfa_pending';
  if (organization.mfaRequired) return 'mfa_enrolment_required';
  return 'active';
}

/** What the sign-in answers for the state, with the second factors the user has at `mfa_required`. */
function resultOf(state: SessionState, user: AppUser, passkeys: number): LoginResult {
  if (state === 'mfa_enrolment_required') return { status: 'mfa_enrolment_required', methods: [] };
  if (state === 'active') return { status: 'signed_in', methods: [] };
  return {
    status: 'mfa_required',
    methods: [
      ...(user.totpEnabledAt ? (['totp'] as const) : []),
      ...(passkeys > 0 ? (['passkey'] as const) : []),
      'backup_code',
    ],
  };
}

/**
 * Starts the session of a user whose password (or invitation) was right: always a new token, ending the
 * session the browser had (`replaces`). A complete sign-in (`active`, or held for MFA enrolment) records
 * `last_login_at` and `user.signed_in`; one waiting for its second step records them when the code is right
 * (mfa-verify-login.ts). Flushes.
 */
export async function signIn(
  ctx: DataContext & SessionClock,
  input: {
    user: AppUser;
    organization: Organization;
    replaces: UserSession | null;
    ipAddress: string | null;
    userAgent: string | null;
    /** `sso`: the organization's identity provider (services/sso/complete-sso-sign-in.ts). */
    method: 'password' | 'invitation' | 'sso';
  },
): Promise<SignedIn> {
  const { user, organization } = input;
  // A suspended or deleted organization's users cannot sign in (403 `organization_suspended` or
  // `organization_deleted`, naming it), said only after the password or the invitation was right.
  requireActiveOrganization(organization, 'sign in');
  const passkeys = await ctx.em.count(Passkey, { userId: user.id });
  const state = signInState(user, organization, passkeys);
  if (state !== 'mfa_pending') {
    user.lastLoginAt = nowOf(ctx);
    recordOwnEvent(ctx, user, input.ipAddress, {
      type: 'user.signed_in',
      subjectEmail: user.email,
      details: { method: input.method, ...(state === 'active' ? {} : { state }) },
    });
  }
  const { token, session } = await startSession(ctx, {
    user,
    state,
    ipAddress: input.ipAddress,
    userAgent: input.userAgent,
    replaces: input.replaces,
  });
  return { result: resultOf(state, user, passkeys), token, session };
}

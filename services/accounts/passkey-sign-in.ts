import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  type PublicKeyCredentialRequestOptionsJSON,
  verifyAuthenticationResponse,
} from '@simplewebauthn/server';
import { Passkey } from '../../db/entities/index.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { completeSecondStep } from './mfa-verify-login.ts';
import {
  credentialDescriptors,
  fromBase64Url,
  passkeysOf,
  relyingPartyOf,
  storeChallenge,
  takeChallenge,
  WEBAUTHN_CHALLENGE_LIFETIME_MS,
} from './passkey-webauthn.ts';
import { nowOf, type SessionPrincipal, type StartedSession } from './sessions.ts';

export async function passkeySignInOptions(
  ctx: ServiceContext,
  principal: SessionPrincipal,
): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const passkeys = await passkeysOf(ctx, principal.user.id);
  if (passkeys.length === 0) {
    throw new Conflict(
      'You have no passkey: use your authenticator app or a backup code.',
      [],
      'no_passkeys',
    );
  }
  const options = await generateAuthenticationOptions({
    rpID: relyingPartyOf(ctx.config).rpID,
    allowCredentials: credentialDescriptors(passkeys),
    userVerification: 'preferred',
    timeout: WEBAUTHN_CHALLENGE_LIFETIME_MS,
  });
  await storeChallenge(ctx, principal.session.id, 'sign_in', options.challenge);
  return options;
}

export interface PasskeySignInInput {
  principal: SessionPrincipal;
  response: AuthenticationResponseJSON;
  ipAddress: string | null;
  userAgent: string | null;
}

/** Whether the assertion is right for the challenge and one of the user's passkeys; updates its counter. */
async function acceptAssertion(
  ctx: ServiceContext,
  userId: string,
  challenge: string | null,
  response: AuthenticationResponseJSON,
): Promise<boolean> {
  if (!challenge) return false;
  const passkey = await ctx.em.findOne(Passkey, { credentialId: response.id, userId });
  if (!passkey) return false;
  const { rpID, origin } = relyingPartyOf(ctx.config);
  try {
    const { verified, authenticationInfo } = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
      credential: {
        id: passkey.credentialId,
        publicKey: fromBase64Url(passkey.publicKey),
        counter: Number(passkey.counter),
        transports: passkey.transports as never,
      },
    });
    if (!verified) return false;
    // The library refuses a counter that did not grow (when either is above 0): a cloned authenticator.
    passkey.counter = authenticationInfo.newCounter;
    passkey.lastUsedAt = nowOf(ctx);
    return true;
  } catch {
    return false;
  }
}

export function signInWithPasskey(ctx: ServiceContext, input: PasskeySignInInput): Promise<StartedSession> {
  return completeSecondStep(ctx, input, {
    method: 'passkey',
    accept: async (txCtx, user, session) => {
      const challenge = await takeChallenge(txCtx, session, 'sign_in');
      // The entity still holds what was loaded: the conditional update above already cleared the column.
      session.webauthnChallenge = null;
      session.webauthnChallengeExpiresAt = null;
      return acceptAssertion(txCtx, user.id, challenge, input.response);
    },
    refusal: 'That passkey answer is not right (or was used already): ask for new options and try again.',
  });
}

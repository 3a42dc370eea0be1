// Passkeys in the browser (docs/accounts.md, "Passkeys"): the server's WebAuthn options (JSON, binary fields in
// base64url) go to @simplewebauthn/browser — the browser half of the library the server verifies with — which
// turns them into navigator.credentials.create()/get() calls and the credential back into the JSON the server
// takes; and what a failure on the browser's side means to the person (PasskeyAlert.svelte says it).
import {
  browserSupportsWebAuthn,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  startAuthentication,
  startRegistration,
  WebAuthnError,
} from '@simplewebauthn/browser';
import type { z } from 'zod';
import type * as account from '../../../../domain/account.ts';

export type PasskeyView = z.output<typeof account.PasskeyView>;
type CreationOptions = z.output<typeof account.PasskeyRegistrationOptions>;
type RequestOptions = z.output<typeof account.PasskeyAuthenticationOptions>;
/**
 * The credential as the server's routes take it. The library's RegistrationResponseJSON and
 * AuthenticationResponseJSON are these shapes (the server checks them, domain/account.ts); TypeScript only
 * lacks the index signature of the server’s open objects, hence the casts below.
 */
type RegistrationResponse = z.input<typeof account.PasskeyRegistrationResponse>;
type AuthenticationResponse = z.input<typeof account.PasskeyAuthenticationResponse>;

/**
 * Why the browser's side failed: `unsupported` (no WebAuthn in this browser), `cancelled` (the person closed
 * the prompt, it timed out, or no passkey of theirs is on this device), `already_registered` (creating: this
 * authenticator holds one of the account's passkeys already), `wrong_address` (the page is not on the address
 * the server's passkeys belong to), `failed` (anything else).
 */
export type PasskeyFailure = 'unsupported' | 'cancelled' | 'already_registered' | 'wrong_address' | 'failed';

/** A failure of the browser's side of a passkey ceremony (not the server's answer). */
export class PasskeyCeremonyFailed extends Error {
  constructor(
    readonly failure: PasskeyFailure,
    /** The relying party's host name: the address passkeys work at. */
    readonly address: string,
    cause: unknown,
  ) {
    super(`passkey ceremony failed: ${failure}`, { cause });
  }
}

function failureOf(error: unknown): PasskeyFailure {
  const code = error instanceof WebAuthnError ? error.code : undefined;
  const name = error instanceof Error ? error.name : '';
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED' || name === 'InvalidStateError') {
    return 'already_registered';
  }
  // Browsers answer NotAllowedError alike for a closed prompt, a timeout and no matching passkey, on purpose.
  if (name === 'NotAllowedError' || name === 'AbortError' || code === 'ERROR_CEREMONY_ABORTED')
    return 'cancelled';
  if (code === 'ERROR_INVALID_DOMAIN' || code === 'ERROR_INVALID_RP_ID' || name === 'SecurityError') {
    return 'wrong_address';
  }
  return 'failed';
}

async function ceremony<T>(address: string, run: () => Promise<T>): Promise<T> {
  if (!browserSupportsWebAuthn()) throw new PasskeyCeremonyFailed('unsupported', address, undefined);
  try {
    return await run();
  } catch (error) {
    throw new PasskeyCeremonyFailed(failureOf(error), address, error);
  }
}

/** navigator.credentials.create() with the server's creation options: the RegistrationResponseJSON. */
export function createPasskey(options: CreationOptions): Promise<RegistrationResponse> {
  return ceremony(
    options.rp.id ?? window.location.hostname,
    async () =>
      (await startRegistration({
        optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON,
      })) as unknown as RegistrationResponse,
  );
}

/** navigator.credentials.get() with the server's request options: the AuthenticationResponseJSON. */
export function usePasskey(options: RequestOptions): Promise<AuthenticationResponse> {
  return ceremony(
    options.rpId ?? window.location.hostname,
    async () =>
      (await startAuthentication({
        optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON,
      })) as unknown as AuthenticationResponse,
  );
}

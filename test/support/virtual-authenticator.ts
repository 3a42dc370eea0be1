// A passkey for Chromium without a person: a virtual authenticator of the DevTools protocol (WebAuthn domain) on
// a page, which answers navigator.credentials.create() and get() at once, as a platform authenticator whose user
// touched it and passed its check. Its credentials can be read, taken away and given back, so a test can show
// what a browser without the passkey does. The page must be on PUBLIC_BASE_URL's origin (useAppBrowser's
// `localhost`), or the browser refuses the relying party.
import type { CDPSession, Page } from 'playwright-core';

/** A credential as WebAuthn.getCredentials answers it (and WebAuthn.addCredential takes it back). */
export interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  rpId?: string;
  privateKey: string;
  userHandle?: string;
  signCount: number;
}

export interface VirtualAuthenticator {
  credentials(): Promise<VirtualCredential[]>;
  /** Removes every credential (the passkeys are then not on this "device"); returns them. */
  takeCredentials(): Promise<VirtualCredential[]>;
  giveCredentials(credentials: VirtualCredential[]): Promise<void>;
}

export async function addVirtualAuthenticator(page: Page): Promise<VirtualAuthenticator> {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
    },
  });
  const credentials = async () =>
    (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials as VirtualCredential[];
  return {
    credentials,
    async takeCredentials() {
      const taken = await credentials();
      await cdp.send('WebAuthn.clearCredentials', { authenticatorId });
      return taken;
    },
    async giveCredentials(given) {
      for (const credential of given) {
        await cdp.send('WebAuthn.addCredential', { authenticatorId, credential });
      }
    },
  };
}

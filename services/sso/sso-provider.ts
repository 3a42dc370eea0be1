// An organization's OpenID provider as openid-client sees it (docs/sso.md): the issuer's metadata discovered
// (/.well-known/openid-configuration, its issuer checked against the configured one), the client's id and its
// secret (client_secret_basic), and the redirect URI every provider registers: `<PUBLIC_BASE_URL>/app/sso/callback`.
// Outside production an http:// issuer on any address is allowed (the tests' provider on a loopback port); in
// production the issuer must be https and resolve only to public addresses (config/outbound-targets.ts).
import * as oidc from 'openid-client';
import { privateTargetsAllowed, resolveHost, specialAddressReason } from '../../config/outbound-targets.ts';
import type { ServiceConfig } from '../context.ts';
import { AppError, InvalidRequest } from '../errors.ts';

/** The page the provider sends the browser back to (it forwards the answer to POST /api/auth/sso/callback). */
export const SSO_CALLBACK_PATH = '/app/sso/callback';

export const ssoRedirectUri = (config: Pick<ServiceConfig, 'publicBaseUrl'>): string =>
  `${config.publicBaseUrl}${SSO_CALLBACK_PATH}`;

export interface SsoProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** 400 `sso_issuer_refused` naming `body.issuer` (saving settings). */
function issuerRefused(message: string): InvalidRequest {
  return new InvalidRequest(
    `Invalid request: body.issuer: ${message}`,
    [{ field: 'body.issuer', message }],
    'sso_issuer_refused',
  );
}

/** Refuses an issuer production may not reach: not https, or resolving to a special-purpose address. */
async function checkIssuerTarget(config: Pick<ServiceConfig, 'env'>, issuer: URL): Promise<void> {
  if (privateTargetsAllowed(config.env)) return;
  if (issuer.protocol !== 'https:') throw issuerRefused('the issuer must be an https URL');
  const addresses = await resolveHost(issuer.hostname).catch(() => [] as string[]);
  if (addresses.length === 0) throw issuerRefused(`${issuer.hostname} does not resolve`);
  for (const address of addresses) {
    const reason = specialAddressReason(address);
    if (reason) throw issuerRefused(`${issuer.hostname} resolves to ${reason}`);
  }
}

/**
 * The provider's configuration, discovered now. `purpose` says who is asking: saving settings turns a failure
 * into a 400 on `body.issuer`; a sign-in into 503 `sso_provider_unavailable`.
 */
export async function discoverProvider(
  config: Pick<ServiceConfig, 'env'>,
  provider: SsoProvider,
  purpose: 'settings' | 'sign-in',
  clockSkewSeconds = 0,
): Promise<oidc.Configuration> {
  const issuer = new URL(provider.issuer);
  await checkIssuerTarget(config, issuer);
  try {
    return await oidc.discovery(
      issuer,
      provider.clientId,
      clockSkewSeconds ? { [oidc.clockSkew]: clockSkewSeconds } : undefined,
      oidc.ClientSecretBasic(provider.clientSecret),
      {
        timeout: 10,
        ...(issuer.protocol === 'http:' && privateTargetsAllowed(config.env)
          ? { execute: [oidc.allowInsecureRequests] }
          : {}),
      },
    );
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (purpose === 'settings') {
      throw issuerRefused(
        `the OpenID provider's metadata could not be discovered at this issuer (${reason})`,
      );
    }
    throw new AppError(
      503,
      'sso_provider_unavailable',
      "Your organization's single sign-on provider did not answer; try again later or ask your administrator.",
    );
  }
}

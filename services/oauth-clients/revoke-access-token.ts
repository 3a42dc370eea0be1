// Token revocation (RFC 7009): a client that no longer needs an access token, or fears it leaked, revokes
// it. The client authenticates exactly as at the token endpoint. Only the client's own tokens are revoked;
// an unknown token, an already revoked or expired one, and another client's token all end the same way, with
// nothing said (RFC 7009 §2.2), so the endpoint cannot be used to learn whether a token exists.
import { OAuthAccessToken, OAuthClient } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { Forbidden, InvalidRequest } from '../errors.ts';
import { allowlistRefusal } from '../security/ip-allowlist.ts';
import { sha256Hex } from '../security/secrets.ts';
import { authenticateClient, invalidClient } from './authenticate-client.ts';

export interface RevokeAccessTokenInput {
  clientId: string;
  clientSecret: string;
  /** The access token to revoke, as the client received it. */
  token: string;
  /** The caller's address (after trusted proxies); checked against the client's IP allowlist. */
  sourceAddress: string;
}

export interface RevokedAccessToken {
  /** Whether a live token of this client was revoked now; never told to the caller. */
  revoked: boolean;
}

export async function revokeAccessToken(
  ctx: DataContext,
  input: RevokeAccessTokenInput,
): Promise<RevokedAccessToken> {
  if (input.token === '') {
    throw new InvalidRequest('token is required: the access token to revoke.', [
      { field: 'token', message: 'required' },
    ]);
  }
  const em = ctx.em;
  const authenticated = await authenticateClient(em, input.clientId, input.clientSecret);
  const client = await em.findOne(OAuthClient, { id: authenticated.oauthClientId });
  if (!client) throw invalidClient();
  // As at the token endpoint, and only once the client has proved who it is. The organization's API flag
  // and plan are not checked: revoking only takes access away.
  const notAllowed = allowlistRefusal(client.ipAllowlist, input.sourceAddress, client.clientId);
  if (notAllowed) throw new Forbidden(notAllowed);

  const revoked = await em.nativeUpdate(
    OAuthAccessToken,
    { tokenHash: sha256Hex(input.token), oauthClientId: client.id, revokedAt: null },
    { revokedAt: new Date() },
  );
  return { revoked: revoked > 0 };
}

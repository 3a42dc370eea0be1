// Client authentication for the token and revocation endpoints: a client id and one of the client's active
// secrets. It does the same work whatever the outcome, so its timing does not tell which client ids exist or
// how many secrets a client has: one statement reads the client and its active secrets, and the presented
// secret is always checked against exactly MAX_ACTIVE_SECRETS scrypt hashes (the client's active ones,
// padded with a hash of the same parameters that nothing matches). An unknown id, a client without an active
// secret, one or two secrets, a wrong or a right secret: always two scrypt evaluations, never an early return.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Unauthorized } from '../errors.ts';
import { PADDING_SECRET_HASH, verifySecret } from '../security/secrets.ts';
import { MAX_ACTIVE_SECRETS } from './rotate-client-secret.ts';

/** One message for an unknown client and a wrong or expired secret, so neither can be told apart. */
export const INVALID_CLIENT_MESSAGE =
  'Client authentication failed: unknown client or invalid client secret.';

/**
 * Longer credentials are refused without hashing them: no client id or secret of ours comes close. The
 * refusal depends only on what the caller sent, so it reveals nothing about the clients that exist.
 */
const MAX_CREDENTIAL_LENGTH = 256;

export interface AuthenticatedClient {
  /** oauth_client.id */
  oauthClientId: string;
  /** The active secret the presented one matched (oauth_client_secret.id). */
  secretId: string;
}

interface CandidateRow {
  oauth_client_id: string;
  secret_id: string | null;
  secret_hash: string | null;
}

export function invalidClient(): Unauthorized {
  return new Unauthorized(INVALID_CLIENT_MESSAGE, 'invalid_client');
}

/** The client and the secret it proved, or 401 `invalid_client` with INVALID_CLIENT_MESSAGE. */
export async function authenticateClient(
  em: EntityManager,
  clientId: string,
  clientSecret: string,
): Promise<AuthenticatedClient> {
  if (clientId.length > MAX_CREDENTIAL_LENGTH || clientSecret.length > MAX_CREDENTIAL_LENGTH) {
    throw invalidClient();
  }
  // PostgreSQL cannot take NUL in text, and no client id holds one: such an id is simply unknown (and
  // still costs the verifications below).
  const rows = clientId.includes('\u0000')
    ? []
    : await em.getConnection().execute<CandidateRow[]>(
        `select c.id as oauth_client_id, s.id as secret_id, s.secret_hash
           from oauth_client c
           left join oauth_client_secret s
             on s.oauth_client_id = c.id and s.deleted_at is null and s.expires_at > ?
          where c.client_id = ?
          order by s.created_at, s.id`,
        [new Date(), clientId],
      );
  const secrets = rows.flatMap((row) =>
    row.secret_id && row.secret_hash ? [{ id: row.secret_id, hash: row.secret_hash }] : [],
  );
  // Rotation keeps at most MAX_ACTIVE_SECRETS active; should more ever exist, each is still checked.
  const hashes = [...secrets.map((secret) => secret.hash)];
  while (hashes.length < MAX_ACTIVE_SECRETS) hashes.push(PADDING_SECRET_HASH);
  // Every hash is verified (no short cut on the first match); they run side by side on the thread pool.
  const results = await Promise.all(hashes.map((hash) => verifySecret(clientSecret, hash)));
  // Only a real secret authenticates: a padding position never counts, whatever it returned.
  const matched = secrets.find((_secret, index) => results[index] === true);
  const oauthClientId = rows[0]?.oauth_client_id;
  if (!oauthClientId || !matched) throw invalidClient();
  return { oauthClientId, secretId: matched.id };
}

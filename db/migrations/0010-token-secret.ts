// Access tokens remember the client secret that issued them and can be revoked: deleting a secret revokes
// its tokens, and a client may revoke its own tokens (POST /oauth/revoke, RFC 7009).
import { Migration } from '@mikro-orm/migrations';

export class Migration0010TokenSecret extends Migration {
  override name = '0010-token-secret';

  override up(): void {
    // Tokens issued before this migration keep a null secret: which secret issued them is not known, so
    // deleting any secret of their client revokes them (they live one token lifetime at most anyway).
    this.addSql(`
      alter table oauth_access_token
        add column oauth_client_secret_id uuid
          references oauth_client_secret (id) on delete cascade deferrable initially deferred,
        add column revoked_at timestamptz`);
    // Revocation finds a client's tokens, or one secret's, without scanning every token.
    this.addSql(
      'create index oauth_access_token_client_idx on oauth_access_token (oauth_client_id, oauth_client_secret_id)',
    );
  }
}

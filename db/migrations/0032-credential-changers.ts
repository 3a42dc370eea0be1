// Who last changed each API key and webhook endpoint (issue 30, docs/integrations.md "What a key may be given",
// docs/webhooks.md "What an endpoint may receive"). A credential reaches only what that user still holds: the
// bearer check honours a key's scopes, and the queueing of deliveries an endpoint's events, only while the user
// is active and their role has the permissions domain/credential-permissions.ts names. Null: made by the
// operator (`sigil client create`, `sigil webhook create`), which no user's permissions bound.
//
// No foreign key: a user's row stays when they are deleted (status `deleted`, which suspends what they last
// changed), and an id that finds no user suspends too; only an operator's change is null.
//
// Existing keys take the user the security log names for their last creation or change (`api_key.created`,
// `api_key.updated` carry the client id and the actor; the CLI's have no actor, so those keys stay null).
// Endpoints were not logged: existing ones stay null (delivering as before) until a user saves them.
import { Migration } from '@mikro-orm/migrations';

export class Migration0032CredentialChangers extends Migration {
  override name = '0032-credential-changers';

  override up(): void {
    this.addSql('alter table oauth_client add column changed_by_user_id uuid');
    this.addSql('alter table webhook_endpoint add column changed_by_user_id uuid');
    this.addSql(`update oauth_client c set changed_by_user_id = (
        select e.actor_user_id from security_event e
         where e.organization_id = c.organization_id
           and e.type in ('api_key.created', 'api_key.updated')
           and e.details ->> 'clientId' = c.client_id
         order by e.occurred_at desc, e.id desc
         limit 1)`);
  }
}

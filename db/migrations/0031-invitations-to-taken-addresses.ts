// Invitations that do not tell whether an address has an account (issue 30, docs/administration.md
// "Invitations"). An address belongs to one user in one organization; inviting an address that already has an
// account in another organization used to answer 409 `email_taken`, which told anyone with `users:manage`
// who has a Sigil account. Such an invitation is now made like any other — an `invited` user, counted, listed,
// resent and deleted as usual — but marked `email_held_elsewhere`: it has no link (it cannot be accepted), its
// address's holder is told by email instead, sign-in never finds it, and it is left out of the address's
// uniqueness (the holder's own row keeps the address). Resending it once the other account is gone turns it
// into an ordinary invitation with a link.
import { Migration } from '@mikro-orm/migrations';

export class Migration0031InvitationsToTakenAddresses extends Migration {
  override name = '0031-invitations-to-taken-addresses';

  override up(): void {
    this.addSql('alter table app_user add column email_held_elsewhere boolean not null default false');
    this.addSql('drop index app_user_email_unique');
    this.addSql(
      `create unique index app_user_email_unique on app_user (email)
        where status <> 'deleted' and not email_held_elsewhere`,
    );
  }
}

// Account basics on the profile (issue 34, docs/accounts.md "Your account"): a user's own phone number, and the
// emailed link that confirms a new email address. The link is an `account_token` of kind `change_email` that
// carries the address it confirms (`new_email`); the address changes only when the link is used.
import { Migration } from '@mikro-orm/migrations';

export class Migration0041AccountProfile extends Migration {
  override name = '0041-account-profile';

  override up(): void {
    this.addSql('alter table app_user add column phone text');
    this.addSql('alter table account_token add column new_email text');
    this.addSql('alter table account_token drop constraint account_token_kind_check');
    this.addSql(`
      alter table account_token add constraint account_token_kind_check
        check (kind in ('verify_email', 'reset_password', 'invite', 'change_email'))`);
    // A change_email token always names its address; the other kinds never do.
    this.addSql(`
      alter table account_token add constraint account_token_new_email_check
        check ((kind = 'change_email') = (new_email is not null))`);
  }
}

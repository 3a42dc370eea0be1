// Two-step verification (docs/accounts.md, "Two-step verification"):
//   - `app_user.totp_last_step`: the last TOTP time step (Unix time / 30 s) a code was accepted for, so a code
//     is never accepted twice, not even within its own 30 seconds (RFC 6238, section 5.2). Written with a
//     conditional update (`totp_last_step < step`), so two requests carrying the same code cannot both pass;
//   - `user_session.mfa_failures`: wrong codes (and wrong re-authentications) given with one session; the
//     fifth ends the session, so a pending sign-in cannot be used to try codes indefinitely.
import { Migration } from '@mikro-orm/migrations';

export class Migration0013Mfa extends Migration {
  override name = '0013-mfa';

  override up(): void {
    this.addSql('alter table app_user add column totp_last_step bigint');
    this.addSql(
      'alter table user_session add column mfa_failures integer not null default 0 check (mfa_failures >= 0)',
    );
  }
}

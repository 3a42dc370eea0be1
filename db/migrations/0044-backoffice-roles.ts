// The backoffice's two roles (docs/backoffice.md, "Roles"): `platform_admin.role` is `administrator` (every
// backoffice route) or `support` (reads and the listed safe actions, domain/backoffice-roles.ts). The
// administrators there already were administrators of everything: they stay so.
import { Migration } from '@mikro-orm/migrations';

export class Migration0044BackofficeRoles extends Migration {
  override name = '0044-backoffice-roles';

  override up(): void {
    this.addSql(`alter table platform_admin add column role text not null default 'administrator'
      check (role in ('administrator', 'support'))`);
  }

  override down(): void {
    this.addSql('alter table platform_admin drop column role');
  }
}

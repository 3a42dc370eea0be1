// Delegation (issue 32, docs/signing.md "Handing your part to someone else"): a template says whether the
// recipients of the envelopes sent from it may hand their part to another person, and every envelope keeps its
// own copy (set when it is created: the template's, unless the create request says otherwise). Off by
// default, so existing templates and envelopes stay as they were.
import { Migration } from '@mikro-orm/migrations';

export class Migration0034Delegation extends Migration {
  override name = '0034-delegation';

  override up(): void {
    this.addSql('alter table template add column allow_delegation boolean not null default false');
    this.addSql('alter table envelope add column allow_delegation boolean not null default false');
  }
}

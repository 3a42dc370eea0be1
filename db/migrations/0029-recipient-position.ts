// Recipients keep the order they were given in. Reads ordered by signing order and creation time alone left
// recipients of the same signing order in whatever order PostgreSQL met them, which changes when a row is
// updated (docs/development.md, "Known flaky reads"). `position` is the recipient's place in its envelope's
// list as created; existing envelopes take the order they were read in before, with the id breaking exact ties.
import { Migration } from '@mikro-orm/migrations';

export class Migration0029RecipientPosition extends Migration {
  override name = '0029-recipient-position';

  override up(): void {
    this.addSql('alter table recipient add column position integer not null default 0 check (position >= 0)');
    this.addSql(`update recipient r set position = ranked.position
      from (select id, (row_number() over (partition by envelope_id order by signing_order, created_at, id) - 1)::int
              as position
              from recipient) ranked
     where ranked.id = r.id`);
  }
}

// A parked projection (docs/envelope-lifecycle.md, "When a transition cannot be recorded"): the envelope's
// workflow decided a transition that PostgreSQL refuses for good, and waits for an operator. The envelope row
// says why and since when, in a small write of its own that cannot fail the same way; the next transition
// written clears both. `sigil envelope stuck` and GET /api/health read them through the partial index.
import { Migration } from '@mikro-orm/migrations';

export class Migration0009ProjectionErrors extends Migration {
  override name = '0009-projection-errors';

  override up(): void {
    this.addSql(`
      alter table envelope
        add column projection_error text,
        add column projection_failed_at timestamptz`);
    this.addSql(
      `create index envelope_projection_error_idx on envelope (projection_failed_at)
        where projection_error is not null`,
    );
  }
}

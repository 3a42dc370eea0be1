// Indexes for the orphan sweep and `sigil storage migrate` (issue 36, docs/deployment.md "Object storage"): the
// sweep asks, per registered object, whether a stored file still references its key (live, or purged within the
// grace period), and the migration walks the registry by location in key order.
import { Migration } from '@mikro-orm/migrations';

export class Migration0048ObjectSweepIndexes extends Migration {
  override name = '0048-object-sweep-indexes';

  override up(): void {
    this.addSql('create index stored_file_sha256_idx on stored_file (sha256)');
    this.addSql('create index file_object_location_key_idx on file_object (location, key)');
  }
}

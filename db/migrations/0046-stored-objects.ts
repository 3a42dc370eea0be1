// The storage port's PostgreSQL objects (issue 36, docs/architecture.md "Object storage"): an object is content-
// addressed (its key is the SHA-256 of its bytes, hex) and its bytes are chunks of at most 1 MiB, so they are
// written and read one chunk at a time. Chunks are keyed by the object's id, not its key: a put writes them
// before it knows the key, and keeps them only when the key row it then inserts is new.
import { Migration } from '@mikro-orm/migrations';

export class Migration0046StoredObjects extends Migration {
  override name = '0046-stored-objects';

  override up(): void {
    this.addSql(`
      create table stored_object (
        key text primary key check (key ~ '^[0-9a-f]{64}$'),
        object_id uuid not null unique,
        size_bytes bigint not null check (size_bytes >= 0),
        created_at timestamptz not null
      )`);
    this.addSql(`
      create table stored_object_chunk (
        object_id uuid not null,
        seq integer not null check (seq >= 0),
        data bytea not null,
        primary key (object_id, seq)
      )`);
  }
}

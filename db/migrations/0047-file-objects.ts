// Stored files' bytes through the storage port (issue 36, docs/deployment.md "Object storage"):
//   - `file_object`, the registry of objects: key (SHA-256 hex), location ('postgres' or 's3'), size, and when a
//     put last touched it (the orphan sweep's grace period counts from there; storage/file-objects.ts).
//   - every `stored_file`'s bytes move into the PostgreSQL store (`stored_object` and 1 MiB `stored_object_chunk`
//     rows, migration 0046), one object per distinct SHA-256, registered as 'postgres'; then the content column
//     goes. `stored_file.sha256` is from now on the key of the file's object.
//   - before that, every file whose bytes were not purged must have bytes that hash to its `sha256` and are its
//     `size_bytes` long. If one does not, the migration stops with an error naming the first such files and
//     changes nothing (it runs in one transaction): such a file was already corrupt, and moving it would store
//     bytes under a key that is not theirs — or silently replace the recorded hash of what was signed. An
//     operator inspects those rows (`select id, sha256, encode(sha256(content), 'hex') from stored_file ...`)
//     and decides (restore the bytes from a backup, or mark the file purged) before migrating again.
//   - purged files (retention emptied their content) have no object; their name, type, size and hash stay.
import { Migration } from '@mikro-orm/migrations';

/** The PostgreSQL store's chunk size (storage/postgres-object-store.ts POSTGRES_CHUNK_BYTES). */
const CHUNK_BYTES = 1024 * 1024;

export class Migration0047FileObjects extends Migration {
  override name = '0047-file-objects';

  override up(): void {
    this.addSql(`
      create table file_object (
        key text primary key check (key ~ '^[0-9a-f]{64}$'),
        location text not null check (location in ('postgres', 's3')),
        size_bytes bigint not null check (size_bytes >= 0),
        touched_at timestamptz not null default now()
      )`);
    this.addSql(`
      do $$
      declare
        bad text;
      begin
        select string_agg(id::text || ' (recorded ' || sha256 || ', ' || size_bytes || ' bytes; the bytes hash to '
                          || encode(sha256(content), 'hex') || ', ' || octet_length(content) || ' bytes)', '; ')
          into bad
          from (select id, sha256, size_bytes, content from stored_file
                 where purged_at is null
                   and (sha256 is distinct from encode(sha256(content), 'hex')
                        or size_bytes is distinct from octet_length(content))
                 order by id limit 10) mismatched;
        if bad is not null then
          raise exception 'Migration 0047 stopped, nothing changed: stored files whose bytes do not match their recorded SHA-256 or size: %', bad;
        end if;
      end
      $$`);
    // One object per distinct key: its stored_object row (one new id per key), its chunks, its registry row.
    this.addSql(`
      insert into stored_object (key, object_id, size_bytes, created_at)
        select sha256, gen_random_uuid(), max(size_bytes), now()
          from stored_file where purged_at is null group by sha256
        on conflict (key) do nothing`);
    this.addSql(`
      insert into stored_object_chunk (object_id, seq, data)
        select o.object_id, seq, substring(f.content from seq * ${CHUNK_BYTES} + 1 for ${CHUNK_BYTES})
          from (select distinct on (sha256) sha256, content from stored_file
                 where purged_at is null order by sha256, id) f
          join stored_object o on o.key = f.sha256
          cross join lateral generate_series(0, ceil(octet_length(f.content)::numeric / ${CHUNK_BYTES})::int - 1) seq
         where not exists (select 1 from stored_object_chunk c where c.object_id = o.object_id)`);
    this.addSql(`
      insert into file_object (key, location, size_bytes, touched_at)
        select key, 'postgres', size_bytes, now() from stored_object
         where key in (select sha256 from stored_file where purged_at is null)
        on conflict (key) do nothing`);
    this.addSql('alter table stored_file drop column content');
  }
}

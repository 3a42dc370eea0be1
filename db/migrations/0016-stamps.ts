// Personal stamps (docs/stamps.md): a user's own stamp images, each kept in versions.
//   - `user_stamp`: a stamp of a user (its name, unique among the user's stamps that are not deleted,
//     whatever its case); deleting it sets `deleted_at` (a soft delete) and removes the versions no envelope
//     uses;
//   - `user_stamp_version`: one image of a stamp, numbered 1, 2, 3… (the highest is the current one), its
//     bytes a `stored_file` of the user's organization (PNG or JPEG, checked by content), with the size in
//     pixels. A version an envelope's field value names (`value -> 'personalStamp' ->> 'versionId'`, written
//     when a signer chooses the stamp) stays, with its file, as long as that value does;
//   - an index on that reference, so deleting a stamp finds the values that still name its versions without
//     reading every field value.
import { Migration } from '@mikro-orm/migrations';

export class Migration0016Stamps extends Migration {
  override name = '0016-stamps';

  override up(): void {
    this.addSql(`
      create table user_stamp (
        id uuid primary key,
        organization_id uuid not null references organization (id) on delete cascade,
        user_id uuid not null references app_user (id) on delete cascade,
        name text not null check (length(name) between 1 and 100),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        deleted_at timestamptz
      )`);
    this.addSql('create index user_stamp_user_idx on user_stamp (user_id)');
    this.addSql(
      'create unique index user_stamp_name_idx on user_stamp (user_id, lower(name)) where deleted_at is null',
    );

    this.addSql(`
      create table user_stamp_version (
        id uuid primary key,
        stamp_id uuid not null references user_stamp (id) on delete cascade deferrable initially deferred,
        version integer not null check (version >= 1),
        file_id uuid not null references stored_file (id) deferrable initially deferred,
        content_type text not null check (content_type in ('image/png', 'image/jpeg')),
        width integer not null check (width > 0),
        height integer not null check (height > 0),
        size_bytes integer not null check (size_bytes > 0),
        sha256 text not null,
        created_at timestamptz not null default now(),
        unique (stamp_id, version)
      )`);
    this.addSql('create index user_stamp_version_file_idx on user_stamp_version (file_id)');

    this.addSql(`
      create index envelope_field_value_stamp_version_idx
        on envelope_field_value (((value -> 'personalStamp') ->> 'versionId'))
        where value -> 'personalStamp' is not null`);
  }
}

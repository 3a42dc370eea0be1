// Envelopes created from an uploaded file (POST /api/v1/envelopes/from-file, docs/api.md): each gets a hidden
// one-off template made of the file and the request's fields, so signing and finalization read it as any
// template.
//   - `template.status` may be `OneOff`: no template route lists or serves such a template, and no other
//     envelope can be created from it;
//   - `envelope.source_file_id`: the uploaded file the envelope was created from (null for an envelope created
//     from a template), which the API shows in place of the hidden template's id.
import { Migration } from '@mikro-orm/migrations';

export class Migration0017EnvelopesFromFile extends Migration {
  override name = '0017-envelopes-from-file';

  override up(): void {
    this.addSql('alter table template drop constraint template_status_check');
    this.addSql(
      "alter table template add constraint template_status_check check (status in ('Draft', 'Published', 'OneOff'))",
    );
    this.addSql(
      'alter table envelope add column source_file_id uuid references stored_file (id) deferrable initially deferred',
    );
  }
}

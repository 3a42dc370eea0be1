// Restoring and deleting archived templates (issue 33, docs/templates.md "Archive, restore, delete"): a deleted
// template's versions that envelopes were created from stay (marked `deleted_at`) for those envelopes' pages,
// fields and audit, and no envelope may be created from (or moved to) a deleted or removed version again. The
// trigger checks that where the envelope row is written, under a key-share lock on the template row, so a
// deletion — which holds its template's rows `for update` while it checks for open envelopes — and a create
// running at the same moment take turns: whichever commits first, the other sees it (the create is refused
// with SQLSTATE `SGT01`, which create-envelope.ts answers as "Template … was not found").
import { Migration } from '@mikro-orm/migrations';

export class Migration0039TemplateDeletion extends Migration {
  override name = '0039-template-deletion';

  override up(): void {
    this.addSql('alter table template add column deleted_at timestamptz');
    this.addSql(`
      create function envelope_template_not_deleted() returns trigger language plpgsql as $$
      declare
        gone timestamptz;
      begin
        select t.deleted_at into gone from template t where t.id = new.template_id for key share;
        if not found or gone is not null then
          raise exception 'template % was deleted', new.template_id using errcode = 'SGT01';
        end if;
        return new;
      end
      $$`);
    this.addSql(`
      create trigger envelope_template_not_deleted
        before insert or update of template_id on envelope
        for each row when (new.template_id is not null)
        execute function envelope_template_not_deleted()`);
  }
}

// DELETE /api/templates/{id}: an archived template is deleted, every version of it (docs/templates.md
// "Archive, restore, delete") — refused (409 `template_in_use`) while an envelope that is not final (a Draft, one
// being sent or signed, DeliveryFailed, FinalPdfFailed: any status but Completed, Declined, Cancelled, Expired,
// Archived and Deleted) was created from any of its versions. Versions no envelope or bulk send was created
// from are removed with their roles, fields and (when no other template or envelope uses it) their PDF; the
// others stay for their envelopes' pages and audit, marked `deleted_at`, never listed, restored or sent again.
//
// One transaction, no check-then-act: the family's rows are locked `for update` before the envelopes are
// counted, and the database refuses an envelope created from a deleted or removed version (migration 0039's
// trigger takes a key-share lock on the version while it writes the envelope). A create that wrote its
// envelope first holds that lock until it commits, so the count here waits for it and sees its envelope; a
// create that comes second waits for this transaction and is refused.
import { ARCHIVABLE_STATUSES } from '../../domain/document-lifecycle.ts';
import type { EnvelopeStatus } from '../../domain/vocabulary.ts';
import type { DataContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { lockTemplateFamily, notArchived } from './archived-templates.ts';
import type { TemplateActor } from './template-versions.ts';

/** Statuses in which an envelope no longer needs its template to go on. */
export const FINAL_ENVELOPE_STATUSES = [
  ...ARCHIVABLE_STATUSES,
  'Archived',
  'Deleted',
] as const satisfies readonly EnvelopeStatus[];

const FINAL = FINAL_ENVELOPE_STATUSES.map((status) => `'${status}'`).join(', ');

export async function deleteTemplate(
  ctx: DataContext,
  actor: TemplateActor,
  templateId: string,
): Promise<void> {
  const { organizationId } = actor;
  await ctx.em.transactional(async (tx) => {
    const family = await lockTemplateFamily(tx, organizationId, templateId);
    if (!family.archived) throw notArchived(templateId, 'deleted');
    const versions = family.versionIds;
    const marks = versions.map(() => '?').join(', ');
    const [open] = await tx.execute<{ count: number }[]>(
      `select count(*)::int as count from envelope e
        where e.template_id in (${marks}) and e.status not in (${FINAL})`,
      versions,
    );
    const count = Number(open?.count ?? 0);
    if (count > 0) {
      throw new Conflict(
        `Template ${templateId} is used by ${count} envelope${count === 1 ? '' : 's'} that ${count === 1 ? 'is' : 'are'} not finished ` +
          '(drafts included): it can be deleted once they are completed, declined, cancelled, expired or deleted.',
        [{ field: 'params.id', message: 'used by envelopes that are not finished', openEnvelopes: count }],
        'template_in_use',
      );
    }
    const files = await tx.execute<{ file_id: string }[]>(
      `select distinct file_id from template where id in (${marks})`,
      versions,
    );
    await tx.execute(
      `delete from template t
        where t.id in (${marks})
          and not exists (select 1 from envelope e where e.template_id = t.id)
          and not exists (select 1 from bulk_send b where b.template_id = t.id)`,
      versions,
    );
    await tx.execute(
      `update template set deleted_at = now(), updated_at = now() where id in (${marks})`,
      versions,
    );
    const fileIds = files.map((file) => file.file_id);
    await tx.execute(
      `delete from stored_file f
        where f.id in (${fileIds.map(() => '?').join(', ')})
          and not exists (select 1 from template t where t.file_id = f.id)
          and not exists (select 1 from envelope e where e.source_file_id = f.id)`,
      fileIds,
    );
  });
}

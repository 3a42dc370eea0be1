// What restoring and deleting an archived template share (docs/templates.md "Archive, restore, delete"): the
// family of one of the organization's templates, its versions locked until the transaction ends — another
// organization's template, a one-off template, a deleted one, an unknown or a malformed id are all "not
// found" — and the refusal of a template that is not archived.
import type { EntityManager } from '@mikro-orm/postgresql';
import { UUID_PATTERN } from '../../domain/common.ts';
import { Conflict, NotFound } from '../errors.ts';

export interface LockedFamily {
  familyId: string;
  /** Every version's id. */
  versionIds: string[];
  /** Whether the template is archived (every version is, or none). */
  archived: boolean;
}

/**
 * Locks every version of the family of the organization's template `templateId` (`for update`, in id order, as
 * the builder's saves do) inside the caller's transaction `tx`, and answers the family; 404 when there is no such
 * template (or it was deleted).
 */
export async function lockTemplateFamily(
  tx: EntityManager,
  organizationId: string,
  templateId: string,
): Promise<LockedFamily> {
  const rows = UUID_PATTERN.test(templateId)
    ? await tx.execute<{ id: string; family_id: string; archived: boolean; deleted: boolean }[]>(
        `select t.id, t.family_id, t.archived_at is not null as archived, t.deleted_at is not null as deleted
           from template t
          where t.organization_id = ? and t.status in ('Draft', 'Published')
            and t.family_id = (select family_id from template where id = ? and organization_id = ?)
          order by t.id
          for update`,
        [organizationId, templateId, organizationId],
      )
    : [];
  const [first] = rows;
  if (!first || rows.some((row) => row.deleted)) throw new NotFound(`Template ${templateId} was not found.`);
  return {
    familyId: first.family_id,
    versionIds: rows.map((row) => row.id),
    archived: rows.every((row) => row.archived),
  };
}

/** 409 `template_not_archived`: restore and delete act on archived templates only. */
export function notArchived(templateId: string, action: 'restored' | 'deleted'): Conflict {
  return new Conflict(
    `Template ${templateId} is not archived: only an archived template can be ${action}` +
      (action === 'deleted' ? ' (archive it first).' : '.'),
    [{ field: 'params.id', message: 'not archived' }],
    'template_not_archived',
  );
}

/** The SQLSTATE migration 0039's trigger raises for an envelope written from a deleted or removed version. */
const TEMPLATE_DELETED_SQLSTATE = 'SGT01';

/**
 * The error of a write that the trigger refused, as the create's answer for any template it cannot find (404);
 * any other error as it is.
 */
export function deletedTemplateAsNotFound(error: unknown, templateId: string): unknown {
  const codes = [error, (error as { cause?: unknown } | null)?.cause].map(
    (candidate) => (candidate as { code?: unknown; sqlState?: unknown } | null | undefined) ?? {},
  );
  return codes.some(
    (candidate) =>
      candidate.code === TEMPLATE_DELETED_SQLSTATE || candidate.sqlState === TEMPLATE_DELETED_SQLSTATE,
  )
    ? new NotFound(`Template ${templateId} was not found.`)
    : error;
}

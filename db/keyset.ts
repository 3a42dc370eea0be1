// Reading ids page by page in id order with a keyset cursor: the retention runs and the purge of deleted
// organizations list what is due this way, a page per activity.
import type { EntityManager } from '@mikro-orm/postgresql';

/** A keyset cursor before every uuid. */
const FIRST = '00000000-0000-0000-0000-000000000000';

/**
 * The ids `query` selects after `after` (null: from the first), in id order, at most `limit`. `query` selects
 * `<alias>.id` and ends in its where clause, which the cursor extends; `params` are the query's own.
 */
export async function idsAfter(
  em: EntityManager,
  alias: string,
  query: string,
  params: unknown[],
  page: { after: string | null; limit: number },
): Promise<string[]> {
  const rows = await em.execute<{ id: string }[]>(
    `${query} and ${alias}.id > ? order by ${alias}.id limit ?`,
    [...params, page.after ?? FIRST, page.limit],
  );
  return rows.map((row) => row.id);
}

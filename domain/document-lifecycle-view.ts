// What the archive, unarchive and delete routes answer (api/trpc/procedures/document-lifecycle.ts); the rules
// of those changes are domain/document-lifecycle.ts.
import { z } from 'zod';
import { IsoDateTime } from './common.ts';
import { ENVELOPE_STATUSES } from './vocabulary.ts';

/** An envelope's place in its life after signing, as the archive, unarchive and delete routes answer it. */
export const DocumentLifecycleView = z.object({
  id: z.uuid(),
  title: z.string(),
  status: z.enum(ENVELOPE_STATUSES),
  previousStatus: z.enum(ENVELOPE_STATUSES).nullable().meta({
    description:
      'The status it had before it was archived or deleted (what unarchiving restores); null otherwise',
  }),
  archivedAt: IsoDateTime.nullable().meta({ description: 'When it was archived; null when it is not' }),
  deletedAt: IsoDateTime.nullable(),
  filesPurgeAfter: IsoDateTime.nullable().meta({
    description:
      "A deleted envelope's files are purged by the first daily retention run after this time (the " +
      "organization's retention.deletedDays after the deletion); null when it is not deleted",
  }),
  filesPurgedAt: IsoDateTime.nullable(),
});
export type DocumentLifecycleView = z.output<typeof DocumentLifecycleView>;

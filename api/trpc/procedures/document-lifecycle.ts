// A document after its signing (docs/envelope-lifecycle.md, "After signing: archive, delete, retention"):
// archive it out of the active views, bring it back, or delete it (its files purged after the organization's
// retention period). Each needs documents:manage and an envelope the user sees (docs/documents.md).
import { DocumentLifecycleView } from '../../../domain/document-lifecycle-view.ts';
import { documentReaderOf } from '../../../services/documents/document-reader.ts';
import { archiveEnvelope } from '../../../services/envelopes/archive-envelope.ts';
import { deleteEnvelope } from '../../../services/envelopes/delete-envelope.ts';
import { unarchiveEnvelope } from '../../../services/envelopes/unarchive-envelope.ts';
import { type AppContext, areaRoute, principalOf, procedure, router } from '../init.ts';
import { IdParams } from './administration-actor.ts';

const route = areaRoute('documents');
const NOT_FOUND =
  'No such envelope that you see (another organization’s, another team’s without documents:read_all, and a ' +
  'deleted one are not found either)';
const IN_PROGRESS =
  '`envelope_in_progress`: the envelope is still being sent, signed or finalized (cancel it first)';

const readerOf = (ctx: AppContext) => documentReaderOf(principalOf(ctx));

export const documentLifecycleRouter = router({
  archive: procedure
    .meta(
      route('POST', '/api/documents/{id}/archive', {
        summary: 'Archive a finished document',
        description:
          'A Completed, Declined, Cancelled or Expired envelope leaves the active views (it shows under ' +
          'the archived tab); nothing of it is removed. The audit log records `envelope.archived`.',
        access: 'documents:manage',
        errors: {
          404: NOT_FOUND,
          409: `${IN_PROGRESS}; \`invalid_status\`: a Draft, or already Archived`,
        },
      }),
    )
    .input(IdParams)
    .output(DocumentLifecycleView)
    .mutation(({ ctx, input }) => archiveEnvelope(ctx.services, readerOf(ctx), input.id)),

  unarchive: procedure
    .meta(
      route('POST', '/api/documents/{id}/unarchive', {
        summary: 'Bring an archived document back',
        description:
          'The envelope returns to the active views with the status it had before it was archived. The ' +
          'audit log records `envelope.unarchived`.',
        access: 'documents:manage',
        errors: { 404: NOT_FOUND, 409: '`invalid_status`: the envelope is not Archived' },
      }),
    )
    .input(IdParams)
    .output(DocumentLifecycleView)
    .mutation(({ ctx, input }) => unarchiveEnvelope(ctx.services, readerOf(ctx), input.id)),

  delete: procedure
    .meta(
      route('POST', '/api/documents/{id}/delete', {
        summary: 'Delete a document',
        description:
          'A Draft that was never sent, a finished or an archived envelope is hidden at once: every route ' +
          'answers 404 for it from now on. Its record stays; the daily retention run purges its files ' +
          '(`filesPurgeAfter`) once the organization’s `retention.deletedDays` (default 30) have passed. The ' +
          'audit log records `envelope.deleted`.',
        access: 'documents:manage',
        errors: {
          404: NOT_FOUND,
          409: IN_PROGRESS,
          503: 'A Draft whose send began could not be looked up in Temporal: try again',
        },
      }),
    )
    .input(IdParams)
    .output(DocumentLifecycleView)
    .mutation(({ ctx, input }) => deleteEnvelope(ctx.services, readerOf(ctx), input.id)),
});

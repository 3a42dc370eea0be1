// The backoffice's envelopes across organizations (docs/backoffice.md, "Envelopes"): the lookup, the envelope's
// page, its contents (with a reason) and one route per repair (with a reason). Administrators and support alike
// (domain/backoffice-roles.ts); every view and repair is recorded in the backoffice audit log and the
// organization's security log.
import {
  BackofficeEnvelopeContents,
  BackofficeEnvelopeDetail,
  BackofficeEnvelopeIdParameter,
  BackofficeEnvelopeList,
  BackofficeEnvelopeSearchQuery,
  BackofficeReasonRequest,
  BackofficeRepairAnswer,
  BackofficeResumeProjectionRequest,
  type EnvelopeRepair,
} from '../../../domain/backoffice-envelopes.ts';
import { repairEnvelope } from '../../../services/backoffice/envelope-repairs.ts';
import {
  backofficeEnvelope,
  backofficeEnvelopeContents,
  searchEnvelopes,
} from '../../../services/backoffice/envelopes.ts';
import { procedure, router } from '../init.ts';
import { backofficeActorOf, backofficeRoute } from './backoffice-actor.ts';

const NOT_FOUND = 'No envelope with this id in any organization';

function repairRoute(repair: EnvelopeRepair, summary: string, description: string, conflict: string) {
  return procedure.meta(
    backofficeRoute('POST', `/api/backoffice/envelopes/{id}/${repair}`, {
      summary,
      description: `${description} Needs a \`reason\`; recorded in the backoffice audit log and the organization’s security log.`,
      errors: { 404: NOT_FOUND, 409: conflict },
    }),
  );
}

export const backofficeEnvelopesRouter = router({
  search: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/envelopes', {
        summary: 'Find envelopes across organizations',
        description:
          '`q`: an envelope id, an external reference (any case), or a recipient’s email address (any case) or ' +
          'phone number. Newest first, with the organization and what matched; `nextCursor` reads the next page.',
      }),
    )
    .input(BackofficeEnvelopeSearchQuery)
    .output(BackofficeEnvelopeList)
    .query(({ ctx, input }) => searchEnvelopes(ctx.services, input)),

  get: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/envelopes/{id}', {
        summary: 'An envelope of any organization, as support sees it',
        description:
          'Status, organization, recipients with their messages and delivery states, the audit events (without ' +
          'their data), the projection state (`current`, `behind`, `parked` with why, or `unknown`), the webhook ' +
          'deliveries and the workflow with its link in the Temporal Web UI (`TEMPORAL_UI_URL`). Never the ' +
          'document’s contents or field values (POST …/contents). The view is recorded in the backoffice audit ' +
          'log and the organization’s security log.',
        errors: { 404: NOT_FOUND },
      }),
    )
    .input(BackofficeEnvelopeIdParameter)
    .output(BackofficeEnvelopeDetail)
    .query(({ ctx, input }) => backofficeEnvelope(ctx.services, backofficeActorOf(ctx), input.id)),

  contents: procedure
    .meta(
      backofficeRoute('POST', '/api/backoffice/envelopes/{id}/contents', {
        summary: 'An envelope’s field values and audit event data, for a reason',
        description:
          'The document’s contents are private: asking needs a `reason`, and the access is recorded in the ' +
          'backoffice audit log and the organization’s security log.',
        errors: { 404: NOT_FOUND },
      }),
    )
    .input(BackofficeReasonRequest.extend(BackofficeEnvelopeIdParameter.shape))
    .output(BackofficeEnvelopeContents)
    .mutation(({ ctx, input }) =>
      backofficeEnvelopeContents(ctx.services, backofficeActorOf(ctx), input.id, input.reason),
    ),

  resumeProjection: repairRoute(
    'resume-projection',
    'Resume an envelope’s parked projection',
    'The workflow projects its queued transitions again (with `sanitize`, after replacing what PostgreSQL cannot ' +
      'store in their text), as `sigil envelope resume-projection`.',
    'The projection is not parked, or PostgreSQL refused it again (the message says why)',
  )
    .input(BackofficeResumeProjectionRequest.extend(BackofficeEnvelopeIdParameter.shape))
    .output(BackofficeRepairAnswer)
    .mutation(({ ctx, input }) =>
      repairEnvelope(ctx.services, backofficeActorOf(ctx), input.id, 'resume-projection', input),
    ),

  retryFinalPdf: repairRoute(
    'retry-final-pdf',
    'Render an envelope’s final PDF again',
    'For an envelope in FinalPdfFailed, once the cause is fixed, as `sigil envelope retry-final-pdf`.',
    'The envelope is not FinalPdfFailed',
  )
    .input(BackofficeReasonRequest.extend(BackofficeEnvelopeIdParameter.shape))
    .output(BackofficeRepairAnswer)
    .mutation(({ ctx, input }) =>
      repairEnvelope(ctx.services, backofficeActorOf(ctx), input.id, 'retry-final-pdf', input),
    ),

  reissueLinks: repairRoute(
    'reissue-links',
    'Re-issue an envelope’s signing links',
    'Every acting recipient’s earlier links stop working; those who may sign now get a new link in a reminder ' +
      '(recipients by API or manual link get theirs from the organization). The links are never shown to staff.',
    'The envelope is not being signed',
  )
    .input(BackofficeReasonRequest.extend(BackofficeEnvelopeIdParameter.shape))
    .output(BackofficeRepairAnswer)
    .mutation(({ ctx, input }) =>
      repairEnvelope(ctx.services, backofficeActorOf(ctx), input.id, 'reissue-links', input),
    ),

  verifyAudit: repairRoute(
    'verify-audit',
    'Verify an envelope’s audit chain',
    'Recomputes the hash chain through the envelope’s audit events, as `sigil envelope verify-audit`.',
    '`audit_chain_broken`: the details name each event that fails and why',
  )
    .input(BackofficeReasonRequest.extend(BackofficeEnvelopeIdParameter.shape))
    .output(BackofficeRepairAnswer)
    .mutation(({ ctx, input }) =>
      repairEnvelope(ctx.services, backofficeActorOf(ctx), input.id, 'verify-audit', input),
    ),
});

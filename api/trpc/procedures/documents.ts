// The business app's documents (docs/documents.md): the envelopes a user sees, listed by tab with a search,
// filters and a cursor; one envelope with its recipients, timeline, downloads and the workflow's live view; and
// what its status allows (send, remind, cancel, extend, retry the final PDF, a fresh link for a recipient whose
// link the sender hands over) through the envelope services the public API uses. Reading needs
// documents:read (which envelopes: document-reader.ts), changing documents:manage. Another organization's
// envelope, and one the user does not see, is 404.
//
// Archive, unarchive and delete: api/trpc/procedures/document-lifecycle.ts (their slot in the router).
import {
  CancelDocumentRequest,
  CorrectDocumentRecipientRequest,
  DocumentDetail,
  DocumentFilters,
  DocumentList,
  DocumentListQuery,
  DocumentLiveView,
  DocumentParams,
  DocumentRecipientParams,
  ExtendDocumentRequest,
  SigningLinkParams,
  SigningLinkView,
  UpdateDocumentSettingsRequest,
} from '../../../domain/document.ts';
import { DocumentExportQuery } from '../../../domain/document-export.ts';
import { DraftDocument, EditDraftRequest } from '../../../domain/sending.ts';
import {
  cancelDocument,
  correctDocumentRecipient,
  extendDocument,
  issueDocumentSigningLink,
  remindDocument,
  remindDocumentRecipient,
  retryDocumentFinalPdf,
  sendDocument,
} from '../../../services/documents/document-actions.ts';
import { documentFilters } from '../../../services/documents/document-filters.ts';
import { documentLiveView } from '../../../services/documents/document-live-view.ts';
import { documentReaderOf } from '../../../services/documents/document-reader.ts';
import { downloadDocumentFile } from '../../../services/documents/download-document-file.ts';
import { draftDocument, editDraftDocument } from '../../../services/documents/edit-draft-document.ts';
import { exportDocuments } from '../../../services/documents/export-documents.ts';
import { getDocument } from '../../../services/documents/get-document.ts';
import { listDocuments } from '../../../services/documents/list-documents.ts';
import { updateDocumentSettings } from '../../../services/documents/update-document-settings.ts';
import type { EnvelopeFileKind } from '../../../services/envelopes/envelope-document.ts';
import {
  type AppContext,
  areaRoute,
  BinaryFileAnswer,
  type DocumentedErrors,
  FileAnswer,
  principalOf,
  procedure,
  router,
} from '../init.ts';

const route = areaRoute('documents');
const readerOf = (ctx: AppContext) => documentReaderOf(principalOf(ctx));

const NOT_FOUND =
  'No such envelope that you see: another organization’s, another team’s without documents:read_all, a ' +
  'deleted one, and an unknown id are all not found';
/** The envelope services' answers when the status does not allow the change (the workflow's own reason). */
const NOT_NOW = 'The envelope’s status does not allow it now: `conflict`, the message says why';
const UNAVAILABLE =
  'Temporal did not confirm the change in time (it may still be applied): check the envelope before repeating';

const ACTION_ERRORS: DocumentedErrors = { 404: NOT_FOUND, 409: NOT_NOW, 503: UNAVAILABLE };

/** A POST that changes an envelope through its service and answers the envelope as it is afterwards. */
function action(path: string, summary: string, description: string) {
  return route('POST', `/api/documents/{id}/${path}`, {
    summary,
    description: `${description} Answers the envelope afterwards, as GET /api/documents/{id} does.`,
    access: 'documents:manage',
    errors: ACTION_ERRORS,
  });
}

/** A download of one of the envelope's documents. */
function download(kind: EnvelopeFileKind, summary: string, description: string) {
  return procedure
    .meta(
      route('GET', `/api/documents/{id}/files/${kind}`, {
        summary,
        access: 'documents:read',
        errors: { 404: `${NOT_FOUND}; or the document does not exist yet` },
        file: { contentType: 'application/pdf', description, binary: true },
      }),
    )
    .input(DocumentParams)
    .output(BinaryFileAnswer)
    .query(({ ctx, input }) => downloadDocumentFile(ctx.services, readerOf(ctx), input.id, kind));
}

export const documentsRouter = router({
  list: procedure
    .meta(
      route('GET', '/api/documents', {
        summary: 'The envelopes the signed-in user sees',
        description:
          'Newest first, `limit` at a time (1 to 100, default 25): `nextCursor` is the next page’s `cursor`, ' +
          'with the same tab, search and filters. Which envelopes a user sees, and what each tab holds: ' +
          'docs/documents.md.',
        access: 'documents:read',
      }),
    )
    .input(DocumentListQuery)
    .output(DocumentList)
    .query(({ ctx, input }) => listDocuments(ctx.services, readerOf(ctx), input)),

  export: procedure
    .meta(
      route('GET', '/api/documents/export', {
        summary: 'Export the documents list as a CSV file',
        description:
          'Every envelope the list shows for the same tab, search and filters (no paging), newest first; more ' +
          'than 10,000 is 400 `export_too_large` (narrow the list). Cells starting with = + - @, a tab or a ' +
          "carriage return are written after a `'` so that spreadsheets do not run them as formulas.",
        access: 'documents:read',
        file: {
          contentType: 'text/csv; charset=utf-8',
          description:
            'UTF-8 with a byte-order mark, CRLF line ends; the header row ' +
            'title,status,template,sender,recipients,created_at,updated_at,deadline,completed_at; recipients ' +
            'as `Name <address> (Status)` separated by "; "; times in ISO 8601 (UTC)',
        },
      }),
    )
    .input(DocumentExportQuery)
    .output(FileAnswer)
    .query(({ ctx, input }) => exportDocuments(ctx.services, readerOf(ctx), input)),

  filters: procedure
    .meta(
      route('GET', '/api/documents/filters', {
        summary: 'Tab counts and filter choices of the documents list',
        description:
          'How many envelopes each tab holds for the signed-in user, and the senders, teams and templates of ' +
          'the envelopes they see.',
        access: 'documents:read',
      }),
    )
    .output(DocumentFilters)
    .query(({ ctx }) => documentFilters(ctx.services, readerOf(ctx))),

  get: procedure
    .meta(
      route('GET', '/api/documents/{id}', {
        summary: 'One envelope: recipients, timeline, downloads, allowed actions',
        description:
          'Read from the database. Carries an ETag: send it back as If-None-Match to get 304 while nothing ' +
          'changed (the envelope page polls this way while it is open).',
        access: 'documents:read',
        errors: { 404: NOT_FOUND },
        etag: true,
      }),
    )
    .input(DocumentParams)
    .output(DocumentDetail)
    .query(({ ctx, input }) => getDocument(ctx.services, readerOf(ctx), input.id)),

  live: procedure
    .meta(
      route('GET', '/api/documents/{id}/live', {
        summary: 'The envelope’s workflow as it stands (a Temporal Query)',
        description:
          'The round in turn, whom it waits for, the deadline, the next automatic reminder, the grace window ' +
          'and the projection’s progress; `live` is null for a draft or a finished envelope.',
        access: 'documents:read',
        errors: {
          404: NOT_FOUND,
          503: 'Temporal or the workers did not answer in time: the page keeps what it shows',
        },
      }),
    )
    .input(DocumentParams)
    .output(DocumentLiveView)
    .query(({ ctx, input }) => documentLiveView(ctx.services, readerOf(ctx), input.id)),

  source: download(
    'source',
    'Download the source document',
    'The PDF the envelope was created from (its template’s, or the uploaded file)',
  ),
  finalPdf: download(
    'final-pdf',
    'Download the final signed PDF',
    'The final PDF, once the envelope is Completed',
  ),
  auditTrail: download(
    'audit-trail',
    'Download the audit trail',
    'The audit-trail PDF, once the envelope is Completed',
  ),

  send: procedure
    .meta(action('send', 'Send a draft', 'Starts the envelope’s workflow; the first round is invited.'))
    .input(DocumentParams)
    .output(DocumentDetail)
    .mutation(({ ctx, input }) => sendDocument(ctx.services, readerOf(ctx), input.id)),

  draft: procedure
    .meta(
      route('GET', '/api/documents/{id}/draft', {
        summary: 'A Draft as its edit page fills it',
        description:
          'What the Draft’s create took, as stored: title, workflow, template, deadline, references, ' +
          'delegation, recipients and prefilled values.',
        access: 'documents:manage',
        errors: { 404: NOT_FOUND, 409: '`envelope_not_draft`: it is sent, or being sent' },
      }),
    )
    .input(DocumentParams)
    .output(DraftDocument)
    .query(({ ctx, input }) => draftDocument(ctx.services, readerOf(ctx), input.id)),

  editDraft: procedure
    .meta(
      route('PATCH', '/api/documents/{id}', {
        summary: 'Edit a Draft',
        description:
          'The body is PATCH /api/v1/envelopes/{id}’s, checked the same way (400 naming the field): the ' +
          'create’s fields, each optional; a field given replaces the Draft’s (recipients and initialValues ' +
          'as whole lists). Answers the envelope afterwards, as GET /api/documents/{id} does. Honours ' +
          'Idempotency-Key.',
        access: 'documents:manage',
        idempotent: true,
        errors: {
          404: NOT_FOUND,
          409: '`envelope_not_draft`: it is sent, or being sent (only a Draft can be edited)',
        },
      }),
    )
    .input(EditDraftRequest)
    .output(DocumentDetail)
    .mutation(({ ctx, input }) => editDraftDocument(ctx.services, readerOf(ctx), input)),

  remind: procedure
    .meta(action('remind', 'Remind the recipients in turn', 'Sends a reminder to everyone who may act now.'))
    .input(DocumentParams)
    .output(DocumentDetail)
    .mutation(({ ctx, input }) => remindDocument(ctx.services, readerOf(ctx), input.id)),

  remindRecipient: procedure
    .meta(
      route('POST', '/api/documents/{id}/recipients/{recipientId}/remind', {
        summary: 'Remind one recipient',
        description:
          'The envelope-wide reminder’s rules for one recipient who may act now. Answers the envelope ' +
          'afterwards, as GET /api/documents/{id} does.',
        access: 'documents:manage',
        errors: {
          404: `${NOT_FOUND}; or no such recipient on it`,
          409: 'The recipient cannot act now (completed, waiting for their turn, a Cc) or the envelope is not signing: `conflict`, the message says why',
          503: UNAVAILABLE,
        },
      }),
    )
    .input(DocumentRecipientParams)
    .output(DocumentDetail)
    .mutation(({ ctx, input }) =>
      remindDocumentRecipient(ctx.services, readerOf(ctx), input.id, input.recipientId),
    ),

  correctRecipient: procedure
    .meta(
      route('POST', '/api/documents/{id}/recipients/{recipientId}/correct', {
        summary: 'Correct a recipient who has not completed',
        description:
          'Any of `fullName`, `email`, `phone`, `deliveryChannel` and `language`, checked as the public ' +
          'API’s PATCH /api/v1/envelopes/{id}/recipients/{recipientId} checks them (400 naming the field). ' +
          'The recipient’s links end and, when it is their turn, they are invited again at the new address. ' +
          'Answers the envelope afterwards, as GET /api/documents/{id} does.',
        access: 'documents:manage',
        errors: {
          400: 'A field the recipient’s rules refuse, or a correction that changes nothing',
          404: `${NOT_FOUND}; or no such recipient on it`,
          409: 'The recipient has completed or the envelope is not signing: `conflict`, the message says why',
          503: UNAVAILABLE,
        },
      }),
    )
    .input(CorrectDocumentRecipientRequest)
    .output(DocumentDetail)
    .mutation(({ ctx, input }) => {
      const { id, recipientId, ...correction } = input;
      return correctDocumentRecipient(ctx.services, readerOf(ctx), id, recipientId, correction);
    }),

  cancel: procedure
    .meta(
      action(
        'cancel',
        'Cancel an envelope in progress',
        'The signing links stop working; `reason` (optional) is recorded and sent to the recipients.',
      ),
    )
    .input(CancelDocumentRequest)
    .output(DocumentDetail)
    .mutation(({ ctx, input }) => cancelDocument(ctx.services, readerOf(ctx), input.id, input.reason)),

  extend: procedure
    .meta(
      action(
        'extend',
        'Move the signing deadline',
        'A later `expiresAt`: a draft’s is changed at once, a sent envelope’s by its workflow (also an ' +
          'Expired one within the grace window).',
      ),
    )
    .input(ExtendDocumentRequest)
    .output(DocumentDetail)
    .mutation(({ ctx, input }) =>
      extendDocument(ctx.services, readerOf(ctx), input.id, { expiresAt: input.expiresAt }),
    ),

  settings: procedure
    .meta(
      action(
        'settings',
        'Change the reminder and deadline settings',
        'Any of `reminderIntervalDays` (null: no automatic reminders), `maxAutomaticReminders`, ' +
          '`expiringSoonDays` (0: no warning) and `expiredExtensionGraceDays`: a draft’s are changed at once, ' +
          'an open envelope’s by its workflow (a new reminder schedule counts from the change); refused (409) ' +
          'once the envelope is final.',
      ),
    )
    .input(UpdateDocumentSettingsRequest)
    .output(DocumentDetail)
    .mutation(({ ctx, input }) => {
      const { id, ...settings } = input;
      return updateDocumentSettings(ctx.services, readerOf(ctx), id, settings);
    }),

  retryFinalPdf: procedure
    .meta(
      action(
        'retry-final-pdf',
        'Render the final PDF again',
        'For a FinalPdfFailed envelope once the cause is fixed; the audit trail names the sender.',
      ),
    )
    .input(DocumentParams)
    .output(DocumentDetail)
    .mutation(({ ctx, input }) => retryDocumentFinalPdf(ctx.services, readerOf(ctx), input.id)),

  signingLink: procedure
    .meta(
      route('POST', '/api/documents/{id}/recipients/{recipientId}/signing-link', {
        summary: 'A fresh signing link for a recipient whose link the sender hands over',
        description:
          'For a ManualLink or Api recipient of a sent envelope; their earlier links stop working. The link ' +
          'is answered once (only its digest is stored).',
        access: 'documents:manage',
        errors: {
          404: `${NOT_FOUND}; or no such recipient on it`,
          409: 'A draft, or a recipient who gets their link by Email, Sms or WhatsApp',
        },
      }),
    )
    .input(SigningLinkParams)
    .output(SigningLinkView)
    .mutation(({ ctx, input }) =>
      issueDocumentSigningLink(ctx.services, readerOf(ctx), input.id, input.recipientId),
    ),
});

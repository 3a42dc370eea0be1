// The send page's routes (docs/documents.md, "Sending"; docs/app-api.md): an envelope from a published
// template or from a one-off PDF, sent at once or kept as a Draft, created with the signed-in user as its
// sender; and storing the one-off PDF first. The bodies are /api/v1's create requests plus `draft`
// (domain/sending.ts), validated the same way. The creations honour Idempotency-Key (a double click sends
// once). All need documents:manage.
import { DocumentDetail } from '../../../domain/document.ts';
import {
  SendDefaults,
  SendFileView,
  SendFromFileRequest,
  SendFromTemplateRequest,
  UploadSendFileRequest,
} from '../../../domain/sending.ts';
import {
  sendDefaults,
  sendFromFile,
  sendFromTemplate,
  uploadSendFile,
} from '../../../services/documents/send-document.ts';
import { areaRoute, type BodyLimit, principalOf, procedure, router } from '../init.ts';

const route = areaRoute('documents');
const CREATED =
  'The envelope as GET /api/documents/{id} answers it: a Draft with `draft: true`, else sent (its workflow ' +
  'started, the first round invited). Honours Idempotency-Key: the send page sends one per page load, so a ' +
  'double click creates one envelope.';
const CONFLICTS =
  'The organization cannot send it now (`insufficient_sms_credits`…), or `idempotency_key_reused` / ' +
  '`idempotency_request_in_progress` for a reused or running Idempotency-Key';
/** A PDF of 25 MB is about 33.4 MB in base64, in the JSON body. */
const PDF_BODY: BodyLimit = {
  bytes: 34 * 1024 * 1024,
  purpose: 'the most a PDF to send may take (25 MB, in base64)',
};

export const sendingRouter = router({
  defaults: procedure
    .meta(
      route('GET', '/api/documents/send-defaults', {
        summary: 'What the send page prefills from the organization’s settings',
        description:
          'The default expiration (days from sending), the default authentication and the languages of the ' +
          'organization (docs/administration.md), for a sender who may not read its settings.',
        access: 'documents:manage',
      }),
    )
    .output(SendDefaults)
    .query(({ ctx }) => sendDefaults(principalOf(ctx))),

  fromTemplate: procedure
    .meta(
      route('POST', '/api/documents/send-from-template', {
        summary: 'Send (or save as a Draft) an envelope from a published template',
        description:
          `The body is POST /api/v1/envelopes/from-template's, checked the same way (400 naming the field), ` +
          `with \`draft\`. ${CREATED}`,
        access: 'documents:manage',
        idempotent: true,
        errors: { 404: 'No such published template in this organization', 409: CONFLICTS },
      }),
    )
    .input(SendFromTemplateRequest)
    .output(DocumentDetail)
    .mutation(({ ctx, input }) => sendFromTemplate(ctx.services, principalOf(ctx), input)),

  fromFile: procedure
    .meta(
      route('POST', '/api/documents/send-from-file', {
        summary: 'Send (or save as a Draft) an envelope from a one-off PDF and fields placed on it',
        description:
          'The body is POST /api/v1/envelopes/from-file’s, checked the same way (400 naming the field), with ' +
          `\`draft\`; \`fileId\` comes from POST /api/documents/files. ${CREATED}`,
        access: 'documents:manage',
        idempotent: true,
        errors: { 404: 'No such file in this organization', 409: CONFLICTS },
      }),
    )
    .input(SendFromFileRequest)
    .output(DocumentDetail)
    .mutation(({ ctx, input }) => sendFromFile(ctx.services, principalOf(ctx), input)),

  uploadFile: procedure
    .meta(
      route('POST', '/api/documents/files', {
        summary: 'Store a one-off PDF to send',
        description:
          'The PDF in base64, checked as every stored PDF is (400 naming `body.pdfBase64`): its id for ' +
          'POST /api/documents/send-from-file, and its pages’ sizes for placing fields.',
        access: 'documents:manage',
        bodyLimit: PDF_BODY,
      }),
    )
    .input(UploadSendFileRequest)
    .output(SendFileView)
    .mutation(({ ctx, input }) => uploadSendFile(ctx.services, principalOf(ctx), input)),
});

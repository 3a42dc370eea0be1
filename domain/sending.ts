// Sending from the business app (docs/documents.md, "Sending"): the send page's requests. They are /api/v1's
// create requests (domain/envelope.ts) — the same fields, rules and messages — with `draft` on top: save the
// envelope as a Draft, or send it at once. A one-off PDF is stored first (POST /api/documents/files) and its
// id used as /api/v1's from-file request uses an uploaded file's. No `.meta({ id })`: the application routes'
// schemas stay out of /api/v1's document (docs/app-api.md).
import { z } from 'zod';
import { strictly, uuidOf } from './common.ts';
import {
  CreateEnvelopeFromFileRequest,
  CreateEnvelopeRequest,
  EnvelopeView,
  NewRecipient,
  UpdateDraftRequest,
} from './envelope.ts';
import { DeadlineSettings } from './envelope-settings.ts';
import { CreateTemplateRequest } from './template-builder.ts';
import { AUTHENTICATION_METHODS } from './vocabulary.ts';

const Draft = z
  .boolean()
  .default(false)
  .describe('true: keep the envelope as a Draft (nothing is sent); false (default): send it at once');

// Strict at every depth, as every application body is (a field they do not define is a 400 naming it);
// /api/v1's own requests keep ignoring unknown fields.
export const SendFromTemplateRequest = strictly(CreateEnvelopeRequest.extend({ draft: Draft }));
export type SendFromTemplateRequest = z.input<typeof SendFromTemplateRequest>;

export const SendFromFileRequest = strictly(CreateEnvelopeFromFileRequest.extend({ draft: Draft }));
export type SendFromFileRequest = z.input<typeof SendFromFileRequest>;

/** A one-off PDF for the send page, in base64 as a template's PDF is (at most 25 MB, checked the same way). */
export const UploadSendFileRequest = CreateTemplateRequest.pick({ filename: true, pdfBase64: true });
export type UploadSendFileRequest = z.input<typeof UploadSendFileRequest>;

export const SendFileView = z.object({
  fileId: z.uuid(),
  filename: z.string(),
  pageCount: z.number().int(),
  pages: z
    .array(z.object({ width: z.number(), height: z.number() }))
    .describe('Each page’s size in PDF points as displayed: where fields may lie'),
});
export type SendFileView = z.output<typeof SendFileView>;

/** What the send page prefills from the organization's settings (docs/administration.md). */
export const SendDefaults = z.object({
  expirationDays: z
    .number()
    .int()
    .describe('Days from sending to the deadline: the organization’s default expiration, else 30'),
  authenticationMethod: z
    .enum(AUTHENTICATION_METHODS)
    .describe(
      'The organization’s default authentication (a one-time code applies to recipients with a phone)',
    ),
  languages: z.array(z.string()).describe('The languages recipients may be given'),
  deadlineSettings: DeadlineSettings.describe(
    'The organization’s reminder and deadline settings, which a new envelope takes unless the page gives its own',
  ),
});
export type SendDefaults = z.output<typeof SendDefaults>;

/**
 * A Draft as its edit page fills the send page's parts (GET /api/documents/{id}/draft): what its create took, as
 * stored — the envelope's view without what only a sent envelope has, its recipients as a create writes them.
 */
export const DraftDocument = EnvelopeView.pick({
  id: true,
  title: true,
  workflowType: true,
  templateId: true,
  sourceFileId: true,
  expiresAt: true,
  externalReference: true,
  externalSystem: true,
  externalMetadataJson: true,
  allowDelegation: true,
  deadlineSettings: true,
  initialValues: true,
}).extend({ recipients: z.array(NewRecipient).describe('In signing order') });
export type DraftDocument = z.output<typeof DraftDocument>;

/** A Draft's edit from the business app (PATCH /api/documents/{id}): /api/v1's edit, strict, with the path's id. */
export const EditDraftRequest = strictly(UpdateDraftRequest.extend({ id: uuidOf('id') }));
export type EditDraftRequest = z.input<typeof EditDraftRequest>;

// The envelope operations of the public API behind one interface, with two implementations chosen once per
// request: production (PostgreSQL and the envelope's workflow, this file) and sandbox (synthetic envelopes,
// services/sandbox/sandbox-envelope-operations.ts). Every operation answers with the envelope as it is
// afterwards, in the API's shape.
import type {
  CreateEnvelopeFromFileRequest,
  CreateEnvelopeRequest,
  EnvelopeView,
  ExtendEnvelopeRequest,
  RecipientView,
  UpdateDraftRequest,
} from '../../domain/envelope.ts';
import type { ServiceContext } from '../context.ts';
import { cancelEnvelope } from './cancel-envelope.ts';
import { correctRecipient } from './correct-recipient.ts';
import { createEnvelopeFromFileView, createEnvelopeView } from './create-envelope.ts';
import {
  type DocumentContent,
  type EnvelopeDocument,
  envelopeDocument,
  envelopeFile,
} from './envelope-document.ts';
import { envelopeView, recipientView } from './envelope-view.ts';
import { extendEnvelope } from './extend-envelope.ts';
import { findEnvelope } from './find-envelope.ts';
import { findEnvelopeIdByReference } from './find-envelope-by-reference.ts';
import { remindEnvelope } from './remind-envelope.ts';
import { remindRecipient } from './remind-recipient.ts';
import { sendEnvelope } from './send-envelope.ts';
import { updateDraft } from './update-draft.ts';
import { updateEnvelopeSettings } from './update-envelope-settings.ts';

export interface EnvelopeOperations {
  create(organizationId: string, request: CreateEnvelopeRequest): Promise<EnvelopeView>;
  /** A Draft from an uploaded file and the fields placed on it. */
  createFromFile(organizationId: string, request: CreateEnvelopeFromFileRequest): Promise<EnvelopeView>;
  get(organizationId: string, envelopeId: string): Promise<EnvelopeView>;
  /** The most recent envelope with the integrator's reference. */
  getByReference(organizationId: string, externalReference: string): Promise<EnvelopeView>;
  recipients(organizationId: string, envelopeId: string): Promise<RecipientView[]>;
  /** Edits a Draft: what the request gives replaces the Draft's (update-draft.ts). */
  updateDraft(organizationId: string, envelopeId: string, request: UpdateDraftRequest): Promise<EnvelopeView>;
  send(organizationId: string, envelopeId: string): Promise<EnvelopeView>;
  remind(organizationId: string, envelopeId: string): Promise<EnvelopeView>;
  /** Reminds one recipient who may act now. */
  remindRecipient(organizationId: string, envelopeId: string, recipientId: string): Promise<EnvelopeView>;
  /** Corrects a recipient who has not completed (the body: CorrectRecipientRequest). */
  correctRecipient(
    organizationId: string,
    envelopeId: string,
    recipientId: string,
    body: unknown,
  ): Promise<EnvelopeView>;
  cancel(organizationId: string, envelopeId: string, reason?: string): Promise<EnvelopeView>;
  extend(organizationId: string, envelopeId: string, request: ExtendEnvelopeRequest): Promise<EnvelopeView>;
  /** Changes the reminder and deadline settings (the body: UpdateDeadlineSettingsRequest). */
  updateSettings(organizationId: string, envelopeId: string, body: unknown): Promise<EnvelopeView>;
  /** The final PDF or the audit trail; "not found" until it exists. */
  document(organizationId: string, envelopeId: string, document: EnvelopeDocument): Promise<DocumentContent>;
  /** The PDF the envelope was made from (its uploaded file, or its template's PDF), whatever its status. */
  original(organizationId: string, envelopeId: string): Promise<DocumentContent>;
}

/** Real envelopes: rows in PostgreSQL, every change after the draft decided by the envelope's workflow. */
export function productionEnvelopes(ctx: ServiceContext): EnvelopeOperations {
  return {
    // The statement that writes the envelope also reads its view (no second statement).
    create: (organizationId, request) => createEnvelopeView(ctx, { ...request, organizationId }),
    createFromFile: (organizationId, request) =>
      createEnvelopeFromFileView(ctx, { ...request, organizationId }),
    get: (organizationId, envelopeId) => envelopeView(ctx, organizationId, envelopeId),
    async getByReference(organizationId, externalReference) {
      const id = await findEnvelopeIdByReference(ctx, organizationId, externalReference);
      return envelopeView(ctx, organizationId, id);
    },
    async recipients(organizationId, envelopeId) {
      const { recipients } = await findEnvelope(ctx, organizationId, envelopeId);
      return recipients.map(recipientView);
    },
    updateDraft: (organizationId, envelopeId, request) =>
      updateDraft(ctx, organizationId, envelopeId, request),
    async send(organizationId, envelopeId) {
      await sendEnvelope(ctx, organizationId, envelopeId);
      return envelopeView(ctx, organizationId, envelopeId);
    },
    async remind(organizationId, envelopeId) {
      await remindEnvelope(ctx, organizationId, envelopeId);
      return envelopeView(ctx, organizationId, envelopeId);
    },
    async remindRecipient(organizationId, envelopeId, recipientId) {
      await remindRecipient(ctx, organizationId, envelopeId, recipientId);
      return envelopeView(ctx, organizationId, envelopeId);
    },
    async correctRecipient(organizationId, envelopeId, recipientId, body) {
      await correctRecipient(ctx, organizationId, envelopeId, recipientId, body);
      return envelopeView(ctx, organizationId, envelopeId);
    },
    async cancel(organizationId, envelopeId, reason) {
      await cancelEnvelope(ctx, organizationId, envelopeId, reason);
      return envelopeView(ctx, organizationId, envelopeId);
    },
    async extend(organizationId, envelopeId, request) {
      await extendEnvelope(ctx, organizationId, envelopeId, request);
      return envelopeView(ctx, organizationId, envelopeId);
    },
    async updateSettings(organizationId, envelopeId, body) {
      await updateEnvelopeSettings(ctx, organizationId, envelopeId, body);
      return envelopeView(ctx, organizationId, envelopeId);
    },
    document: (organizationId, envelopeId, document) =>
      envelopeDocument(ctx, organizationId, envelopeId, document),
    original: (organizationId, envelopeId) => envelopeFile(ctx, organizationId, envelopeId, 'source'),
  };
}

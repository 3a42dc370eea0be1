// The sandbox implementation of the envelope operations (services/envelopes/envelope-operations.ts):
// synthetic envelopes of `sandbox_envelope`, validated exactly as production, contacting nobody.

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { DataContext, FilesContext } from '../context.ts';
import { type DocumentContent, sourceDocument } from '../envelopes/envelope-document.ts';
import type { EnvelopeOperations } from '../envelopes/envelope-operations.ts';
import {
  cancelSandboxEnvelope,
  correctSandboxRecipient,
  createSandboxEnvelope,
  createSandboxEnvelopeFromFile,
  extendSandboxEnvelope,
  findSandboxEnvelope,
  findSandboxEnvelopeByReference,
  remindSandboxEnvelope,
  remindSandboxRecipient,
  sandboxArtifact,
  sendSandboxEnvelope,
  updateSandboxEnvelopeSettings,
} from './sandbox-envelopes.ts';
import { updateSandboxDraft } from './update-sandbox-draft.ts';

/** Bytes in memory (the sandbox's sample PDFs) as a document's content. */
function inMemory(bytes: Uint8Array): DocumentContent {
  return {
    content: Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]),
    sizeBytes: bytes.byteLength,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

export function sandboxEnvelopes(ctx: DataContext & FilesContext): EnvelopeOperations {
  return {
    create: (organizationId, request) => createSandboxEnvelope(ctx, { ...request, organizationId }),
    createFromFile: (organizationId, request) =>
      createSandboxEnvelopeFromFile(ctx, { ...request, organizationId }),
    get: (organizationId, envelopeId) => findSandboxEnvelope(ctx, organizationId, envelopeId),
    getByReference: (organizationId, externalReference) =>
      findSandboxEnvelopeByReference(ctx, organizationId, externalReference),
    recipients: async (organizationId, envelopeId) =>
      (await findSandboxEnvelope(ctx, organizationId, envelopeId)).recipients,
    updateDraft: (organizationId, envelopeId, request) =>
      updateSandboxDraft(ctx, organizationId, envelopeId, request),
    send: (organizationId, envelopeId) => sendSandboxEnvelope(ctx, organizationId, envelopeId),
    remind: (organizationId, envelopeId) => remindSandboxEnvelope(ctx, organizationId, envelopeId),
    remindRecipient: (organizationId, envelopeId, recipientId) =>
      remindSandboxRecipient(ctx, organizationId, envelopeId, recipientId),
    correctRecipient: (organizationId, envelopeId, recipientId, body) =>
      correctSandboxRecipient(ctx, organizationId, envelopeId, recipientId, body),
    cancel: (organizationId, envelopeId) => cancelSandboxEnvelope(ctx, organizationId, envelopeId),
    extend: (organizationId, envelopeId, request) =>
      extendSandboxEnvelope(ctx, organizationId, envelopeId, request),
    updateSettings: (organizationId, envelopeId, body) =>
      updateSandboxEnvelopeSettings(ctx, organizationId, envelopeId, body),
    document: async (organizationId, envelopeId, document) =>
      inMemory(await sandboxArtifact(ctx, organizationId, envelopeId, document)),
    // A synthetic envelope is made from the organization's real template or upload: its original is that PDF.
    original: async (organizationId, envelopeId) =>
      sourceDocument(ctx, {
        ...(await findSandboxEnvelope(ctx, organizationId, envelopeId)),
        organizationId,
      }),
  };
}

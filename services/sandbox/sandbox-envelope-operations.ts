// The sandbox implementation of the envelope operations (services/envelopes/envelope-operations.ts):
// synthetic envelopes of `sandbox_envelope`, validated exactly as production, contacting nobody.

import type { DataContext } from '../context.ts';
import type { EnvelopeOperations } from '../envelopes/envelope-operations.ts';
import {
  cancelSandboxEnvelope,
  createSandboxEnvelope,
  createSandboxEnvelopeFromFile,
  extendSandboxEnvelope,
  findSandboxEnvelope,
  findSandboxEnvelopeByReference,
  remindSandboxEnvelope,
  sandboxArtifact,
  sendSandboxEnvelope,
} from './sandbox-envelopes.ts';

export function sandboxEnvelopes(ctx: DataContext): EnvelopeOperations {
  return {
    create: (organizationId, request) => createSandboxEnvelope(ctx, { ...request, organizationId }),
    createFromFile: (organizationId, request) =>
      createSandboxEnvelopeFromFile(ctx, { ...request, organizationId }),
    get: (organizationId, envelopeId) => findSandboxEnvelope(ctx, organizationId, envelopeId),
    getByReference: (organizationId, externalReference) =>
      findSandboxEnvelopeByReference(ctx, organizationId, externalReference),
    recipients: async (organizationId, envelopeId) =>
      (await findSandboxEnvelope(ctx, organizationId, envelopeId)).recipients,
    send: (organizationId, envelopeId) => sendSandboxEnvelope(ctx, organizationId, envelopeId),
    remind: (organizationId, envelopeId) => remindSandboxEnvelope(ctx, organizationId, envelopeId),
    cancel: (organizationId, envelopeId) => cancelSandboxEnvelope(ctx, organizationId, envelopeId),
    extend: (organizationId, envelopeId, request) =>
      extendSandboxEnvelope(ctx, organizationId, envelopeId, request),
    document: (organizationId, envelopeId, document) =>
      sandboxArtifact(ctx, organizationId, envelopeId, document),
  };
}

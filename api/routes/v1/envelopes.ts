import { z } from 'zod';
import {
  AUTHENTICATION_METHODS,
  DELIVERY_CHANNELS,
  ENVELOPE_STATUSES,
  RECIPIENT_STATUSES,
  RECIPIENT_TYPES,
  WORKFLOW_TYPES,
} from '../../../domain/vocabulary.ts';
import { principalOf } from '../../auth/principal.ts';
import { inSandbox, SandboxHeaders } from '../../plugins/sandbox.ts';
import type { ServiceContext } from '../../services/context.ts';
import { cancelEnvelope } from '../../services/envelopes/cancel-envelope.ts';
import { CreateEnvelopeBody, createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { envelopeDocument } from '../../services/envelopes/envelope-document.ts';
import { envelopeView, recipientView } from '../../services/envelopes/envelope-view.ts';
import { ExtendEnvelopeInput, extendEnvelope } from '../../services/envelopes/extend-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { findEnvelopeIdByReference } from '../../services/envelopes/find-envelope-by-reference.ts';
import { remindEnvelope } from '../../services/envelopes/remind-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import {
  cancelSandboxEnvelope,
  createSandboxEnvelope,
  extendSandboxEnvelope,
  findSandboxEnvelope,
  findSandboxEnvelopeByReference,
  remindSandboxEnvelope,
  sandboxArtifact,
  sendSandboxEnvelope,
} from '../../services/sandbox/sandbox-envelopes.ts';
import { issueRecipientSigningLink } from '../../services/signing/issue-signing-links.ts';
import { ERROR_RESPONSES, IsoDateTime, UuidParam } from './schemas.ts';
import type { V1Routes } from './types.ts';

const RecipientParams = z.object({
  id: z.uuid({ message: 'id must be a uuid' }),
  recipientId: z.uuid({ message: 'recipientId must be a uuid' }),
});

const SigningLinkResponse = z
  .object({
    recipientId: z.uuid(),
    deliveryChannel: z.enum(['Api', 'ManualLink']),
    url: z
      .url()
      .describe('The signing link; treat it as a secret: whoever holds it can act as the recipient'),
  })
  .meta({ id: 'SigningLink' });

export const RecipientResponse = z
  .object({
    id: z.uuid(),
    roleName: z.string(),
    fullName: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    signingOrder: z.number().int(),
    deliveryChannel: z.enum(DELIVERY_CHANNELS),
    authenticationMethod: z.enum(AUTHENTICATION_METHODS),
    type: z.enum(RECIPIENT_TYPES),
    language: z.string().nullable(),
    required: z.boolean().describe('Whether the envelope waits for this recipient to complete'),
    status: z.enum(RECIPIENT_STATUSES),
    completedAt: IsoDateTime.nullable(),
  })
  .meta({ id: 'Recipient' });

export const EnvelopeResponse = z
  .object({
    id: z.uuid(),
    status: z.enum(ENVELOPE_STATUSES),
    title: z.string(),
    workflowType: z.enum(WORKFLOW_TYPES),
    templateId: z.uuid().nullable(),
    expiresAt: IsoDateTime.nullable(),
    externalReference: z.string().nullable(),
    externalSystem: z.string().nullable(),
    externalMetadataJson: z.string().nullable(),
    finalPdfFileId: z.uuid().nullable().describe('Empty until the final PDF exists'),
    auditTrailFileId: z.uuid().nullable().describe('Empty until the audit trail exists'),
    reminderCount: z.number().int(),
    recipients: z.array(RecipientResponse),
    initialValues: z.array(z.object({ fieldDefinitionId: z.uuid(), value: z.unknown() })),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
    sentAt: IsoDateTime.nullable(),
    completedAt: IsoDateTime.nullable(),
  })
  .meta({ id: 'Envelope' });

const CreateEnvelopeRequest = CreateEnvelopeBody.meta({ id: 'CreateEnvelopeRequest' });
const CancelBody = z
  .object({ reason: z.string().trim().min(1).max(500).optional() })
  .nullish()
  .meta({ id: 'CancelEnvelopeRequest' });
const ExtendBody = ExtendEnvelopeInput.meta({ id: 'ExtendEnvelopeRequest' });
const PdfBytes = z.string().meta({ format: 'binary', description: 'PDF bytes (application/pdf)' });

const envelopeResponses = { 200: EnvelopeResponse, ...ERROR_RESPONSES };
const SANDBOX_NOTE =
  ' With `X-Service-Sandbox: true`: the same on a synthetic envelope (nothing is sent or stored as production).';

export const envelopesRoutes: V1Routes = async (app, deps) => {
  const ctx = (): ServiceContext => {
    if (!deps.temporal.client) throw new Error('the API needs a Temporal client for envelope operations');
    return { orm: deps.orm, temporal: deps.temporal.client, config: deps.config };
  };

  app.post(
    '/envelopes/from-template',
    {
      config: { scope: 'envelopes.write', idempotent: true, sandbox: true },
      schema: {
        summary: 'Create a Draft envelope from a published template',
        description:
          'Recipients are mapped to template roles by roleName; every required role needs a recipient. ' +
          'At most one entry in documents is accepted (and none together with a template). Honours Idempotency-Key.' +
          ' With `X-Service-Sandbox: true`: validated the same way, answered with a synthetic Draft envelope; ' +
          'nothing is created in production and no quota is used.',
        tags: ['envelopes'],
        headers: SandboxHeaders,
        body: CreateEnvelopeRequest,
        response: { 201: EnvelopeResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      if (inSandbox(request)) {
        return reply.code(201).send(await createSandboxEnvelope(deps, { ...request.body, organizationId }));
      }
      const envelope = await createEnvelope(
        { orm: deps.orm, temporal: deps.temporal.client },
        { ...request.body, organizationId },
      );
      return reply.code(201).send(await envelopeView(deps, organizationId, envelope.id));
    },
  );

  app.get(
    '/envelopes/:id',
    {
      config: { scope: 'envelopes.read', sandbox: true },
      schema: {
        summary: 'Envelope detail',
        description: `The envelope.${SANDBOX_NOTE}`,
        tags: ['envelopes'],
        headers: SandboxHeaders,
        params: UuidParam,
        response: envelopeResponses,
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      if (inSandbox(request)) return findSandboxEnvelope(deps, organizationId, request.params.id);
      return envelopeView(deps, organizationId, request.params.id);
    },
  );

  app.get(
    '/envelopes/by-external-reference/:externalReference',
    {
      config: { scope: 'envelopes.read', sandbox: true },
      schema: {
        summary: 'Envelope found by the integrator’s externalReference (the most recent one)',
        description: `Meant for recovery after a timeout on create.${SANDBOX_NOTE}`,
        tags: ['envelopes'],
        headers: SandboxHeaders,
        params: z.object({ externalReference: z.string().min(1).max(200) }),
        response: envelopeResponses,
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      if (inSandbox(request)) {
        return findSandboxEnvelopeByReference(deps, organizationId, request.params.externalReference);
      }
      const id = await findEnvelopeIdByReference(deps, organizationId, request.params.externalReference);
      return envelopeView(deps, organizationId, id);
    },
  );

  app.get(
    '/envelopes/:id/recipients',
    {
      config: { scope: 'envelopes.read', sandbox: true },
      schema: {
        summary: 'Recipients of the envelope',
        description: `The envelope's recipients.${SANDBOX_NOTE}`,
        tags: ['envelopes'],
        headers: SandboxHeaders,
        params: UuidParam,
        response: { 200: z.array(RecipientResponse), ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      if (inSandbox(request)) {
        return (await findSandboxEnvelope(deps, organizationId, request.params.id)).recipients;
      }
      const { recipients } = await findEnvelope(deps, organizationId, request.params.id);
      return recipients.map(recipientView);
    },
  );

  app.post(
    '/envelopes/:id/recipients/:recipientId/signing-link',
    {
      config: { scope: 'envelopes.write' },
      schema: {
        tags: ['envelopes'],
        summary: 'Issue a signing link for an Api or ManualLink recipient',
        description:
          'Recipients whose `deliveryChannel` is `Api` or `ManualLink` get no message: this returns a fresh link `{base_url}/sign/<token>` to hand over or open in your application, and revokes their earlier links. The link works while the recipient can act. Refused with 409 for a Draft envelope or a recipient reached by Email, Sms or WhatsApp. Not available in sandbox.',
        params: RecipientParams,
        response: { 200: SigningLinkResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      const link = await issueRecipientSigningLink(
        deps,
        organizationId,
        request.params.id,
        request.params.recipientId,
      );
      return {
        recipientId: link.recipientId,
        deliveryChannel: link.deliveryChannel as 'Api' | 'ManualLink',
        url: link.url,
      };
    },
  );

  const operation = {
    config: { scope: 'envelopes.write' as const, idempotent: true, sandbox: true },
    schema: { tags: ['envelopes'], headers: SandboxHeaders, params: UuidParam, response: envelopeResponses },
  };

  app.post(
    '/envelopes/:id/send',
    {
      ...operation,
      schema: {
        ...operation.schema,
        summary: 'Send a Draft envelope',
        description: `Starts the envelope’s workflow. Sending again answers with the current state.${SANDBOX_NOTE}`,
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      if (inSandbox(request)) return sendSandboxEnvelope(deps, organizationId, request.params.id);
      await sendEnvelope(ctx(), organizationId, request.params.id);
      return envelopeView(deps, organizationId, request.params.id);
    },
  );

  app.post(
    '/envelopes/:id/remind',
    {
      ...operation,
      schema: {
        ...operation.schema,
        summary: 'Remind the recipients who may act now',
        description: `Records a reminder (reminderCount) for the recipients in turn. No request body.${SANDBOX_NOTE}`,
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      if (inSandbox(request)) return remindSandboxEnvelope(deps, organizationId, request.params.id);
      await remindEnvelope(ctx(), organizationId, request.params.id);
      return envelopeView(deps, organizationId, request.params.id);
    },
  );

  app.post(
    '/envelopes/:id/cancel',
    {
      ...operation,
      schema: {
        ...operation.schema,
        summary: 'Cancel an envelope in progress',
        description: `Optional body \`{ "reason": "…" }\`. Old signing links can no longer complete.${SANDBOX_NOTE}`,
        body: CancelBody,
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      if (inSandbox(request)) return cancelSandboxEnvelope(deps, organizationId, request.params.id);
      await cancelEnvelope(ctx(), organizationId, request.params.id, request.body?.reason);
      return envelopeView(deps, organizationId, request.params.id);
    },
  );

  app.post(
    '/envelopes/:id/extend',
    {
      ...operation,
      schema: {
        ...operation.schema,
        summary: 'Move the signing deadline later',
        description: `Body \`{ "expiresAt": "<ISO 8601>" }\`, in the future and later than the current deadline.${SANDBOX_NOTE}`,
        body: ExtendBody,
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      if (inSandbox(request)) {
        return extendSandboxEnvelope(deps, organizationId, request.params.id, request.body);
      }
      await extendEnvelope(ctx(), organizationId, request.params.id, request.body);
      return envelopeView(deps, organizationId, request.params.id);
    },
  );

  const documents = [
    { document: 'final-pdf', file: 'final', summary: 'Download the final signed PDF', what: 'the final PDF' },
    {
      document: 'audit-trail',
      file: 'audit-trail',
      summary: 'Download the audit-trail PDF',
      what: 'the audit trail',
    },
  ] as const;
  for (const { document, file, summary, what } of documents) {
    app.get(
      `/envelopes/:id/documents/${document}`,
      {
        config: { scope: 'envelopes.read', sandbox: true },
        schema: {
          summary,
          description:
            `PDF bytes, no redirect; 404 until ${what} exists. With \`X-Service-Sandbox: true\`: a fixed ` +
            'sample PDF once the synthetic envelope is Completed, 404 before.',
          tags: ['envelopes'],
          headers: SandboxHeaders,
          params: UuidParam,
          produces: ['application/pdf'],
          response: { 200: PdfBytes, ...ERROR_RESPONSES },
        },
      },
      async (request, reply) => {
        const { organizationId } = principalOf(request);
        const bytes = inSandbox(request)
          ? await sandboxArtifact(deps, organizationId, request.params.id, document)
          : await envelopeDocument(deps, organizationId, request.params.id, document);
        return (
          reply
            .header('Content-Type', 'application/pdf')
            .header('Content-Disposition', `attachment; filename="${request.params.id}-${file}.pdf"`)
            // A Buffer goes out as it is (no serializer); the schema above documents it as binary.
            .send(Buffer.from(bytes) as unknown as string)
        );
      },
    );
  }
};

// /api/v1/envelopes: create from a template, read, and the operations that the envelope's workflow decides.
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { StoredFile } from '../../../db/entities/index.ts';
import {
  AUTHENTICATION_METHODS,
  DELIVERY_CHANNELS,
  ENVELOPE_STATUSES,
  RECIPIENT_STATUSES,
  RECIPIENT_TYPES,
  WORKFLOW_TYPES,
} from '../../../workflows/domain.ts';
import { principalOf } from '../../auth/principal.ts';
import { NotFound } from '../../errors.ts';
import type { ServiceContext } from '../../services/context.ts';
import { cancelEnvelope } from '../../services/envelopes/cancel-envelope.ts';
import { CreateEnvelopeBody, createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { envelopeView, recipientView } from '../../services/envelopes/envelope-view.ts';
import { ExtendEnvelopeInput, extendEnvelope } from '../../services/envelopes/extend-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { findEnvelopeIdByReference } from '../../services/envelopes/find-envelope-by-reference.ts';
import { remindEnvelope } from '../../services/envelopes/remind-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { ERROR_RESPONSES, IsoDateTime, UuidParam } from './schemas.ts';
import type { V1Routes } from './types.ts';

const RecipientResponse = z
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

const EnvelopeResponse = z
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

export const envelopesRoutes: V1Routes = async (app, deps) => {
  const ctx = (): ServiceContext => {
    if (!deps.temporal.client) throw new Error('the API needs a Temporal client for envelope operations');
    return { orm: deps.orm, temporal: deps.temporal.client, config: deps.config };
  };

  app.post(
    '/envelopes/from-template',
    {
      config: { scope: 'envelopes.write', idempotent: true },
      schema: {
        summary: 'Create a Draft envelope from a published template',
        description:
          'Recipients are mapped to template roles by roleName; every required role needs a recipient. ' +
          'At most one entry in documents is accepted (and none together with a template). Honours Idempotency-Key.',
        tags: ['envelopes'],
        body: CreateEnvelopeRequest,
        response: { 201: EnvelopeResponse, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      const envelope = await createEnvelope(deps, { ...request.body, organizationId });
      return reply.code(201).send(await envelopeView(deps, organizationId, envelope.id));
    },
  );

  app.get(
    '/envelopes/:id',
    {
      config: { scope: 'envelopes.read' },
      schema: {
        summary: 'Envelope detail',
        tags: ['envelopes'],
        params: UuidParam,
        response: envelopeResponses,
      },
    },
    async (request) => envelopeView(deps, principalOf(request).organizationId, request.params.id),
  );

  app.get(
    '/envelopes/by-external-reference/:externalReference',
    {
      config: { scope: 'envelopes.read' },
      schema: {
        summary: 'Envelope found by the integrator’s externalReference (the most recent one)',
        description: 'Meant for recovery after a timeout on create.',
        tags: ['envelopes'],
        params: z.object({ externalReference: z.string().min(1).max(200) }),
        response: envelopeResponses,
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      const id = await findEnvelopeIdByReference(deps, organizationId, request.params.externalReference);
      return envelopeView(deps, organizationId, id);
    },
  );

  app.get(
    '/envelopes/:id/recipients',
    {
      config: { scope: 'envelopes.read' },
      schema: {
        summary: 'Recipients of the envelope',
        tags: ['envelopes'],
        params: UuidParam,
        response: { 200: z.array(RecipientResponse), ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { recipients } = await findEnvelope(deps, principalOf(request).organizationId, request.params.id);
      return recipients.map(recipientView);
    },
  );

  const operation = {
    config: { scope: 'envelopes.write' as const, idempotent: true },
    schema: { tags: ['envelopes'], params: UuidParam, response: envelopeResponses },
  };

  app.post(
    '/envelopes/:id/send',
    {
      ...operation,
      schema: {
        ...operation.schema,
        summary: 'Send a Draft envelope',
        description: 'Starts the envelope’s workflow. Sending again answers with the current state.',
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
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
        description: 'Records a reminder (reminderCount) for the recipients in turn. No request body.',
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
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
        description: 'Optional body `{ "reason": "…" }`. Old signing links can no longer complete.',
        body: CancelBody,
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
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
        description:
          'Body `{ "expiresAt": "<ISO 8601>" }`, in the future and later than the current deadline.',
        body: ExtendBody,
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      await extendEnvelope(ctx(), organizationId, request.params.id, request.body);
      return envelopeView(deps, organizationId, request.params.id);
    },
  );

  const download = (artifact: 'finalPdfFileId' | 'auditTrailFileId', what: string) =>
    async function sendArtifact(
      request: { params: { id: string }; principal?: unknown },
      reply: FastifyReply,
    ) {
      const { organizationId } = principalOf(request as Parameters<typeof principalOf>[0]);
      const { envelope } = await findEnvelope(deps, organizationId, request.params.id);
      const fileId = envelope[artifact];
      if (!fileId)
        throw new NotFound(
          `The ${what} of envelope ${envelope.id} is not ready (status ${envelope.status}).`,
        );
      const file = await deps.orm.em
        .fork()
        .findOne(StoredFile, { id: fileId, organizationId }, { populate: ['content'] });
      if (!file) throw new NotFound(`The ${what} of envelope ${envelope.id} is not ready.`);
      return reply
        .header('Content-Type', 'application/pdf')
        .header(
          'Content-Disposition',
          `attachment; filename="${envelope.id}-${artifact === 'finalPdfFileId' ? 'final' : 'audit-trail'}.pdf"`,
        )
        .send(Buffer.from(file.content));
    };

  app.get(
    '/envelopes/:id/documents/final-pdf',
    {
      config: { scope: 'envelopes.read' },
      schema: {
        summary: 'Download the final signed PDF',
        description: 'PDF bytes, no redirect; 404 until the final PDF exists.',
        tags: ['envelopes'],
        params: UuidParam,
        produces: ['application/pdf'],
        response: { 200: PdfBytes, ...ERROR_RESPONSES },
      },
    },
    download('finalPdfFileId', 'final PDF'),
  );

  app.get(
    '/envelopes/:id/documents/audit-trail',
    {
      config: { scope: 'envelopes.read' },
      schema: {
        summary: 'Download the audit-trail PDF',
        description: 'PDF bytes, no redirect; 404 until the audit trail exists.',
        tags: ['envelopes'],
        params: UuidParam,
        produces: ['application/pdf'],
        response: { 200: PdfBytes, ...ERROR_RESPONSES },
      },
    },
    download('auditTrailFileId', 'audit trail'),
  );
};

import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  CancelEnvelopeRequest,
  CreateEnvelopeFromFileRequest,
  CreateEnvelopeRequest,
  EnvelopeView,
  ExtendEnvelopeRequest,
  ExternalReferenceParams,
  RecipientView,
} from '../../../domain/envelope.ts';
import {
  type EnvelopeOperations,
  productionEnvelopes,
} from '../../../services/envelopes/envelope-operations.ts';
import { sandboxEnvelopes } from '../../../services/sandbox/sandbox-envelope-operations.ts';
import { issueRecipientSigningLink } from '../../../services/signing/issue-signing-links.ts';
import { principalOf } from '../../auth/principal.ts';
import { inSandbox, SandboxHeaders } from '../../plugins/sandbox.ts';
import { ERROR_RESPONSES, UuidParam } from './schemas.ts';
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

const PdfBytes = z.string().meta({ format: 'binary', description: 'PDF bytes (application/pdf)' });

/** The implementation serving this request: sandbox for `X-Service-Sandbox: true` on a route honouring it. */
function envelopesFor(request: FastifyRequest): EnvelopeOperations {
  return inSandbox(request) ? sandboxEnvelopes(request.services) : productionEnvelopes(request.services);
}

const envelopeResponses = { 200: EnvelopeView, ...ERROR_RESPONSES };
const SANDBOX_NOTE =
  ' With `X-Service-Sandbox: true`: the same on a synthetic envelope (nothing is sent or stored as production).';

export const envelopesRoutes: V1Routes = async (app) => {
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
        response: { 201: EnvelopeView, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      return reply.code(201).send(await envelopesFor(request).create(organizationId, request.body));
    },
  );

  app.post(
    '/envelopes/from-file',
    {
      config: { scope: 'envelopes.write', idempotent: true, sandbox: true },
      schema: {
        summary: 'Create a Draft envelope from an uploaded PDF and fields placed on it',
        description: [
          '`fileId` is a PDF uploaded with `POST /api/v1/files/upload`; another organization’s or an unknown file is 404.',
          '`fields` are placed as template fields are: `page` is 1-based; `x`, `y`, `width` and `height` are PDF points (1/72 inch) from the top-left corner of the page as displayed (its crop box after its rotation), x to the right, y downwards. Each box must lie within its page (400 naming `fields.<i>.page`, `.x`, `.y`, `.width` or `.height`). `type` is one of the sixteen field types; Radio and Dropdown need `options` (each once), other types take none; `required` defaults to true for Signature and Initials; `value` prefills a field as an initialValues item does for a template.',
          'Recipients are mapped to the fields by `roleName` = the fields’ `role`; every role with fields needs an acting (non-Cc) recipient. A Signer or FormFiller must have a role some field has; an Approver, Viewer or Cc may have a role without fields.',
          'Everything else (workflow, signing orders, deadline, languages, delivery and authentication) is validated exactly as for `POST /api/v1/envelopes/from-template`. The envelope is made from a hidden one-off template, which no template route shows: the answer has `templateId` null and `sourceFileId` the file. Honours Idempotency-Key.',
          'With `X-Service-Sandbox: true`: validated the same way (against the real file), answered with a synthetic Draft envelope; nothing is created in production and no quota is used.',
        ].join('\n\n'),
        tags: ['envelopes'],
        headers: SandboxHeaders,
        body: CreateEnvelopeFromFileRequest,
        response: { 201: EnvelopeView, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const { organizationId } = principalOf(request);
      return reply.code(201).send(await envelopesFor(request).createFromFile(organizationId, request.body));
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
    async (request) => envelopesFor(request).get(principalOf(request).organizationId, request.params.id),
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
        params: ExternalReferenceParams,
        response: envelopeResponses,
      },
    },
    async (request) =>
      envelopesFor(request).getByReference(
        principalOf(request).organizationId,
        request.params.externalReference,
      ),
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
        response: { 200: z.array(RecipientView), ...ERROR_RESPONSES },
      },
    },
    async (request) =>
      envelopesFor(request).recipients(principalOf(request).organizationId, request.params.id),
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
        request.services,
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
    async (request) => envelopesFor(request).send(principalOf(request).organizationId, request.params.id),
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
    async (request) => envelopesFor(request).remind(principalOf(request).organizationId, request.params.id),
  );

  app.post(
    '/envelopes/:id/cancel',
    {
      ...operation,
      schema: {
        ...operation.schema,
        summary: 'Cancel an envelope in progress',
        description: `Optional body \`{ "reason": "…" }\`. Old signing links can no longer complete.${SANDBOX_NOTE}`,
        body: CancelEnvelopeRequest,
      },
    },
    async (request) =>
      envelopesFor(request).cancel(
        principalOf(request).organizationId,
        request.params.id,
        request.body?.reason,
      ),
  );

  app.post(
    '/envelopes/:id/extend',
    {
      ...operation,
      schema: {
        ...operation.schema,
        summary: 'Move the signing deadline later',
        description: `Body \`{ "expiresAt": "<ISO 8601>" }\`, in the future and later than the current deadline.${SANDBOX_NOTE}`,
        body: ExtendEnvelopeRequest,
      },
    },
    async (request) =>
      envelopesFor(request).extend(principalOf(request).organizationId, request.params.id, request.body),
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
        const bytes = await envelopesFor(request).document(
          principalOf(request).organizationId,
          request.params.id,
          document,
        );
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

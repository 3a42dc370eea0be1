import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  CancelEnvelopeRequest,
  CorrectRecipientRequest,
  CreateEnvelopeFromFileRequest,
  CreateEnvelopeRequest,
  EnvelopeView,
  ExtendEnvelopeRequest,
  ExternalReferenceParams,
  RecipientView,
  UpdateDraftRequest,
} from '../../../domain/envelope.ts';
import { EnvelopeList, EnvelopeListQuery } from '../../../domain/envelope-list.ts';
import { UpdateDeadlineSettingsRequest } from '../../../domain/envelope-settings.ts';
import {
  type EnvelopeOperations,
  productionEnvelopes,
} from '../../../services/envelopes/envelope-operations.ts';
import { listEnvelopes } from '../../../services/envelopes/list-envelopes.ts';
import { InvalidRequest } from '../../../services/errors.ts';
import { sandboxEnvelopes } from '../../../services/sandbox/sandbox-envelope-operations.ts';
import { issueRecipientSigningLink } from '../../../services/signing/issue-signing-links.ts';
import { principalOf } from '../../auth/principal.ts';
import { inSandbox, SandboxHeaders, sandboxRequested } from '../../plugins/sandbox.ts';
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
        operationId: 'createEnvelopeFromTemplate',
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
        operationId: 'createEnvelopeFromFile',
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
    '/envelopes',
    {
      config: { scope: 'envelopes.read' },
      schema: {
        operationId: 'listEnvelopes',
        summary: 'List and search envelopes',
        description: [
          'The organization’s envelopes, a page at a time, each as `GET /api/v1/envelopes/{id}` shows it. Filters combine with AND: `status` (one or several, comma-separated: `Sent,InProgress`), `templateId`, `externalReference` (every envelope with it), `externalSystem`, `createdFrom`/`createdTo` and `updatedFrom`/`updatedTo` (ISO 8601 with an offset; from inclusive, to exclusive), and `q`, text found without regard to case in the title or a recipient’s name, email address or phone.',
          'Sorted by `sort` (`createdAt`, default, or `updatedAt`) in `order` (`desc`, default, or `asc`), ties by id. `limit` 1–100 (default 20). `nextCursor` is the `cursor` of the next page (null on the last); it is opaque and only valid with the same `sort` and `order` — anything else is 400 naming `cursor`. Pages are keyset pages: envelopes created while you page never repeat or shift an envelope out of a later page.',
          'Sandbox: the list has no sandbox mode — with `X-Service-Sandbox: true` it answers 400 naming `headers.x-service-sandbox` (403 when sandbox is disabled on the server), never production envelopes to a sandbox client.',
        ].join('\n\n'),
        tags: ['envelopes'],
        querystring: EnvelopeListQuery,
        response: { 200: EnvelopeList, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      if (sandboxRequested(request)) {
        throw new InvalidRequest(
          'Listing envelopes has no sandbox mode: send the request without X-Service-Sandbox to list production envelopes.',
          [{ field: 'headers.x-service-sandbox', message: 'the envelope list has no sandbox mode' }],
        );
      }
      return listEnvelopes(request.services, principalOf(request).organizationId, request.query);
    },
  );

  app.get(
    '/envelopes/:id',
    {
      config: { scope: 'envelopes.read', sandbox: true },
      schema: {
        operationId: 'getEnvelope',
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

  app.patch(
    '/envelopes/:id',
    {
      config: { scope: 'envelopes.write', idempotent: true, sandbox: true },
      schema: {
        operationId: 'updateDraftEnvelope',
        summary: 'Edit a Draft envelope',
        description: [
          'Any field of the create request (`POST /api/v1/envelopes/from-template`) but `documents`, each optional: a field given replaces the Draft’s — `recipients` and `initialValues` as whole lists —, a field left out keeps it. The result is checked exactly as a create is (400 naming every refused field, nothing changed): template roles, required roles, signing orders, channels and contact data, languages, prefilled values. The Draft keeps its template version unless `templateId` names another published one (then its earlier `initialValues` are dropped unless given again); an envelope made from a file keeps its file and fields (`templateId` is a 400). Recipients get new ids with every edit.',
          'Refused with 409 `envelope_not_draft` once the envelope is sent or its send has begun; an edit and a send of the same Draft never both apply to what the workflow starts (a send that loaded the Draft before an edit committed is refused with 409 `envelope_changed`: send again). Another organization’s envelope is 404. Honours Idempotency-Key.',
          'With `X-Service-Sandbox: true`: the same on a synthetic Draft; one made from a file can change its title, deadline, references and delegation only.',
        ].join('\n\n'),
        tags: ['envelopes'],
        headers: SandboxHeaders,
        params: UuidParam,
        body: UpdateDraftRequest,
        response: envelopeResponses,
      },
    },
    async (request) =>
      envelopesFor(request).updateDraft(principalOf(request).organizationId, request.params.id, request.body),
  );

  app.get(
    '/envelopes/by-external-reference/:externalReference',
    {
      config: { scope: 'envelopes.read', sandbox: true },
      schema: {
        operationId: 'getEnvelopeByExternalReference',
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
        operationId: 'listRecipients',
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
        operationId: 'createSigningLink',
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

  app.patch(
    '/envelopes/:id/recipients/:recipientId',
    {
      config: { scope: 'envelopes.write', idempotent: true, sandbox: true },
      schema: {
        operationId: 'correctRecipient',
        tags: ['envelopes'],
        summary: 'Correct a recipient who has not completed',
        description: [
          'Any of `fullName`, `email`, `phone`, `deliveryChannel` and `language`: a field given replaces the recipient’s (`null` clears an email, phone or language), one left out keeps it; the result is checked as a create request’s recipient is (400 naming the field, nothing changed): the channel’s address, the phone a one-time code needs, a language the organization offers. A correction that changes nothing is a 400.',
          'The envelope’s workflow decides: refused with 409 (its reason) once the recipient has completed or the envelope is no longer signing (a Draft is edited with `PATCH /api/v1/envelopes/{id}`). A recipient who only opened, viewed or began filling in has not completed: their links, signer sessions, one-time codes and saved values end with the correction. The recipient keeps their id, role, fields and place in the order; when it is their turn they are invited again at the new address (a `DeliveryFailed` recipient becomes reachable again). The audit trail records `recipient.corrected` with each changed field’s old and new value, and webhooks receive it. Another organization’s envelope, or a recipient not on it, is 404. Honours Idempotency-Key.',
          'With `X-Service-Sandbox: true`: checked the same way on a synthetic envelope; nobody is contacted.',
        ].join('\n\n'),
        headers: SandboxHeaders,
        params: RecipientParams,
        body: CorrectRecipientRequest,
        response: envelopeResponses,
      },
    },
    async (request) =>
      envelopesFor(request).correctRecipient(
        principalOf(request).organizationId,
        request.params.id,
        request.params.recipientId,
        request.body,
      ),
  );

  app.post(
    '/envelopes/:id/recipients/:recipientId/remind',
    {
      config: { scope: 'envelopes.write', idempotent: true, sandbox: true },
      schema: {
        operationId: 'remindRecipient',
        tags: ['envelopes'],
        summary: 'Remind one recipient who may act now',
        description: `The envelope-wide reminder’s rules for one recipient: refused with 409 (the workflow’s reason) when that recipient cannot act now — completed, waiting for their turn, a Cc, or an envelope no longer signing. Records a reminder (reminderCount) for that recipient alone. No request body. Honours Idempotency-Key.${SANDBOX_NOTE}`,
        headers: SandboxHeaders,
        params: RecipientParams,
        response: envelopeResponses,
      },
    },
    async (request) =>
      envelopesFor(request).remindRecipient(
        principalOf(request).organizationId,
        request.params.id,
        request.params.recipientId,
      ),
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
        operationId: 'sendEnvelope',
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
        operationId: 'remindEnvelope',
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
        operationId: 'cancelEnvelope',
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
        operationId: 'extendEnvelope',
        ...operation.schema,
        summary: 'Move the signing deadline later',
        description: `Body \`{ "expiresAt": "<ISO 8601>" }\`, in the future and later than the current deadline.${SANDBOX_NOTE}`,
        body: ExtendEnvelopeRequest,
      },
    },
    async (request) =>
      envelopesFor(request).extend(principalOf(request).organizationId, request.params.id, request.body),
  );

  app.put(
    '/envelopes/:id/settings',
    {
      ...operation,
      schema: {
        operationId: 'updateEnvelopeSettings',
        ...operation.schema,
        summary: 'Change the reminder and deadline settings',
        description: `Any of \`reminderIntervalDays\` (null: no automatic reminders), \`maxAutomaticReminders\`, \`expiringSoonDays\` (0: no warning to recipients) and \`expiredExtensionGraceDays\`; a setting left out stays. A Draft's change at once; a sent envelope's workflow decides (a new reminder schedule counts from the change) and refuses it with 409 once the envelope is final. A value out of bounds is a 400 naming it, changing nothing. Honours Idempotency-Key.${SANDBOX_NOTE}`,
        body: UpdateDeadlineSettingsRequest,
      },
    },
    async (request) =>
      envelopesFor(request).updateSettings(
        principalOf(request).organizationId,
        request.params.id,
        request.body,
      ),
  );

  const documents = [
    {
      document: 'final-pdf',
      operationId: 'downloadFinalPdf',
      file: 'final',
      summary: 'Download the final signed PDF',
      what: 'the final PDF',
    },
    {
      document: 'audit-trail',
      operationId: 'downloadAuditTrail',
      file: 'audit-trail',
      summary: 'Download the audit-trail PDF',
      what: 'the audit trail',
    },
  ] as const;
  for (const { document, operationId, file, summary, what } of documents) {
    app.get(
      `/envelopes/:id/documents/${document}`,
      {
        config: { scope: 'envelopes.read', sandbox: true },
        schema: {
          operationId,
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
        const pdf = await envelopesFor(request).document(
          principalOf(request).organizationId,
          request.params.id,
          document,
        );
        return (
          reply
            .header('Content-Type', 'application/pdf')
            .header('Content-Length', pdf.sizeBytes)
            .header('Content-Disposition', `attachment; filename="${request.params.id}-${file}.pdf"`)
            // The bytes stream from object storage through the SHA-256 check, never as a redirect to the store
            // (a mismatch cuts the answer off); the schema above documents them as binary.
            .send(pdf.content as unknown as string)
        );
      },
    );
  }

  app.get(
    '/envelopes/:id/documents/original',
    {
      config: { scope: 'envelopes.read', sandbox: true },
      schema: {
        operationId: 'downloadOriginalDocument',
        summary: 'Download the original PDF',
        description:
          'The PDF the envelope was made from — its uploaded file (`sourceFileId`), or its template’s PDF — as ' +
          'uploaded, without fields or signatures, at any status; bytes, no redirect. 404 for another ' +
          'organization’s envelope, and once a deleted envelope’s files are purged. With ' +
          '`X-Service-Sandbox: true`: the same PDF for a synthetic envelope (made from the real template or upload).',
        tags: ['envelopes'],
        headers: SandboxHeaders,
        params: UuidParam,
        produces: ['application/pdf'],
        response: { 200: PdfBytes, ...ERROR_RESPONSES },
      },
    },
    async (request, reply) => {
      const pdf = await envelopesFor(request).original(
        principalOf(request).organizationId,
        request.params.id,
      );
      return reply
        .header('Content-Type', 'application/pdf')
        .header('Content-Length', pdf.sizeBytes)
        .header('Content-Disposition', `attachment; filename="${request.params.id}-original.pdf"`)
        .send(pdf.content as unknown as string);
    },
  );
};

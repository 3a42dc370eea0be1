// Finalization of a fully signed envelope: renders the final PDF (every value at its place, flattened,
// uploaded files attached) and the audit-trail PDF in the organization's language, stores both and links
// them to the envelope, in one transaction. Idempotent: an envelope that already has its artifacts (a retry
// after a crash) gets the same ones back, so there is exactly one final PDF per envelope.
import { createHash, randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  AuditEvent,
  Envelope,
  EnvelopeFieldValue,
  Organization,
  Recipient,
  StoredFile,
  Template,
  TemplateField,
} from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { storedFileLoader } from '../db/stored-files.ts';
import { PdfRenderError } from '../documents/errors.ts';
import {
  chosenPersonalStamps,
  finalPdfValues,
  placedFields,
  uploadedFiles,
} from '../documents/field-values.ts';
import { documentLanguage } from '../documents/i18n.ts';
import { renderAuditTrail } from '../documents/render-audit-trail.ts';
import { renderFinalPdf } from '../documents/render-final-pdf.ts';

export interface FinalizeEnvelopeRequest {
  envelopeId: string;
  organizationId: string;
  /** When the last required recipient completed (fixed by the workflow, so a retry renders the same bytes). */
  completedAt: string;
}

export interface FinalizeEnvelopeResult {
  finalPdfFileId: string;
  auditTrailFileId: string;
  finalPdfSha256: string;
}

/** The activity's failure type for input that can never render; it is not retried. */
export const PDF_RENDER_FAILURE = 'PdfRenderError';

export function createFinalizeActivities(deps: { orm: Orm }) {
  return {
    async finalizeEnvelope(request: FinalizeEnvelopeRequest): Promise<FinalizeEnvelopeResult> {
      const em = deps.orm.em.fork();
      const envelope = await em.findOne(Envelope, {
        id: request.envelopeId,
        organizationId: request.organizationId,
      });
      if (!envelope) {
        throw ApplicationFailure.nonRetryable(
          `Envelope ${request.envelopeId} does not exist.`,
          'EnvelopeNotFound',
        );
      }
      const existing = await artifactsOf(em, envelope);
      if (existing) return existing;
      if (!envelope.templateId) {
        throw ApplicationFailure.nonRetryable(
          `Envelope ${envelope.id} has no document to finalize.`,
          PDF_RENDER_FAILURE,
        );
      }

      const template = await em.findOneOrFail(Template, { id: envelope.templateId });
      const source = await em.findOneOrFail(StoredFile, { id: template.fileId }, { populate: ['content'] });
      const fields = await em.find(
        TemplateField,
        { templateId: template.id },
        { orderBy: { position: 'asc' } },
      );
      const values = await em.find(EnvelopeFieldValue, { envelopeId: envelope.id });
      const recipients = await em.find(
        Recipient,
        { envelopeId: envelope.id },
        { orderBy: { signingOrder: 'asc' } },
      );
      const events = await em.find(AuditEvent, { envelopeId: envelope.id }, { orderBy: { sequence: 'asc' } });
      const [chain] = await em.execute<{ head: string | null; events: number }[]>(
        `select encode(audit_chain_head, 'hex') as head, audit_chain_length as events from envelope where id = ?`,
        [envelope.id],
      );
      const organization = await em.findOneOrFail(Organization, { id: envelope.organizationId });
      const completedAt = new Date(request.completedAt);
      heartbeat('loaded');
      const stored = fields.map((field) => values.find((v) => v.fieldId === field.id)?.value);
      const drawn = await finalPdfValues(fields, stored, storedFileLoader(em, envelope.organizationId));
      const language = documentLanguage(organization.defaultLanguage);

      let finalPdf: Uint8Array;
      let auditTrail: Uint8Array;
      try {
        finalPdf = await renderFinalPdf({
          basePdf: source.content,
          envelopeId: envelope.id,
          completedAt,
          fields: placedFields(fields, drawn),
          language,
        });
        heartbeat('final PDF rendered');
        auditTrail = await renderAuditTrail({
          envelope: {
            id: envelope.id,
            title: envelope.title,
            organizationName: organization.name,
            status: 'Completed',
            createdAt: envelope.createdAt,
            sentAt: envelope.sentAt ?? null,
            completedAt,
            expiresAt: envelope.expiresAt ?? null,
          },
          document: { filename: source.filename, sha256: source.sha256, pageCount: template.pageCount },
          finalPdfSha256: sha256(finalPdf),
          auditChain: chain?.head ? { head: chain.head, events: chain.events } : null,
          recipients: recipients.map((r) => ({
            id: r.id,
            fullName: r.fullName,
            email: r.email ?? null,
            phone: r.phone ?? null,
            roleName: r.roleName,
            type: r.type,
            signingOrder: r.signingOrder,
            status: r.status,
            completedAt: r.completedAt ?? null,
            language: r.language ?? null,
            deliveryChannel: r.deliveryChannel,
            authenticationMethod: r.authenticationMethod,
          })),
          events: events.map((event) => ({
            sequence: event.sequence,
            type: event.type,
            occurredAt: event.occurredAt,
            recipientId: event.recipientId ?? null,
            data: event.data,
            ...(typeof event.data.ip === 'string' ? { ip: event.data.ip } : {}),
            ...(typeof event.data.user_agent === 'string' ? { userAgent: event.data.user_agent } : {}),
          })),
          uploads: uploadedFiles(fields, drawn),
          personalStamps: chosenPersonalStamps(fields, stored, drawn),
          generatedAt: completedAt,
          language,
        });
      } catch (error) {
        // Rendering is pure computation on stored bytes: what failed once fails again, so it is not retried.
        const reason =
          error instanceof PdfRenderError ? error.message : `the PDF could not be rendered: ${String(error)}`;
        throw ApplicationFailure.nonRetryable(reason, PDF_RENDER_FAILURE);
      }

      heartbeat('audit trail rendered');
      return em.transactional(async (tx) => {
        // Serializes concurrent attempts: the second one finds the first one's artifacts.
        const [locked] = await tx.execute<{ final_pdf_file_id: string | null }[]>(
          'select final_pdf_file_id from envelope where id = ? for update',
          [envelope.id],
        );
        if (locked?.final_pdf_file_id) return (await artifactsOf(tx, envelope)) as FinalizeEnvelopeResult;
        const base =
          envelope.title
            .replace(/[^\p{L}\p{N} ._-]+/gu, '')
            .trim()
            .slice(0, 100) || 'envelope';
        const store = (bytes: Uint8Array, filename: string) =>
          tx.create(StoredFile, {
            id: randomUUID(),
            organizationId: envelope.organizationId,
            filename,
            contentType: 'application/pdf',
            sizeBytes: bytes.byteLength,
            sha256: sha256(bytes),
            pageCount: null,
            content: Buffer.from(bytes),
          });
        const finalFile = store(finalPdf, `${base} - signed.pdf`);
        const auditFile = store(auditTrail, `${base} - audit trail.pdf`);
        await tx.flush();
        await tx.nativeUpdate(
          Envelope,
          { id: envelope.id },
          { finalPdfFileId: finalFile.id, auditTrailFileId: auditFile.id },
        );
        return {
          finalPdfFileId: finalFile.id,
          auditTrailFileId: auditFile.id,
          finalPdfSha256: finalFile.sha256,
        };
      });
    },
  };
}

async function artifactsOf(
  em: Orm['em'],
  envelope: Pick<Envelope, 'id'>,
): Promise<FinalizeEnvelopeResult | undefined> {
  const current = await em.findOne(Envelope, { id: envelope.id }, { refresh: true });
  if (!current?.finalPdfFileId || !current.auditTrailFileId) return undefined;
  const final = await em.findOneOrFail(StoredFile, { id: current.finalPdfFileId });
  return {
    finalPdfFileId: final.id,
    auditTrailFileId: current.auditTrailFileId,
    finalPdfSha256: final.sha256,
  };
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Tells Temporal the attempt is alive (no-op outside an activity, e.g. when called directly in a test). */
function heartbeat(step: string): void {
  try {
    Context.current().heartbeat(step);
  } catch {
    // Not running as an activity.
  }
}

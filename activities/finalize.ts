// Finalization of a fully signed envelope: renders the final PDF (every value at its place, flattened,
// uploaded files attached) and the audit-trail PDF in the organization's language, seals each with the
// platform's PAdES seal at the organization's policy level (docs/sealing.md), stores both and links them to
// the envelope with the seals' records, in one transaction. Idempotent: an envelope that already has its
// artifacts (a retry after a crash, before or after sealing) gets the same ones back, so there is exactly one
// sealed final PDF per envelope.
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
import { loadSecureSignaturePolicy, recordSealedDocument } from '../db/sealing.ts';
import { storedFileLoader } from '../db/stored-files.ts';
import type { SecureSignatureSettings } from '../domain/secure-signature.ts';
import { PdfRenderError } from '../pdf/errors.ts';
import { chosenPersonalStamps, finalPdfValues, placedFields, uploadedFiles } from '../pdf/field-values.ts';
import { documentLanguage } from '../pdf/i18n.ts';
import { renderAuditTrail } from '../pdf/render-audit-trail.ts';
import { renderFinalPdf } from '../pdf/render-final-pdf.ts';
import type { SealMetadata } from '../pdf/sealing/metadata.ts';
import { type SealResult, sealPdf } from '../pdf/sealing/seal.ts';
import { loadSealSigner, type SealSigner } from '../pdf/sealing/signer.ts';
import { TimestampUnavailableError, timestampAuthorities } from '../pdf/sealing/timestamps.ts';
import { recipientView } from '../services/envelopes/envelope-view.ts';
import type { FileObjects } from '../storage/file-objects.ts';
import { ObjectIntegrityError } from '../storage/object-store.ts';
import { TIMESTAMP_UNAVAILABLE, type TimestampRetrySchedule } from '../workflows/contracts.ts';

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
/** The seal certificate cannot be used (missing, wrong passphrase): FinalPdfFailed until an operator fixes it. */
export const SEALING_UNAVAILABLE = 'SealingUnavailable';

/** Where finalization gets its seal and timestamps (the worker passes its configuration). */
export interface FinalizeSealingSettings {
  pkcs12: { path: string; passphrase: string } | null;
  dataDir: string;
  timestampAuthorities: string[];
  timestampTimeoutMs: number;
  retryInitialMs: number;
  giveUpAfterMs: number;
}

/** Loads the seal the activity will use (the worker does at start, to report a broken one at once). */
export async function loadFinalizationSeal(settings: FinalizeSealingSettings): Promise<void> {
  await loadSealSigner(settings);
}

export function createFinalizeActivities(deps: {
  orm: Orm;
  sealing: FinalizeSealingSettings;
  /** Stored files' bytes: the source PDF and images read, the final PDF and audit trail written. */
  files: FileObjects;
}) {
  /** A stored file's bytes; corrupt bytes (their SHA-256 differs) fail for good, as a broken PDF does. */
  async function bytesOf(key: string): Promise<Buffer> {
    try {
      return await deps.files.readAll(key);
    } catch (error) {
      if (error instanceof ObjectIntegrityError) throw renderFailure(error);
      throw error;
    }
  }
  const reason = 'Sealed by Sigil: the document as completed by its signers';
  /** Seals one document at the policy's level; without a required timestamp, falls back to B-B. */
  async function seal(
    bytes: Uint8Array,
    signer: SealSigner,
    policy: SecureSignatureSettings,
  ): Promise<SealResult> {
    const timestamps =
      deps.sealing.timestampAuthorities.length > 0
        ? timestampAuthorities(deps.sealing.timestampAuthorities, deps.sealing.timestampTimeoutMs)
        : null;
    try {
      return await sealPdf(bytes, { signer, level: policy.level, timestamps, reason });
    } catch (error) {
      if (!(error instanceof TimestampUnavailableError)) throw error;
      if (policy.timestampRequired) {
        const schedule: TimestampRetrySchedule = {
          retryInitialMs: deps.sealing.retryInitialMs,
          giveUpAfterMs: deps.sealing.giveUpAfterMs,
        };
        throw ApplicationFailure.create({
          message: `the seal needs a timestamp (${policy.level}) and ${error.message}`,
          type: TIMESTAMP_UNAVAILABLE,
          nonRetryable: true,
          details: [schedule],
        });
      }
      return sealPdf(bytes, { signer, level: 'B-B', timestamps: null, reason });
    }
  }

  async function signerOrFail(): Promise<SealSigner> {
    try {
      return await loadSealSigner(deps.sealing);
    } catch (error) {
      throw ApplicationFailure.nonRetryable(
        `the platform's seal cannot be used: ${(error as Error).message}`,
        SEALING_UNAVAILABLE,
      );
    }
  }

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
      const source = await em.findOneOrFail(StoredFile, { id: template.fileId });
      const fields = await em.find(
        TemplateField,
        { templateId: template.id },
        { orderBy: { position: 'asc' } },
      );
      const values = await em.find(EnvelopeFieldValue, { envelopeId: envelope.id });
      const recipients = await em.find(
        Recipient,
        { envelopeId: envelope.id },
        { orderBy: { signingOrder: 'asc', position: 'asc', id: 'asc' } },
      );
      const events = await em.find(AuditEvent, { envelopeId: envelope.id }, { orderBy: { sequence: 'asc' } });
      const [chain] = await em.execute<{ head: string | null; events: number }[]>(
        `select encode(audit_chain_head, 'hex') as head, audit_chain_length as events from envelope where id = ?`,
        [envelope.id],
      );
      const organization = await em.findOneOrFail(Organization, { id: envelope.organizationId });
      const completedAt = new Date(request.completedAt);
      const policy = (await loadSecureSignaturePolicy(em, envelope.organizationId)).settings;
      const signer = await signerOrFail();
      const sealMetadata: SealMetadata = {
        envelopeId: envelope.id,
        auditChainHead: chain?.head ?? null,
        auditChainEvents: chain?.events ?? 0,
        originalSha256: source.sha256,
      };
      heartbeat('loaded');
      const stored = fields.map((field) => values.find((v) => v.fieldId === field.id)?.value);
      const drawn = await finalPdfValues(
        fields,
        stored,
        storedFileLoader(em, { readAll: bytesOf }, envelope.organizationId),
      );
      const language = documentLanguage(organization.defaultLanguage);

      // Read before rendering, outside its try: a store or database that is away is retried, not a broken PDF.
      const basePdf = await bytesOf(source.sha256);
      let finalPdf: Uint8Array;
      let auditTrail: Uint8Array;
      try {
        finalPdf = await renderFinalPdf({
          basePdf,
          envelopeId: envelope.id,
          completedAt,
          fields: placedFields(fields, drawn),
          language,
          sealMetadata,
        });
      } catch (error) {
        throw renderFailure(error);
      }
      heartbeat('final PDF rendered');
      // The audit trail names the sealed final PDF's SHA-256: the file its readers download.
      const finalSeal = await seal(finalPdf, signer, policy);
      heartbeat('final PDF sealed');
      try {
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
          finalPdfSha256: sha256(finalSeal.bytes),
          sealMetadata,
          auditChain: chain?.head ? { head: chain.head, events: chain.events } : null,
          recipients: recipients.map((r) => ({ ...recipientView(r), completedAt: r.completedAt ?? null })),
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
        throw renderFailure(error);
      }
      heartbeat('audit trail rendered');
      const auditSeal = policy.sealAuditTrail ? await seal(auditTrail, signer, policy) : null;
      heartbeat('audit trail sealed');
      // Both files' bytes are stored (object storage) before the transaction that references them commits; a
      // retried attempt puts the same bytes again (content-addressed: nothing new), and what an attempt that
      // lost the race below put is unreferenced for the orphan sweep.
      const finalBytes = finalSeal.bytes;
      const auditBytes = auditSeal?.bytes ?? auditTrail;
      await deps.files.put(finalBytes);
      await deps.files.put(auditBytes);
      heartbeat('files stored');
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
          });
        const finalFile = store(finalBytes, `${base} - signed.pdf`);
        const auditFile = store(auditBytes, `${base} - audit trail.pdf`);
        await tx.flush();
        const record = (kind: 'final_pdf' | 'audit_trail', file: StoredFile, sealed: SealResult) =>
          recordSealedDocument(tx, {
            id: randomUUID(),
            organizationId: envelope.organizationId,
            envelopeId: envelope.id,
            storedFileId: file.id,
            kind,
            level: sealed.level,
            signatureSha256: sealed.signatureSha256,
            certificateSha256: sealed.certificateSha256,
            sealedSha256: file.sha256,
            originalSha256: source.sha256,
            signedAt: sealed.signedAt,
            timestampAuthority: sealed.timestampAuthority,
            auditChainHead: sealMetadata.auditChainHead,
            auditChainLength: sealMetadata.auditChainEvents,
          });
        await record('final_pdf', finalFile, finalSeal);
        if (auditSeal) await record('audit_trail', auditFile, auditSeal);
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

/** Rendering is pure computation on stored bytes: what failed once fails again, so it is not retried. */
function renderFailure(error: unknown): ApplicationFailure {
  const reason =
    error instanceof PdfRenderError ? error.message : `the PDF could not be rendered: ${String(error)}`;
  return ApplicationFailure.nonRetryable(reason, PDF_RENDER_FAILURE);
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

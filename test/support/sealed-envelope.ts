// A Completed envelope with its sealed final PDF and audit trail, through the real services, Temporal and the
// shared test worker (which seals with the development CA under DATA_DIR at the organization's policy), for
// the sealing and verification tests.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { Envelope } from '../../db/entities/index.ts';
import type { VerificationResult } from '../../domain/secure-signature.ts';
import type { TemplateDefinition } from '../../domain/template.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { type TestContext, TWO_SIGNERS } from './context.ts';
import { storedBytes } from './stored-files.ts';

export interface SealedEnvelope {
  envelopeId: string;
  title: string;
  finalPdf: Uint8Array;
  auditTrail: Uint8Array;
}

/** Creates, sends and completes a two-signer envelope; answers once its sealed files are stored. */
export async function completeSealedEnvelope(
  ctx: TestContext,
  organizationId: string,
  title = `Sealed ${randomUUID().slice(0, 8)}`,
): Promise<SealedEnvelope> {
  const template = await createTemplate(ctx, {
    organizationId,
    pdf: await buildDemoPdf(),
    filename: 'sealed.pdf',
    definition: DEMO_TEMPLATE_DEFINITION as unknown as TemplateDefinition,
    publish: true,
  });
  const envelope = await createEnvelope(ctx, {
    title,
    recipients: TWO_SIGNERS,
    organizationId,
    templateId: template.id,
  });
  await sendEnvelope(ctx, organizationId, envelope.id);
  const { recipients } = await findEnvelope(ctx, organizationId, envelope.id);
  for (const recipient of recipients) {
    await completeRecipient(ctx, organizationId, envelope.id, recipient.id);
  }
  await ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelope.id)).result();
  return { envelopeId: envelope.id, title, ...(await storedArtifacts(ctx, envelope.id)) };
}

export async function storedArtifacts(
  ctx: TestContext,
  envelopeId: string,
): Promise<{ finalPdf: Uint8Array; auditTrail: Uint8Array }> {
  const em = ctx.orm.em.fork();
  const row = await em.findOneOrFail(Envelope, { id: envelopeId });
  if (!row.finalPdfFileId || !row.auditTrailFileId)
    throw new Error(`envelope ${envelopeId} has no final PDF`);
  return {
    finalPdf: new Uint8Array(await storedBytes(ctx, row.finalPdfFileId)),
    auditTrail: new Uint8Array(await storedBytes(ctx, row.auditTrailFileId)),
  };
}

/** POST /api/verify with the PDF; expects 200 and answers the verification. */
export async function verifyOver(app: FastifyInstance, bytes: Uint8Array): Promise<VerificationResult> {
  const response = await app.inject({
    method: 'POST',
    url: '/api/verify',
    headers: { 'content-type': 'application/pdf' },
    payload: Buffer.from(bytes),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as VerificationResult;
}

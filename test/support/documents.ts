// Envelopes the documents routes (/api/documents/{id}…, docs/documents.md) act on, made with the services in an
// existing organization, for the tests that walk every route with real ids (the tenant matrix, the fuzzers):
// a Completed one (its final PDF and audit trail exist) with a ManualLink recipient, and envelopes in the states
// an action needs (a Draft to send, sent ones to remind, extend and cancel, a FinalPdfFailed one to retry).

import { Template } from '../../db/entities/index.ts';
import type { TemplateDefinition } from '../../domain/template.ts';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { createEnvelope, type EnvelopeSender } from '../../services/envelopes/create-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { type TestContext, TWO_SIGNERS } from './context.ts';
import { replaceStoredBytes } from './stored-files.ts';

export interface DocumentFixture {
  id: string;
  /** Its recipients in signing order (both ManualLink). */
  recipientIds: string[];
}

/** A published template of the organization (the demo services agreement). */
export async function documentTemplate(ctx: TestContext, organizationId: string): Promise<string> {
  const template = await createTemplate(ctx, {
    organizationId,
    pdf: await buildDemoPdf(),
    filename: 'documents.pdf',
    definition: DEMO_TEMPLATE_DEFINITION as unknown as TemplateDefinition,
    publish: true,
  });
  return template.id;
}

/** A Draft with the Client and the Provider as ManualLink signers; `send` sends it. */
export async function documentFixture(
  ctx: TestContext,
  organizationId: string,
  templateId: string,
  options: { title?: string; sender?: EnvelopeSender; send?: boolean } = {},
): Promise<DocumentFixture> {
  const envelope = await createEnvelope(
    ctx,
    { title: options.title ?? 'Documents fixture', recipients: TWO_SIGNERS, organizationId, templateId },
    options.sender,
  );
  if (options.send) await sendEnvelope(ctx, organizationId, envelope.id);
  const { recipients } = await findEnvelope(ctx, organizationId, envelope.id);
  return { id: envelope.id, recipientIds: recipients.map((recipient) => recipient.id) };
}

/** A sent envelope whose recipients have all completed, once its workflow has ended (Completed). */
export async function completedDocument(
  ctx: TestContext,
  organizationId: string,
  templateId: string,
  options: { title?: string; sender?: EnvelopeSender } = {},
): Promise<DocumentFixture> {
  const fixture = await documentFixture(ctx, organizationId, templateId, { ...options, send: true });
  for (const recipientId of fixture.recipientIds) {
    await completeRecipient(ctx, organizationId, fixture.id, recipientId);
  }
  await ctx.temporal.workflow.getHandle(envelopeWorkflowId(fixture.id)).result();
  return fixture;
}

/**
 * A sent envelope whose final PDF failed for good (FinalPdfFailed): its template's PDF is broken before the last
 * signature and restored afterwards, so a retry then succeeds. The template must be this envelope's alone.
 */
export async function failedDocument(
  ctx: TestContext,
  organizationId: string,
  options: { title?: string; sender?: EnvelopeSender } = {},
): Promise<DocumentFixture> {
  const templateId = await documentTemplate(ctx, organizationId);
  const fixture = await documentFixture(ctx, organizationId, templateId, { ...options, send: true });
  const em = ctx.orm.em.fork();
  const { fileId: template } = await em.findOneOrFail(Template, { id: templateId });
  const restore = await replaceStoredBytes(ctx, template, Buffer.from('%PDF-1.7 broken'));
  for (const recipientId of fixture.recipientIds) {
    await completeRecipient(ctx, organizationId, fixture.id, recipientId);
  }
  let status = '';
  for (let attempt = 0; attempt < 300 && status !== 'FinalPdfFailed'; attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await findEnvelope(ctx, organizationId, fixture.id)).envelope.status;
  }
  await restore();
  if (status !== 'FinalPdfFailed') throw new Error(`envelope ${fixture.id} is ${status}, not FinalPdfFailed`);
  return fixture;
}

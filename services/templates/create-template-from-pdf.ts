// POST /api/templates: a new template from an uploaded PDF (docs/templates.md). The PDF passes the check every
// stored PDF passes (well-formed, within the limits, no active content; a refusal names `body.pdfBase64`) and
// is stored in the organization's files; the template is version 1 of a family of its own, a Draft without
// roles or fields, owned by the user who created it and their team. The builder adds the rest.
import {
  CreateTemplateRequest,
  TEMPLATE_LIMITS,
  type TemplateDetail,
} from '../../domain/template-builder.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { inspectPdf } from '../files/inspect-pdf.ts';
import { organizationClient } from '../files/inspection-pool.ts';
import { addStoredPdf } from '../files/upload-file.ts';
import { parseInput } from '../validation.ts';
import { addTemplateRows, flushNewTemplate, templateRows } from './create-template.ts';
import { type TemplateActor, templateDetail } from './template-versions.ts';

export async function createTemplateFromPdf(
  ctx: DataContext & FilesContext,
  actor: TemplateActor,
  input: unknown,
): Promise<TemplateDetail> {
  const request = parseInput(CreateTemplateRequest, input, 'request');
  const bytes = new Uint8Array(Buffer.from(request.pdfBase64, 'base64'));
  const pdf = await inspectPdf(bytes, {
    maxBytes: TEMPLATE_LIMITS.pdfBytes,
    field: 'body.pdfBase64',
    client: organizationClient(actor.organizationId),
  });
  const { em } = ctx;
  const file = await addStoredPdf(ctx.files, em, {
    organizationId: actor.organizationId,
    filename: request.filename ?? `${request.name}.pdf`,
    bytes,
    pdf,
  });
  const template = addTemplateRows(
    em,
    templateRows({
      organizationId: actor.organizationId,
      name: request.name,
      status: 'Draft',
      fileId: file.id,
      pageCount: pdf.pageCount,
      roles: [],
      fields: [],
      ownerUserId: actor.userId,
      teamId: actor.teamId,
      pages: pdf.pages,
    }),
  );
  await flushNewTemplate(em, actor.organizationId);
  return templateDetail(em, template, ctx.files);
}

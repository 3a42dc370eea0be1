// GET /api/templates/{id}: a version of one of the organization's templates as the builder shows it, and
// GET /api/templates/{id}/pdf: its PDF (docs/templates.md). Another organization's template, a one-off
// template, an archived one and an unknown id are "not found".
import { StoredFile } from '../../db/entities/index.ts';
import type { TemplateDetail } from '../../domain/template-builder.ts';
import type { DataContext, FilesContext } from '../context.ts';
import { storedFileStream } from '../files/stored-file-bytes.ts';
import { findTemplateVersion, templateDetail } from './template-versions.ts';

export async function getAppTemplate(
  ctx: DataContext & FilesContext,
  organizationId: string,
  templateId: string,
): Promise<TemplateDetail> {
  const template = await findTemplateVersion(ctx.em, organizationId, templateId);
  return templateDetail(ctx.em, template, ctx.files);
}

/** The version's PDF: the bytes of a stored file never change, so the user's browser may keep them a while. */
export async function templatePdf(
  ctx: DataContext & FilesContext,
  organizationId: string,
  templateId: string,
) {
  const template = await findTemplateVersion(ctx.em, organizationId, templateId);
  const file = await ctx.em.findOneOrFail(StoredFile, { id: template.fileId });
  return {
    contentType: 'application/pdf',
    // Streamed from object storage, checked by SHA-256 as it flows (never gathered whole).
    content: await storedFileStream(ctx.files, file),
    cacheControl: 'private, max-age=3600',
  };
}

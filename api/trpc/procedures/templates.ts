// The organization's templates in the business app (docs/templates.md): the list, creating one from a PDF, the
// builder's view of a version and its PDF, renaming, saving roles and fields (a published version gets a new
// draft version), publishing, duplicating, archiving, and restoring or deleting an archived template. Reading
// needs templates:read, changing templates:manage.
import { Ok } from '../../../domain/account.ts';
import {
  CreateTemplateRequest,
  checkTemplateDefinition,
  DuplicateTemplateRequest,
  RenameTemplateRequest,
  TemplateDefinitionFields,
  TemplateDetail,
  TemplateList,
  TemplateListQuery,
} from '../../../domain/template-builder.ts';
import { archiveTemplate } from '../../../services/templates/archive-template.ts';
import { createTemplateFromPdf } from '../../../services/templates/create-template-from-pdf.ts';
import { deleteTemplate } from '../../../services/templates/delete-template.ts';
import { duplicateTemplate } from '../../../services/templates/duplicate-template.ts';
import { getAppTemplate, templatePdf } from '../../../services/templates/get-app-template.ts';
import { listAppTemplates } from '../../../services/templates/list-app-templates.ts';
import { publishTemplate } from '../../../services/templates/publish-template.ts';
import { renameTemplate } from '../../../services/templates/rename-template.ts';
import { restoreTemplate } from '../../../services/templates/restore-template.ts';
import { saveTemplateDefinition } from '../../../services/templates/save-template-definition.ts';
import { templateActorOf } from '../../../services/templates/template-versions.ts';
import {
  type AppContext,
  areaRoute,
  type BodyLimit,
  ImageAnswer,
  principalOf,
  procedure,
  router,
  thenOk,
} from '../init.ts';
import { IdParams } from './administration-actor.ts';

const route = areaRoute('templates');
const organizationOf = (ctx: AppContext) => principalOf(ctx).organization.id;
const actorOf = (ctx: AppContext) => templateActorOf(principalOf(ctx));

const NOT_FOUND =
  'No such template in this organization (an archived one, and the hidden template of an envelope created ' +
  'from a file, are not found either)';
const ARCHIVED_NOT_FOUND =
  'No such template in this organization (a deleted one, and the hidden template of an envelope created from ' +
  'a file, are not found either)';
const OUTDATED =
  '`template_version_outdated`: the id names an older version; changes apply to the newest (`details[].latestId`)';
/** A PDF of 25 MB is about 33.4 MB in base64, in the JSON body. */
const PDF_BODY: BodyLimit = {
  bytes: 34 * 1024 * 1024,
  purpose: 'the most a template PDF may take (25 MB, in base64)',
};

export const templatesRouter = router({
  list: procedure
    .meta(
      route('GET', '/api/templates', {
        summary: "The organization's templates",
        description:
          'One line per template (its newest version, and the published version envelopes are sent with), by ' +
          'name, `limit` (1 to 100, default 50) from `offset`. Archived templates are listed only by ' +
          '`status=archived`. `owners` and ' +
          '`teams` name every owner and team of the templates, for the filters.',
        access: 'templates:read',
      }),
    )
    .input(TemplateListQuery)
    .output(TemplateList)
    .query(({ ctx, input }) => listAppTemplates(ctx.services, organizationOf(ctx), input)),

  create: procedure
    .meta(
      route('POST', '/api/templates', {
        summary: 'Create a template from a PDF',
        description:
          'A Draft (version 1) with the PDF and no roles or fields yet, owned by the signed-in user and their ' +
          'team. 400 names `body.pdfBase64` when the file is not a PDF Sigil accepts (`file_too_large` above ' +
          '25 MB).',
        access: 'templates:manage',
        bodyLimit: PDF_BODY,
      }),
    )
    .input(CreateTemplateRequest)
    .output(TemplateDetail)
    .mutation(({ ctx, input }) => createTemplateFromPdf(ctx.services, actorOf(ctx), input)),

  get: procedure
    .meta(
      route('GET', '/api/templates/{id}', {
        summary: 'A version of a template, as the builder shows it',
        description:
          'Its roles and fields (with their ids and properties), the size of each page in points, and every ' +
          'version of the template (`latest`: whether this is the newest).',
        access: 'templates:read',
        errors: { 404: NOT_FOUND },
      }),
    )
    .input(IdParams)
    .output(TemplateDetail)
    .query(({ ctx, input }) => getAppTemplate(ctx.services, organizationOf(ctx), input.id)),

  pdf: procedure
    .meta(
      route('GET', '/api/templates/{id}/pdf', {
        summary: "A template version's PDF",
        access: 'templates:read',
        errors: { 404: NOT_FOUND },
        image: { contentTypes: ['application/pdf'], description: 'The PDF of the template' },
      }),
    )
    .input(IdParams)
    .output(ImageAnswer)
    .query(({ ctx, input }) => templatePdf(ctx.services, organizationOf(ctx), input.id)),

  rename: procedure
    .meta(
      route('PUT', '/api/templates/{id}/name', {
        summary: 'Rename a template',
        description: 'Every version takes the name; no new version is made.',
        access: 'templates:manage',
        errors: { 404: NOT_FOUND },
      }),
    )
    .input(RenameTemplateRequest.extend(IdParams.shape))
    .output(TemplateDetail)
    .mutation(({ ctx, input }) => {
      const { id, ...request } = input;
      return renameTemplate(ctx.services, actorOf(ctx), id, request);
    }),

  saveDefinition: procedure
    .meta(
      route('PUT', '/api/templates/{id}/definition', {
        summary: 'Save the roles and fields of a template',
        description:
          'Replaces every role and field of the newest version. A draft changes in place; a published version ' +
          'is kept as it is and the answer is a new Draft version (another id) holding the changes. `allowDelegation`, when given, sets whether recipients may hand their part to someone else (absent: unchanged). Fields ' +
          'are in PDF points from the top-left corner of the page as displayed and must lie on their page.',
        access: 'templates:manage',
        errors: { 404: NOT_FOUND, 409: OUTDATED },
      }),
    )
    .input(TemplateDefinitionFields.extend(IdParams.shape).superRefine(checkTemplateDefinition))
    .output(TemplateDetail)
    .mutation(({ ctx, input }) => {
      const { id, ...definition } = input;
      return saveTemplateDefinition(ctx.services, actorOf(ctx), id, definition);
    }),

  publish: procedure
    .meta(
      route('POST', '/api/templates/{id}/publish', {
        summary: 'Publish a template',
        description:
          'The draft becomes the version envelopes are created from (and /api/v1 lists); the version it ' +
          'replaces is kept for the envelopes made from it. 400 `template_not_publishable` lists every reason ' +
          '(`details[].field` is `fields.<i>.…` or `roles.<i>.…` of the version, with `fieldId` and `label`): ' +
          'no field, a signature field of a role that does not sign, a field of a role that fills none, a ' +
          'required role without a field, a Radio or Dropdown without options, a Read-only text without text.',
        access: 'templates:manage',
        errors: { 404: NOT_FOUND, 409: OUTDATED },
      }),
    )
    .input(IdParams)
    .output(TemplateDetail)
    .mutation(({ ctx, input }) => publishTemplate(ctx.services, actorOf(ctx), input.id)),

  duplicate: procedure
    .meta(
      route('POST', '/api/templates/{id}/duplicate', {
        summary: 'Copy a template',
        description:
          'A new template (a Draft, version 1, owned by the signed-in user) with this version’s PDF, roles and fields.',
        access: 'templates:manage',
        errors: { 404: NOT_FOUND },
      }),
    )
    .input(DuplicateTemplateRequest.extend(IdParams.shape))
    .output(TemplateDetail)
    .mutation(({ ctx, input }) => {
      const { id, ...request } = input;
      return duplicateTemplate(ctx.services, actorOf(ctx), id, request);
    }),

  archive: procedure
    .meta(
      route('POST', '/api/templates/{id}/archive', {
        summary: 'Archive a template',
        description:
          'Every version: no longer listed, opened or sent (here and in /api/v1). Envelopes created from it keep it.',
        access: 'templates:manage',
        errors: { 404: NOT_FOUND },
      }),
    )
    .input(IdParams)
    .output(Ok)
    .mutation(thenOk(({ ctx, input }) => archiveTemplate(ctx.services, actorOf(ctx), input.id))),

  restore: procedure
    .meta(
      route('POST', '/api/templates/{id}/restore', {
        summary: 'Restore an archived template',
        description:
          'Every version is active again: listed, opened and sent as before it was archived. `id` is any ' +
          'version of it (as `GET /api/templates?status=archived` lists them).',
        access: 'templates:manage',
        errors: {
          404: ARCHIVED_NOT_FOUND,
          409:
            '`template_not_archived`: the template is not archived; `template_limit`: the organization keeps ' +
            'the most templates it may',
        },
      }),
    )
    .input(IdParams)
    .output(Ok)
    .mutation(thenOk(({ ctx, input }) => restoreTemplate(ctx.services, actorOf(ctx), input.id))),

  delete: procedure
    .meta(
      route('DELETE', '/api/templates/{id}', {
        summary: 'Delete an archived template',
        description:
          'Every version, for good: versions no envelope was created from are removed, the others are kept ' +
          'for their envelopes only. Refused while an envelope that is not final (any status but Completed, ' +
          'Declined, Cancelled, Expired, Archived and Deleted; drafts included) was created from any version.',
        access: 'templates:manage',
        errors: {
          404: ARCHIVED_NOT_FOUND,
          409:
            '`template_not_archived`: archive it first; `template_in_use`: envelopes that are not final use ' +
            'it (`details[0].openEnvelopes` counts them)',
        },
      }),
    )
    .input(IdParams)
    .output(Ok)
    .mutation(thenOk(({ ctx, input }) => deleteTemplate(ctx.services, actorOf(ctx), input.id))),
});

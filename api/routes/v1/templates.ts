// GET /api/v1/templates and GET /api/v1/templates/{id}: the organization's published templates with the
// roles (for recipient mapping by roleName) and field definitions (for prefill by fieldDefinitionId).
import { z } from 'zod';
import { FIELD_TYPES } from '../../../domain/vocabulary.ts';
import { principalOf } from '../../auth/principal.ts';
import { getTemplate } from '../../services/templates/get-template.ts';
import { listTemplates, type TemplateView } from '../../services/templates/list-templates.ts';
import { ERROR_RESPONSES, IsoDateTime, UuidParam } from './schemas.ts';
import type { V1Routes } from './types.ts';

const TemplateRole = z
  .object({
    name: z.string().meta({ description: 'Recipients are mapped to the role by this name (roleName).' }),
    required: z.boolean().meta({ description: 'Whether a recipient must be given for the role.' }),
  })
  .meta({ id: 'TemplateRole' });

const FieldDefinition = z
  .object({
    fieldDefinitionId: z.uuid().meta({ description: 'Refer to the field by this id in initialValues.' }),
    type: z.enum(FIELD_TYPES),
    role: z.string().meta({ description: 'Name of the role that fills in the field.' }),
    label: z.string(),
    page: z.number().int().min(1).meta({ description: '1-based page number.' }),
    x: z.number().meta({ description: 'Points from the left edge of the page.' }),
    y: z.number().meta({ description: 'Points from the top edge of the page.' }),
    width: z.number().meta({ description: 'Points.' }),
    height: z.number().meta({ description: 'Points.' }),
    required: z.boolean(),
    options: z
      .array(z.string())
      .nullable()
      .meta({ description: 'The choices of Radio and Dropdown fields; null for other types.' }),
  })
  .meta({ id: 'FieldDefinition' });

const TemplateResponse = z
  .object({
    id: z.uuid(),
    name: z.string(),
    pageCount: z.number().int().min(1),
    createdAt: IsoDateTime,
    publishedAt: IsoDateTime.nullable(),
    roles: z.array(TemplateRole),
    fields: z.array(FieldDefinition),
  })
  .meta({ id: 'Template' });

const TemplateListResponse = z
  .array(TemplateResponse)
  .meta({ description: 'The published templates of the organization, by name.' });

function toResponse(template: TemplateView): z.input<typeof TemplateResponse> {
  return {
    ...template,
    createdAt: template.createdAt.toISOString(),
    publishedAt: template.publishedAt ? template.publishedAt.toISOString() : null,
  };
}

export const templatesRoutes: V1Routes = async (app, deps) => {
  app.get(
    '/templates',
    {
      config: { scope: 'templates.read' },
      schema: {
        summary: 'List the published templates',
        description:
          'Every published template of the organization with its roles and field definitions. Drafts are not listed.',
        tags: ['templates'],
        response: { 200: TemplateListResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      const templates = await listTemplates(deps, organizationId);
      return templates.map(toResponse);
    },
  );

  app.get(
    '/templates/:id',
    {
      config: { scope: 'templates.read' },
      schema: {
        summary: 'Get a published template',
        description:
          'One published template with its roles and field definitions. A draft or another organization’s template is not found.',
        tags: ['templates'],
        params: UuidParam,
        response: { 200: TemplateResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const { organizationId } = principalOf(request);
      return toResponse(await getTemplate(deps, organizationId, request.params.id));
    },
  );
};

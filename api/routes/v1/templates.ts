// GET /api/v1/templates and GET /api/v1/templates/{id}: the organization's published templates with the
// roles (for recipient mapping by roleName) and field definitions (for prefill by fieldDefinitionId).
import { z } from 'zod';
import { TemplateView } from '../../../domain/template.ts';
import { getTemplate } from '../../../services/templates/get-template.ts';
import { listTemplates } from '../../../services/templates/list-templates.ts';
import { principalOf } from '../../auth/principal.ts';
import { ERROR_RESPONSES, UuidParam } from './schemas.ts';
import type { V1Routes } from './types.ts';

const TemplateListResponse = z
  .array(TemplateView)
  .meta({ description: 'The published templates of the organization, by name.' });

export const templatesRoutes: V1Routes = async (app) => {
  app.get(
    '/templates',
    {
      config: { scope: 'templates.read' },
      schema: {
        operationId: 'listTemplates',
        summary: 'List the published templates',
        description:
          'Every published template of the organization with its roles and field definitions. Drafts are not listed.',
        tags: ['templates'],
        response: { 200: TemplateListResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => listTemplates(request.services, principalOf(request).organizationId),
  );

  app.get(
    '/templates/:id',
    {
      config: { scope: 'templates.read' },
      schema: {
        operationId: 'getTemplate',
        summary: 'Get a published template',
        description:
          'One published template with its roles and field definitions. A draft or another organization’s template is not found.',
        tags: ['templates'],
        params: UuidParam,
        response: { 200: TemplateView, ...ERROR_RESPONSES },
      },
    },
    async (request) => getTemplate(request.services, principalOf(request).organizationId, request.params.id),
  );
};

// GET /api/v1/organization: the organization and plan context of the calling client.
import { z } from 'zod';
import { organizationContext } from '../../../services/organizations/organization-context.ts';
import { principalOf } from '../../auth/principal.ts';
import { ERROR_RESPONSES } from './schemas.ts';
import type { V1Routes } from './types.ts';

const OrganizationResponse = z
  .object({
    id: z.uuid(),
    name: z.string(),
    plan: z.string(),
    apiEnabled: z.boolean(),
    defaultLanguage: z.string(),
    supportedLanguages: z.array(z.string()),
    client: z.object({ clientId: z.string(), scopes: z.array(z.string()) }),
  })
  .meta({ id: 'Organization' });

export const organizationRoutes: V1Routes = async (app) => {
  app.get(
    '/organization',
    {
      config: { scope: 'organization.read' },
      schema: {
        operationId: 'getOrganization',
        summary: 'Organization and plan context of the calling client',
        tags: ['organization'],
        response: { 200: OrganizationResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      return {
        ...(await organizationContext(request.services, principal.organizationId)),
        client: { clientId: principal.clientId, scopes: principal.scopes },
      };
    },
  );
};

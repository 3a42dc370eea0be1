// GET /api/v1/organization: the organization and plan context of the calling client.
import { z } from 'zod';
import { Organization, Plan } from '../../../db/entities/index.ts';
import { principalOf } from '../../auth/principal.ts';
import { NotFound } from '../../errors.ts';
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

export const organizationRoutes: V1Routes = async (app, deps) => {
  app.get(
    '/organization',
    {
      config: { scope: 'organization.read' },
      schema: {
        summary: 'Organization and plan context of the calling client',
        tags: ['organization'],
        response: { 200: OrganizationResponse, ...ERROR_RESPONSES },
      },
    },
    async (request) => {
      const principal = principalOf(request);
      const em = deps.orm.em.fork();
      const organization = await em.findOne(Organization, { id: principal.organizationId });
      if (!organization) throw new NotFound('Organization not found.');
      const plan = await em.findOneOrFail(Plan, { name: organization.planName });
      return {
        id: organization.id,
        name: organization.name,
        plan: plan.name,
        apiEnabled: organization.apiEnabled,
        defaultLanguage: organization.defaultLanguage,
        supportedLanguages: organization.supportedLanguages,
        client: { clientId: principal.clientId, scopes: principal.scopes },
      };
    },
  );
};

// The organization and plan an API client acts for (GET /api/v1/organization).
import { Plan } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { findOrganization } from './find-organization.ts';

export async function organizationContext(ctx: DataContext, organizationId: string) {
  const organization = await findOrganization(ctx, organizationId);
  const plan = await ctx.em.findOneOrFail(Plan, { name: organization.planName });
  return {
    id: organization.id,
    name: organization.name,
    plan: plan.name,
    apiEnabled: organization.apiEnabled,
    defaultLanguage: organization.defaultLanguage,
    supportedLanguages: organization.supportedLanguages,
  };
}

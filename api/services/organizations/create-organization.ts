// Creates an organization (a tenant) on a plan; API access is off unless asked for.
import { randomUUID } from 'node:crypto';
import { Organization, Plan } from '../../../db/entities/index.ts';
import { CreateOrganizationRequest } from '../../../domain/organization.ts';
import { InvalidRequest } from '../../errors.ts';
import type { DataContext } from '../context.ts';
import { parseInput } from '../validation.ts';

export type CreateOrganizationInput = CreateOrganizationRequest;

export async function createOrganization(ctx: DataContext, input: CreateOrganizationInput) {
  const data = parseInput(CreateOrganizationRequest, input, 'organization');
  const { em } = ctx;
  const plan = await em.findOne(Plan, { name: data.plan });
  if (!plan) throw new InvalidRequest(`Plan ${data.plan} does not exist in this database.`);
  if (data.apiEnabled && !plan.apiAccess) {
    throw new InvalidRequest(`The ${plan.name} plan does not include API access; choose another plan.`, [
      { field: 'apiEnabled', message: 'plan without API access' },
    ]);
  }
  const organization = em.create(Organization, {
    id: randomUUID(),
    name: data.name,
    planName: plan.name,
    apiEnabled: data.apiEnabled,
    defaultLanguage: data.defaultLanguage,
  });
  await em.flush();
  return organization;
}

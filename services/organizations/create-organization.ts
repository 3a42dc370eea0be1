// Creates an organization (a tenant) on a plan with its built-in roles; API access is off unless asked for.
import { randomUUID } from 'node:crypto';
import { Organization, Plan, Role } from '../../db/entities/index.ts';
import { CreateOrganizationRequest } from '../../domain/organization.ts';
import { BUILT_IN_ROLE_NAMES, BUILT_IN_ROLES } from '../../domain/permissions.ts';
import type { DataContext } from '../context.ts';
import { InvalidRequest } from '../errors.ts';
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
  // One transaction: the organization, then its built-in roles (their permissions come from
  // domain/permissions.ts, not from the row). Flushed in two steps because the roles reference the
  // organization by id, which the unit of work cannot order by itself.
  return em.transactional(async (tx) => {
    const organization = tx.create(Organization, {
      id: randomUUID(),
      name: data.name,
      planName: plan.name,
      apiEnabled: data.apiEnabled,
      defaultLanguage: data.defaultLanguage,
    });
    await tx.flush();
    for (const builtIn of BUILT_IN_ROLES) {
      tx.create(Role, {
        id: randomUUID(),
        organizationId: organization.id,
        name: BUILT_IN_ROLE_NAMES[builtIn],
        builtIn,
        permissions: [],
      });
    }
    await tx.flush();
    return organization;
  });
}

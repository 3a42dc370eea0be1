// Creates an organization (a tenant) on a plan; API access is off unless asked for.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { Organization, Plan } from '../../../db/entities/index.ts';
import { PLAN_NAMES } from '../../../domain/vocabulary.ts';
import { InvalidRequest } from '../../errors.ts';
import type { DataContext } from '../context.ts';
import { parseInput } from '../validation.ts';

export const SUPPORTED_LANGUAGES = ['en', 'he'] as const;

const CreateOrganizationInput = z.object({
  name: z.string().trim().min(1, 'name is required').max(200),
  plan: z.enum(PLAN_NAMES, { message: `plan must be one of ${PLAN_NAMES.join(', ')}` }),
  apiEnabled: z.boolean().default(false),
  defaultLanguage: z.enum(SUPPORTED_LANGUAGES).default('en'),
});
export type CreateOrganizationInput = z.input<typeof CreateOrganizationInput>;

export async function createOrganization(ctx: DataContext, input: CreateOrganizationInput) {
  const data = parseInput(CreateOrganizationInput, input, 'organization');
  const em = ctx.orm.em.fork();
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

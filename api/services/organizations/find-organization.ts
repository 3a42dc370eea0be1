// Looks up an organization by id; unknown and malformed ids are both "not found".
import { Organization } from '../../../db/entities/index.ts';
import { NotFound } from '../../errors.ts';
import type { DataContext } from '../context.ts';
import { UUID_PATTERN } from '../validation.ts';

export async function findOrganization(ctx: DataContext, organizationId: string) {
  const organization = UUID_PATTERN.test(organizationId)
    ? await ctx.orm.em.fork().findOne(Organization, { id: organizationId })
    : null;
  if (!organization) throw new NotFound(`Organization ${organizationId} was not found.`);
  return organization;
}

// Looks up an organization by id; unknown and malformed ids are both "not found".
import { Organization } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { DataContext } from '../context.ts';
import { NotFound } from '../errors.ts';

export async function findOrganization(ctx: DataContext, organizationId: string) {
  const organization = UUID_PATTERN.test(organizationId)
    ? await ctx.em.findOne(Organization, { id: organizationId })
    : null;
  if (!organization) throw new NotFound(`Organization ${organizationId} was not found.`);
  return organization;
}

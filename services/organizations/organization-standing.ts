// Whether an organization may act (docs/backoffice.md, "Suspension and deletion"): a platform administrator can
// suspend an organization or delete it (softly). Either way its users cannot sign in, their sessions stop working,
// its OAuth clients get no token and its tokens are refused, and it cannot create or send envelopes; the envelopes
// it already sent go on to their end (their signers are not refused). One rule for every place that asks.
import type { Organization } from '../../db/entities/index.ts';
import { AppError } from '../errors.ts';

/** What the backoffice shows: `deleted` when deleted, else the organization's own status. */
export type OrganizationStanding = 'active' | 'suspended' | 'deleted';

type Standing = Pick<Organization, 'status' | 'deletedAt'>;

export function standingOf(organization: Standing): OrganizationStanding {
  if (organization.deletedAt) return 'deleted';
  return organization.status === 'suspended' ? 'suspended' : 'active';
}

/**
 * 403 `organization_suspended` or `organization_deleted` naming the organization, or null when it may act. The
 * administrator's reason is an internal note and is not shown.
 */
export function organizationRefusal(
  organization: Standing & Pick<Organization, 'id' | 'name'>,
  action = 'do this',
): AppError | null {
  const standing = standingOf(organization);
  if (standing === 'active') return null;
  const detail = [{ field: 'organization', message: standing, organizationId: organization.id }];
  if (standing === 'deleted') {
    return new AppError(
      403,
      'organization_deleted',
      `Cannot ${action}: the organization ${organization.name} was deleted.`,
      detail,
    );
  }
  return new AppError(
    403,
    'organization_suspended',
    `Cannot ${action}: the organization ${organization.name} is suspended. Contact support to reactivate it.`,
    detail,
  );
}

/** Throws the refusal of an organization that may not act. */
export function requireActiveOrganization(
  organization: Standing & Pick<Organization, 'id' | 'name'>,
  action?: string,
): void {
  const refusal = organizationRefusal(organization, action);
  if (refusal) throw refusal;
}

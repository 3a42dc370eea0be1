// Whether an organization may use the public API (docs/integrations.md, "API access"): its plan must include
// API access and its own API flag must be on; support staff or a platform administrator turns the flag on.
// One rule for every place that asks: the token endpoint and the bearer check refuse a client's requests with
// it (issue-access-token.ts, 403), creating a client and rotating a secret refuse with it (409
// `api_access_unavailable`), and the Integrations page shows it.
import type { EntityManager } from '@mikro-orm/postgresql';
import { type Organization, Plan } from '../../db/entities/index.ts';
import { Conflict } from '../errors.ts';

/** Why the API is not available: the plan lacks it (checked first: the flag cannot help then), or the flag is off. */
export type ApiAccessReason = 'plan_without_api_access' | 'organization_api_disabled';

export interface ApiAccess {
  available: boolean;
  planName: string;
  reason: ApiAccessReason | null;
  /** What a person can do about it; null when the API is available. */
  message: string | null;
}

export function apiAccessOf(
  organization: Pick<Organization, 'apiEnabled' | 'planName'>,
  planApiAccess: boolean,
): ApiAccess {
  const planName = organization.planName;
  if (!planApiAccess) {
    return {
      available: false,
      planName,
      reason: 'plan_without_api_access',
      message:
        `The ${planName} plan does not include API access. Move the organization to a plan that includes it; ` +
        'then support or a platform administrator turns API access on for it.',
    };
  }
  if (!organization.apiEnabled) {
    return {
      available: false,
      planName,
      reason: 'organization_api_disabled',
      message:
        `API access is disabled for this organization. Its ${planName} plan includes API access: ` +
        'support or a platform administrator turns it on on request.',
    };
  }
  return { available: true, planName, reason: null, message: null };
}

/** The organization's API access, read with its plan. */
export async function organizationApiAccess(
  em: EntityManager,
  organization: Pick<Organization, 'apiEnabled' | 'planName'>,
): Promise<ApiAccess> {
  const plan = await em.findOne(Plan, { name: organization.planName });
  return apiAccessOf(organization, plan?.apiAccess ?? false);
}

/** Refuses (409 `api_access_unavailable`, naming the plan and who turns it on) what needs the public API. */
export async function requireApiAccess(em: EntityManager, organization: Organization, action: string) {
  const access = await organizationApiAccess(em, organization);
  if (access.available) return;
  throw new Conflict(
    `Cannot ${action}: ${access.message}`,
    [{ message: access.message ?? '', reason: access.reason, plan: access.planName }],
    'api_access_unavailable',
  );
}

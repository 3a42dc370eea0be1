// What the backoffice's organization pages share (docs/backoffice.md, "Organizations"): the server's shapes
// (domain/backoffice-organizations.ts, imported as types only: the browser bundle gets no zod), the limits
// the forms check before the server does again (each typed as the server's own constant, so the types fail if
// one changes), the plan names of the list's filter, and the words and badge tones of an organization's
// standing.
import type { z } from 'zod';
import type * as organizations from '../../../../domain/backoffice-organizations.ts';
import { PLAN_NAMES, type PlanName } from '../../../../domain/vocabulary.ts';

export { PLAN_NAMES, type PlanName };

export type OrganizationSummary = z.output<typeof organizations.BackofficeOrganizationSummary>;
export type OrganizationDetail = z.output<typeof organizations.BackofficeOrganizationDetail>;
export type OrganizationIntegrations = z.output<typeof organizations.BackofficeOrganizationIntegrations>;
export type CreditLedger = z.output<typeof organizations.SmsCreditLedger>;
export type OrganizationStanding = (typeof organizations.ORGANIZATION_STANDINGS)[number];
export type OrganizationChange = z.input<typeof organizations.BackofficeUpdateOrganizationRequest>;

/** Standings an administrator filters the list by (absent: active and suspended ones). */
export const ORGANIZATION_STANDINGS: typeof organizations.ORGANIZATION_STANDINGS = [
  'active',
  'suspended',
  'deleted',
];

/** Days after its deletion when an organization's data is due for the purge. */
export const PURGE_DAYS: typeof organizations.ORGANIZATION_PURGE_DAYS = 30;
/** The most SMS credits one grant gives. */
export const MAX_CREDIT_GRANT: typeof organizations.MAX_CREDIT_GRANT = 1_000_000;
/** The largest per-minute rate agreed for an organization. */
export const MAX_AGREED_RATE: typeof organizations.MAX_AGREED_RATE_PER_MINUTE = 1_000_000;
/** The longest internal note kept with a suspension, and the longest reason of a credit grant. */
export const NOTE_MAX = 1000;

export const STANDING_KEYS: Record<OrganizationStanding, string> = {
  active: 'backoffice.organizations.standing.active',
  suspended: 'backoffice.organizations.standing.suspended',
  deleted: 'backoffice.organizations.standing.deleted',
};

export const STANDING_TONES: Record<OrganizationStanding, string> = {
  active: 'good',
  suspended: 'warn',
  deleted: 'off',
};

/** The plans' support levels in words (the plan table's values). */
export const SUPPORT_LEVEL_KEYS: Record<string, string> = {
  Community: 'plans.supportLevel.community',
  Standard: 'plans.supportLevel.standard',
  Priority: 'plans.supportLevel.priority',
  Premium: 'plans.supportLevel.premium',
  Dedicated: 'plans.supportLevel.dedicated',
};

export function isPlanName(value: string | null): value is PlanName {
  return (PLAN_NAMES as readonly (string | null)[]).includes(value);
}

export function isStanding(value: string | null): value is OrganizationStanding {
  return (ORGANIZATION_STANDINGS as readonly (string | null)[]).includes(value);
}

export function organizationHref(id: string): string {
  return `/backoffice/organizations/${encodeURIComponent(id)}`;
}

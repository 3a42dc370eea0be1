// What the backoffice's organization pages share (docs/backoffice.md, "Organizations"): the server's shapes
// (domain/backoffice-organizations.ts, imported as types only: the browser bundle gets no zod), the limits
// the forms check before the server does again (each typed as the server's own constant, so the types fail if
// one changes), the plan names of the list's filter, and the words and badge tones of an organization's
// standing; their numbers and dates, and a whole number as a form reads it.
import type { z } from 'zod';
import type * as organizations from '../../../../../domain/backoffice-organizations.ts';
import { PLAN_NAMES, type PlanName } from '../../../../../domain/vocabulary.ts';
import type { Plan } from '../../shared/app-client.ts';
import { formatDateTime } from '../../ui/format.ts';

export { PLAN_NAMES, type PlanName };

export type OrganizationSummary = z.output<typeof organizations.BackofficeOrganizationSummary>;
export type OrganizationDetail = z.output<typeof organizations.BackofficeOrganizationDetail>;
export type OrganizationIntegrations = z.output<typeof organizations.BackofficeOrganizationIntegrations>;
export type CreditLedger = z.output<typeof organizations.SmsCreditLedger>;
export type OrganizationStanding = (typeof organizations.ORGANIZATION_STANDINGS)[number];
export type OrganizationChange = z.input<typeof organizations.BackofficeUpdateOrganizationRequest>;

/** What a part of an organization's page that changes it takes: the organization, and what to do with the
 * message once a change is saved (the page reads the organization again, then says it). */
export interface OrganizationPart {
  organization: OrganizationDetail;
  onsaved: (message: string) => Promise<void>;
}

/** The parts that change its plan also offer the plans. */
export interface PlanPart extends OrganizationPart {
  plans: Plan[];
}

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

/** An organization's standing in words, and its badge's tone. */
export const STANDINGS: Record<OrganizationStanding, { key: string; tone: string }> = {
  active: { key: 'backoffice.organizations.standing.active', tone: 'good' },
  suspended: { key: 'backoffice.organizations.standing.suspended', tone: 'warn' },
  deleted: { key: 'backoffice.organizations.standing.deleted', tone: 'off' },
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

/** The numbers and dates of the organization pages in the page's language. */
export function organizationFormats(language: string | null | undefined) {
  const numbers = new Intl.NumberFormat(language ?? 'en');
  const days = new Intl.DateTimeFormat(language ?? 'en', { dateStyle: 'long', timeZone: 'UTC' });
  return {
    count: (value: number) => numbers.format(value),
    /** A moment: its date and time. */
    when: (iso: string | null | undefined) => (iso ? formatDateTime(iso, language) : ''),
    /** A day (a period's bounds, the purge). */
    day: (iso: string | null | undefined) => (iso ? days.format(new Date(iso)) : ''),
    /** The last day of a month's period (its end is the first moment of the next month). */
    lastDay: (end: string) => days.format(new Date(Date.parse(end) - 1)),
  };
}

export type OrganizationFormats = ReturnType<typeof organizationFormats>;

/**
 * A whole number from 1 to `max` as typed: null when empty (refused with `message` when `required`); undefined,
 * with `message` in `errors[field]`, when it is not one.
 */
export function wholeNumber(
  text: string,
  max: number,
  field: string,
  errors: Record<string, string>,
  message: string,
  required = false,
): number | null | undefined {
  const value = text.trim();
  if (value === '') {
    if (required) errors[field] = message;
    return null;
  }
  const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || number < 1 || number > max) {
    errors[field] = message;
    return undefined;
  }
  return number;
}

/** Organizations the list reads at a time (the first page, then "Show more"). */
export const ORGANIZATIONS_PAGE_SIZE = 50;

/** The list's search and filters, as the address keeps them (?search=&plan=&api=&status=). */
export interface OrganizationFilters {
  search: string;
  plan: PlanName | '';
  api: '' | 'true' | 'false';
  status: OrganizationStanding | '';
}

export function filtersOf(query: URLSearchParams): OrganizationFilters {
  const plan = query.get('plan');
  const api = query.get('api');
  const status = query.get('status');
  return {
    search: query.get('search')?.trim() ?? '',
    plan: isPlanName(plan) ? plan : '',
    api: api === 'true' || api === 'false' ? api : '',
    status: isStanding(status) ? status : '',
  };
}

/** The filters backofficeOrganizations.list takes: only those chosen. */
export function queryOf(filters: OrganizationFilters) {
  const search = filters.search.trim();
  return {
    ...(search ? { search } : {}),
    ...(filters.plan ? { plan: filters.plan } : {}),
    ...(filters.api ? { apiEnabled: filters.api } : {}),
    ...(filters.status ? { status: filters.status } : {}),
  };
}

/** The list's address with the filters chosen (the others removed). */
export function urlOf(current: URL, filters: OrganizationFilters): URL {
  const url = new URL(current);
  for (const [name, value] of Object.entries({ ...filters, search: filters.search.trim() })) {
    if (value) url.searchParams.set(name, value);
    else url.searchParams.delete(name);
  }
  return url;
}

// The billing page's and the dashboard's shapes (domain/billing.ts, as types only) and the rules of their usage
// meters (docs/billing.md, "The meters"): how full a limit is, and when the page warns — at 80 % of it, and more
// strongly once it is reached.
import type { z } from 'zod';
import type * as schemas from '../../../../domain/billing.ts';

export type BillingSummary = z.output<typeof schemas.BillingSummary>;
export type Dashboard = z.output<typeof schemas.Dashboard>;
export type DashboardSection = z.output<typeof schemas.Dashboard>['drafts'];
export type DashboardSectionName = schemas.DashboardSectionName;
export type DashboardActivity = z.output<typeof schemas.DashboardActivity>;

/** The share of a limit at which a meter warns. */
export const WARNING_SHARE = 0.8;

/**
 * How full a meter is: no limit, nothing of it in the plan (a limit of 0, unused), well within it, near it (80 %
 * or more), or at (or over) it.
 */
export type MeterLevel = 'unlimited' | 'none' | 'ok' | 'warning' | 'reached';

export function meterLevel(used: number, limit: number | null): MeterLevel {
  if (limit === null) return 'unlimited';
  if (limit === 0 && used === 0) return 'none';
  if (used >= limit) return 'reached';
  return used >= limit * WARNING_SHARE ? 'warning' : 'ok';
}

/** The dashboard's sections in the order the page shows them (domain/billing.ts, DASHBOARD_SECTIONS). */
export const DASHBOARD_SECTIONS: typeof schemas.DASHBOARD_SECTIONS = [
  'awaitingSignature',
  'drafts',
  'deliveryFailed',
  'finalPdfFailed',
  'expiringSoon',
];

/** Each section's title, empty text and the documents list it opens (the list's tab; drafts: the user's own). */
export const SECTION_KEYS: Record<DashboardSectionName, { title: string; empty: string; date: string }> = {
  awaitingSignature: {
    title: 'dashboard.section.awaitingSignature',
    empty: 'dashboard.empty.awaitingSignature',
    date: 'dashboard.date.sent',
  },
  drafts: {
    title: 'dashboard.section.drafts',
    empty: 'dashboard.empty.drafts',
    date: 'dashboard.date.created',
  },
  deliveryFailed: {
    title: 'dashboard.section.deliveryFailed',
    empty: 'dashboard.empty.deliveryFailed',
    date: 'dashboard.date.failed',
  },
  finalPdfFailed: {
    title: 'dashboard.section.finalPdfFailed',
    empty: 'dashboard.empty.finalPdfFailed',
    date: 'dashboard.date.failed',
  },
  expiringSoon: {
    title: 'dashboard.section.expiringSoon',
    empty: 'dashboard.empty.expiringSoon',
    date: 'dashboard.date.expires',
  },
};

/** The documents list showing a section's envelopes. */
export function sectionListHref(name: DashboardSectionName, userId: string): string {
  switch (name) {
    case 'drafts':
      return `/app/documents?tab=drafts&sender=${encodeURIComponent(userId)}`;
    case 'expiringSoon':
      return '/app/documents?tab=in_progress';
    default:
      return '/app/documents?tab=action_needed';
  }
}

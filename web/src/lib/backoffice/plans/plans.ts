// What the backoffice's plans page shares (docs/backoffice.md, "Plans"): the server's shapes
// (domain/backoffice-plans.ts, types only), the fields an administrator changes with their words, how a typed
// value becomes what the server takes (empty: unlimited, or agreed per organization for a rate), and a value
// as the page shows it.
import type { z } from 'zod';
import type * as plans from '../../../../../domain/backoffice-plans.ts';
import type { AppOutputs } from '../../shared/app-client.ts';

/** As the client reads it (a history entry's `changes` is a record the wire may leave fields out of). */
export type BackofficePlan = AppOutputs['backofficePlans']['list']['plans'][number];
export type PlanVersion = BackofficePlan['history'][number];
export type PlanChangeRequest = z.input<typeof plans.UpdatePlanRequest>;
export type EditablePlanField = plans.EditablePlanField;

/** The numbers of a plan an administrator changes, in the form's order; `empty`: what an empty value means. */
export const PLAN_NUMBERS: readonly {
  field: Exclude<EditablePlanField, 'supportLevel'>;
  key: string;
  empty: 'unlimited' | 'agreed' | 'required';
}[] = [
  { field: 'monthlyDocumentLimit', key: 'backoffice.plans.fields.monthlyDocumentLimit', empty: 'unlimited' },
  { field: 'userLimit', key: 'backoffice.plans.fields.userLimit', empty: 'unlimited' },
  { field: 'teamLimit', key: 'backoffice.plans.fields.teamLimit', empty: 'unlimited' },
  { field: 'smsCreditsIncluded', key: 'backoffice.plans.fields.smsCreditsIncluded', empty: 'required' },
  { field: 'apiRequestsPerMinute', key: 'backoffice.plans.fields.apiRequestsPerMinute', empty: 'agreed' },
  { field: 'apiUploadsPerMinute', key: 'backoffice.plans.fields.apiUploadsPerMinute', empty: 'agreed' },
];

export const SUPPORT_LEVELS: typeof plans.SUPPORT_LEVELS = [
  'Community',
  'Standard',
  'Priority',
  'Premium',
  'Dedicated',
];

/** What an empty value means, said under each number. */
export const EMPTY_HINTS: Record<(typeof PLAN_NUMBERS)[number]['empty'], string> = {
  unlimited: 'backoffice.plans.empty.unlimited',
  agreed: 'backoffice.plans.empty.agreed',
  required: 'backoffice.plans.empty.required',
};

/** Each field's words (the history names the fields the server names). */
export const FIELD_KEYS: Record<string, string> = {
  ...Object.fromEntries(PLAN_NUMBERS.map(({ field, key }) => [field, key])),
  supportLevel: 'backoffice.plans.fields.supportLevel',
};

/** A typed number: null when empty, the number when whole and not negative, undefined when it is neither. */
export function typedNumber(text: string): number | null | undefined {
  const value = text.trim();
  if (value === '') return null;
  return /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

export function plansHref(): string {
  return '/backoffice/plans';
}

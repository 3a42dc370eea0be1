// A plan's limits in words, as the public plans page, an organization's backoffice page and the billing summary
// say them (GET /api/plans, docs/billing.md): a count of null is unlimited, no SMS credits is "None", and the
// support level by its name in the page's language (a level the catalog does not know, as the server says it).
import type { Plan } from '../shared/app-client.ts';

type Limits = Pick<
  Plan,
  'monthlyDocumentLimit' | 'userLimit' | 'teamLimit' | 'smsCreditsIncluded' | 'supportLevel'
>;

/** The plans' support levels in words. */
export const SUPPORT_LEVEL_KEYS: Record<string, string> = {
  Community: 'plans.supportLevel.community',
  Standard: 'plans.supportLevel.standard',
  Priority: 'plans.supportLevel.priority',
  Premium: 'plans.supportLevel.premium',
  Dedicated: 'plans.supportLevel.dedicated',
};

/** The limits' words: `say` is the page's catalog (`$_`), `count` its numbers. */
export function planLimitTexts(
  limits: Limits,
  say: (key: string) => string,
  count: (value: number) => string,
) {
  const limit = (value: number | null) => (value === null ? say('plans.unlimited') : count(value));
  const support = SUPPORT_LEVEL_KEYS[limits.supportLevel];
  return {
    documents: limit(limits.monthlyDocumentLimit),
    users: limit(limits.userLimit),
    teams: limit(limits.teamLimit),
    sms: limits.smsCreditsIncluded === 0 ? say('plans.none') : count(limits.smsCreditsIncluded),
    support: support ? say(support) : limits.supportLevel,
  };
}

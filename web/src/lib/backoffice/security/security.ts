// The backoffice security page's two lists (docs/backoffice.md, "Security") — the IP allowlist's entries and the
// allowed email domains: each list's words and its item's name, and the refusals in words: a change that would
// lock the administrator out (409 `would_lock_out`, with the address) and a domain administrators still have
// (409 `domain_in_use`); anything else is the server's message.

import type { Translate } from '$lib/shared/field-errors';
import { requestErrorOf } from '$lib/shared/request-error';
import { isolate } from '$lib/ui/format';
import { detailOf } from '../errors.ts';
import type { AllowedDomain, IpAllowlistEntry } from '../types.ts';

/** The list an item is of: an IP allowlist entry or an allowed email domain (also its messages' placeholder). */
export type PolicyKind = 'entry' | 'domain';
export type PolicyItem = IpAllowlistEntry | AllowedDomain;

/** What an item is called: the entry (an address or a range) or the domain. */
export function itemName(item: PolicyItem): string {
  return 'entry' in item ? item.entry : item.domain;
}

/** Each list's words (its messages take the item's name as `{entry}` or `{domain}`). */
export const POLICY_WORDS = {
  entry: {
    title: 'backoffice.security.allowlist',
    intro: 'backoffice.security.allowlistIntro',
    empty: 'backoffice.security.allowlistEmpty',
    name: 'backoffice.security.entry',
    add: 'backoffice.security.addEntry',
    addTitle: 'backoffice.security.addEntryTitle',
    editTitle: 'backoffice.security.editEntryTitle',
    required: 'backoffice.security.entryRequired',
    added: 'backoffice.security.entryAdded',
    changed: 'backoffice.security.entryChanged',
    removeTitle: 'backoffice.security.removeEntryTitle',
    removeBody: 'backoffice.security.removeEntryBody',
    removed: 'backoffice.security.entryRemoved',
  },
  domain: {
    title: 'backoffice.security.domains',
    intro: 'backoffice.security.domainsIntro',
    empty: 'backoffice.security.domainsEmpty',
    name: 'backoffice.security.domain',
    add: 'backoffice.security.addDomain',
    addTitle: 'backoffice.security.addDomainTitle',
    editTitle: 'backoffice.security.editDomainTitle',
    required: 'backoffice.security.domainRequired',
    added: 'backoffice.security.domainAdded',
    changed: 'backoffice.security.domainChanged',
    removeTitle: 'backoffice.security.removeDomainTitle',
    removeBody: 'backoffice.security.removeDomainBody',
    removed: 'backoffice.security.domainRemoved',
  },
} as const satisfies Record<PolicyKind, Record<string, string>>;

export function refusalText(error: unknown, t: Translate, yourAddress: string): string {
  const failure = requestErrorOf(error);
  if (failure.code === 'would_lock_out') {
    return t('backoffice.security.wouldLockOut', {
      values: { address: isolate(detailOf(error, 'address') ?? yourAddress) },
    });
  }
  if (failure.code === 'domain_in_use') {
    return t('backoffice.security.domainInUse', {
      values: { domain: isolate(detailOf(error, 'domain') ?? '') },
    });
  }
  return failure.serverMessage ?? t('workspace.unreachable');
}

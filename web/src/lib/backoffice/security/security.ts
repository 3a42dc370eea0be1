// The backoffice security page's refusals in words (docs/backoffice.md, "Security"): a change that would lock
// the administrator out (409 `would_lock_out`, with the address) and a domain administrators still have (409
// `domain_in_use`); anything else is the server's message.

import type { Translate } from '$lib/shared/field-errors';
import { requestErrorOf } from '$lib/shared/request-error';
import { isolate } from '$lib/ui/format';
import { detailOf } from '../errors.ts';

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

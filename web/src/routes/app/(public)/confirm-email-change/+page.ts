// /app/confirm-email-change?token=…: the link emailed to a new address, used as the page opens
// (auth.confirmEmailChange): the account's address becomes the new one.
import { claimLink } from '$lib/app/account/email-links';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = ({ url }) =>
  claimLink(url, (token) => appClient.auth.confirmEmailChange.mutate({ token }));

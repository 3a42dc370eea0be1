// /app/accept-invite?token=…: an invitation email's link, claimed first (auth.claimInvite: the organization, the
// role and the name the inviter typed, or that the link no longer works).
import { claimLink } from '$lib/app/account/email-links';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = ({ url }) =>
  claimLink(url, (token) => appClient.auth.claimInvite.mutate({ token }));

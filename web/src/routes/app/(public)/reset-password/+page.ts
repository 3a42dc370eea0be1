// /app/reset-password?token=…: the password-reset email's link, claimed first (auth.claimPasswordReset: whose
// account it is, or that the link no longer works).
import { claimLink } from '$lib/app/account/email-links';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = ({ url }) =>
  claimLink(url, (token) => appClient.auth.claimPasswordReset.mutate({ token }));

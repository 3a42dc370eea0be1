// /app/verify-email?token=…: the verification email's link, used as the page opens (auth.verifyEmail).
import { claimLink } from '$lib/app/account/email-links';
import { appClient } from '$lib/shared/app-client';
import type { PageLoad } from './$types';

export const load: PageLoad = ({ url }) =>
  claimLink(url, (token) => appClient.auth.verifyEmail.mutate({ token }));

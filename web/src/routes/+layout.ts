// A single-page application: nothing is rendered on the server or prerendered; the API process serves the
// fallback page (web/build/index.html) for every page path and the router takes over in the browser.
// Every page but the signer's waits here for the rest of the catalogs (lib/i18n: the signer's words come with
// the app's first script; a signer on a phone never loads the others).
import { loadAllMessages } from '$lib/i18n';
import type { LayoutLoad } from './$types';

export const ssr = false;
export const prerender = false;
export const trailingSlash = 'never';

export const load: LayoutLoad = async ({ route }) => {
  if (!route.id?.startsWith('/sign/')) await loadAllMessages();
};

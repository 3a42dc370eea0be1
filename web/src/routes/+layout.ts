// A single-page application: nothing is rendered on the server or prerendered; the API process serves the
// fallback page (web/build/index.html) for every page path and the router takes over in the browser.
export const ssr = false;
export const prerender = false;
export const trailingSlash = 'never';

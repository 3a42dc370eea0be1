// SvelteKit configuration of the web app. It is a single-page application: adapter-static writes the
// assets and one fallback page (index.html) that the API process serves for every page path, so client
// routes such as /sign/<token> need nothing on the server (see web/README.md).
import { createHash } from 'node:crypto';
import adapter from '@sveltejs/adapter-static';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/**
 * The one inline style attribute the app has: SvelteKit's route announcer (the visually hidden live region
 * that reads the new page's title after a navigation), written by SvelteKit's generated root component.
 * Allowed by its hash with 'unsafe-hashes', which admits exactly this attribute value and nothing else.
 */
const ANNOUNCER_STYLE =
  'position: absolute; left: 0; top: 0; clip: rect(0 0 0 0); clip-path: inset(50%); overflow: hidden; white-space: nowrap; width: 1px; height: 1px';
const ANNOUNCER_STYLE_HASH = `sha256-${createHash('sha256').update(ANNOUNCER_STYLE).digest('base64')}`;

/** @type {import('@sveltejs/kit').Config} */
const config = {
  preprocess: vitePreprocess(),
  compilerOptions: { runes: true },
  kit: {
    adapter: adapter({
      // scripts/ensure-web-build.ts builds into a fresh folder and swaps it in, so a running server never sees a
      // half-written build.
      pages: process.env.SIGIL_WEB_OUT ?? 'build',
      assets: process.env.SIGIL_WEB_OUT ?? 'build',
      fallback: 'index.html',
      // Writes a Brotli (.br, at the highest quality) and a gzip (.gz) copy beside every text file of the build
      // (HTML, JS, CSS, JSON, SVG, ...): the API process serves the one the browser accepts
      // (api/http/web-app.ts), so no request pays for compressing a file that never changes.
      precompress: true,
      strict: true,
    }),
    appDir: '_app',
    // Content-Security-Policy. The fallback page is written at build time, so its one inline script (the
    // router's bootstrap) is allowed by its hash, which SvelteKit computes and puts into the page as a
    // <meta http-equiv> policy; nonces would need a page rendered per request. The API process sends the
    // same policy as a header, with frame-ancestors, which a <meta> policy cannot carry
    // (api/http/web-app.ts). No 'unsafe-inline' anywhere: styles come from the built CSS files, the style:
    // directives set element.style (which a policy does not restrict), and the one style attribute in
    // markup, SvelteKit's route announcer, is allowed by its hash.
    csp: {
      mode: 'hash',
      directives: {
        'default-src': ['self'],
        'script-src': ['self'],
        'style-src': ['self'],
        'style-src-attr': ['unsafe-hashes', ANNOUNCER_STYLE_HASH],
        // The signature pad's PNG (a data: URL) and saved images shown from object URLs (blob:).
        'img-src': ['self', 'data:', 'blob:'],
        'font-src': ['self'],
        'connect-src': ['self'],
        // pdf.js renders the signer's document in a worker loaded from the build's own assets.
        'worker-src': ['self'],
        'object-src': ['none'],
        'base-uri': ['self'],
        'form-action': ['self'],
      },
    },
  },
};

export default config;

// SvelteKit configuration of the web app. It is a single-page application: adapter-static writes the
// assets and one fallback page (index.html) that the API process serves for every page path, so client
// routes such as /sign/<token> need nothing on the server (see web/README.md).
import adapter from '@sveltejs/adapter-static';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

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
      precompress: false,
      strict: true,
    }),
    appDir: '_app',
  },
};

export default config;

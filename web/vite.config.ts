// Vite configuration of the web app (web/). `npm run build:web` builds it; `npm run dev:web` serves it with
// hot reload on port 5173 and forwards the API paths to a running `npm start` (port 3000 unless
// SIGIL_API_URL says otherwise). The application routes' table the web client calls by is generated from the
// server's procedures (`virtual:app-routes`, scripts/vite-app-routes.ts); the catalogs come in two parts, the
// signer page's and the others (`virtual:i18n/*`, i18n-parts.ts).
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';
import { appRoutesPlugin } from '../scripts/vite-app-routes.ts';
import { i18nPartsPlugin } from './i18n-parts.ts';

const api = process.env.SIGIL_API_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [appRoutesPlugin(), i18nPartsPlugin(), sveltekit()],
  server: {
    port: 5173,
    strictPort: true,
    proxy: { '/api': api, '/oauth': api, '/swagger': api },
  },
  build: {
    reportCompressedSize: false,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // The kit (lib/ui, lib/shared), the shapes shared with the server (domain/) and what they import (the
          // Svelte and SvelteKit runtimes, svelte-i18n) in one chunk that the first page load asks for at once.
          // Left to the automatic splitting, they came as some thirty chunks of 0.1–2 KiB, each its own request
          // after the page's route was known: on a phone's HTTP/1.1 connections (six at a time, 150 ms each way
          // on slow 4G) those round trips cost the signer page more than the 14 KiB of kit it does not use
          // (docs/performance.md, "The signer page on a phone").
          // The application routes' client (app-client.ts, with tRPC and the route table) stays with the pages
          // that call it: the signer page does not.
          groups: [
            {
              name: 'kit',
              test: (id) =>
                /[\\/]web[\\/]src[\\/]lib[\\/](ui|shared)[\\/]|[\\/]domain[\\/]/.test(id) &&
                !/app-client/.test(id),
            },
          ],
        },
      },
    },
  },
  // SvelteKit's server-side runtime (used at build time to write the fallback page) imports `cookie` 0.6,
  // which npm nests under @sveltejs/kit because Fastify needs `cookie` 2 at the top. Bundling it resolves
  // it from Kit's own folder instead of from web/'s output.
  ssr: { noExternal: ['cookie'] },
});

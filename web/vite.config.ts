// Vite configuration of the web app (web/). `npm run build:web` builds it; `npm run dev:web` serves it with
// hot reload on port 5173 and forwards the API paths to a running `npm start` (port 3000 unless
// SIGIL_API_URL says otherwise). The application routes' table the web client calls by is generated from the
// server's procedures (`virtual:app-routes`, scripts/vite-app-routes.ts).
import { sveltekit } from '@sveltejs/kit/vite';
import { defineConfig } from 'vite';
import { appRoutesPlugin } from '../scripts/vite-app-routes.ts';

const api = process.env.SIGIL_API_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [appRoutesPlugin(), sveltekit()],
  server: {
    port: 5173,
    strictPort: true,
    proxy: { '/api': api, '/oauth': api, '/swagger': api },
  },
  build: { reportCompressedSize: false },
  // SvelteKit's server-side runtime (used at build time to write the fallback page) imports `cookie` 0.6,
  // which npm nests under @sveltejs/kit because Fastify needs `cookie` 2 at the top. Bundling it resolves
  // it from Kit's own folder instead of from web/'s output.
  ssr: { noExternal: ['cookie'] },
});

// Prints the REST route of every application procedure as JSON (`{ "plans.list": { "method": "GET", "path":
// "/api/plans" }, … }`), read from the procedures' own `route(...)` (restRoutesOf in api/trpc/init.ts). The
// web build's Vite plugin (scripts/vite-app-routes.ts) runs it in a process of its own, so the build loads
// no server code, and serves the table to the web client (web/src/lib/shared/app-client.ts).
import { restRoutesOf } from '../api/trpc/init.ts';
import { appRouter } from '../api/trpc/router.ts';

process.stdout.write(`${JSON.stringify(restRoutesOf(appRouter))}\n`);

// The module the web build generates from the server's procedures (scripts/vite-app-routes.ts): each
// procedure's REST route, as its `route(...)` declares it. Its type, for svelte-check and for the tests that
// import the client (app-client.ts references this file).
declare module 'virtual:app-routes' {
  export const APP_ROUTES: import('./lib/shared/app-client.ts').AppRoutes;
}

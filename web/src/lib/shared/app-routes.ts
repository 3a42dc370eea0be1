// The REST route of every application procedure, as the API declares it with `route(...)` in
// api/trpc/procedures/. The client (app-client.ts) sends each call to its route. The type makes the table
// list exactly the router's procedures (svelte-check fails when one is missing or unknown), and
// test/integration/app-routes.test.ts checks every method and path against the server's.
import type { AnyTRPCProcedure } from '@trpc/server';
import type { AppRouter } from '../../../../api/trpc/router.ts';

/** `plans.list` for the router's `plans: { list }`. */
type ProcedurePaths<TRecord, TPrefix extends string = ''> = {
  [K in keyof TRecord & string]: TRecord[K] extends AnyTRPCProcedure
    ? `${TPrefix}${K}`
    : ProcedurePaths<TRecord[K], `${TPrefix}${K}.`>;
}[keyof TRecord & string];

export type AppProcedurePath = ProcedurePaths<AppRouter['_def']['record']>;

export interface AppRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path parameters as `{id}`, filled from the input's field of that name. */
  path: `/api/${string}`;
}

export const APP_ROUTES = {
  'plans.list': { method: 'GET', path: '/api/plans' },
} as const satisfies Record<AppProcedurePath, AppRoute>;

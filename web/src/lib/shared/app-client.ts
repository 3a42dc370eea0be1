// The web app's client of the application routes (docs/app-api.md): @trpc/client, typed by the API's router
// through an `import type` (the browser bundle holds no server code), with one link that sends each call to
// the procedure's REST route — the specification's own paths, the same requests any other client makes — and
// reads the answer. The routes come from the procedures' own `route(...)`: the web build generates
// `virtual:app-routes` from the router (scripts/vite-app-routes.ts). tRPC's own HTTP links speak tRPC's
// protocol, not these routes (docs/app-api.md says why this link is ours). A failed call rejects with a
// TRPCClientError whose message is the server's `error.message`; `errorBodyOf` gives the whole error body
// `{ code, message, details, request_id }`, or undefined when no server answered (offline, a proxy's page).
/// <reference path="../../app-routes.d.ts" />
import { APP_ROUTES } from 'virtual:app-routes';
import { createTRPCClient, TRPCClientError, type TRPCLink } from '@trpc/client';
import type { AnyTRPCProcedure, inferRouterOutputs } from '@trpc/server';
import { observable } from '@trpc/server/observable';
import type { ErrorBody } from '../../../../api/http/errors.ts';
import type { AppRouter } from '../../../../api/trpc/router.ts';

/** `plans.list` for the router's `plans: { list }`. */
type ProcedurePaths<TRecord, TPrefix extends string = ''> = {
  [K in keyof TRecord & string]: TRecord[K] extends AnyTRPCProcedure
    ? `${TPrefix}${K}`
    : ProcedurePaths<TRecord[K], `${TPrefix}${K}.`>;
}[keyof TRecord & string];

export type AppProcedurePath = ProcedurePaths<AppRouter['_def']['record']>;

/** A procedure's REST route, as its `route(...)` declares it (api/trpc/init.ts, `RestRoute`). */
export interface AppRoute {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path parameters as `{id}`, filled from the input's field of that name. */
  path: `/api/${string}`;
}

/** Every procedure's route by its name: the type of the generated `virtual:app-routes`. */
export type AppRoutes = Readonly<Record<AppProcedurePath, AppRoute>>;

/** The REST route of a procedure (`appRoute('documents.get')`), for a request the client does not make. */
export function appRoute(procedure: AppProcedurePath): AppRoute {
  return APP_ROUTES[procedure];
}

export type AppOutputs = inferRouterOutputs<AppRouter>;
export type Plan = AppOutputs['plans']['list'][number];
export type AppErrorBody = ErrorBody['error'];

/** What the link attaches to a failed call's TRPCClientError (`error.meta`). */
interface FailureMeta {
  status?: number;
  body?: ErrorBody;
}

/** The specification's error body of a failed call; undefined when the server did not send one. */
export function errorBodyOf(error: unknown): AppErrorBody | undefined {
  if (!(error instanceof TRPCClientError)) return undefined;
  return (error.meta as FailureMeta | undefined)?.body?.error;
}

function isErrorBody(value: unknown): value is ErrorBody {
  const error = (value as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}

/** The request for a call: path parameters from the input's fields, the rest as query string or JSON body. */
export function requestFor(route: AppRoute, input: unknown): { url: string; body?: string } {
  const fields: Record<string, unknown> = isRecord(input) ? { ...input } : {};
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = fields[name];
    delete fields[name];
    if (value === undefined || value === null) throw new TypeError(`${route.path}: ${name} is missing`);
    return encodeURIComponent(text(value));
  });
  if (route.method === 'GET' || route.method === 'DELETE') {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (item !== undefined && item !== null) query.append(name, text(item));
      }
    }
    const search = query.toString();
    return { url: search ? `${path}?${search}` : path };
  }
  const body = isRecord(input) ? fields : input;
  return body === undefined ? { url: path } : { url: path, body: JSON.stringify(body) };
}

async function send(
  procedure: string,
  input: unknown,
  signal: AbortSignal,
  idempotencyKey?: string,
): Promise<unknown> {
  const route = (APP_ROUTES as Record<string, AppRoute | undefined>)[procedure];
  if (!route) throw new TypeError(`No route for the procedure ${procedure} (virtual:app-routes)`);
  const { url, body } = requestFor(route, input);
  const response = await fetch(url, {
    method: route.method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    },
    ...(body === undefined ? {} : { body }),
    credentials: 'same-origin',
    cache: 'no-store',
    signal,
  });
  const raw = await response.text();
  let json: unknown;
  try {
    json = raw ? JSON.parse(raw) : undefined;
  } catch {
    json = undefined;
  }
  if (response.ok) return json ?? undefined;
  const meta: FailureMeta = { status: response.status, ...(isErrorBody(json) ? { body: json } : {}) };
  throw new TRPCClientError(meta.body?.error.message ?? `HTTP ${response.status}`, {
    meta: meta as Record<string, unknown>,
  });
}

/** The terminating link: one HTTP request per call, cancelled with the call's signal. */
function restLink(): TRPCLink<AppRouter> {
  return () =>
    ({ op }) =>
      observable((observer) => {
        const controller = new AbortController();
        const abort = () => controller.abort();
        if (op.signal?.aborted) abort();
        op.signal?.addEventListener('abort', abort);
        // A route declaring `idempotent` takes an Idempotency-Key from the call's context:
        // `mutate(input, { context: { idempotencyKey } })`.
        const key = op.context?.idempotencyKey;
        send(op.path, op.input, controller.signal, typeof key === 'string' ? key : undefined).then(
          (data) => {
            observer.next({ result: { type: 'data', data } });
            observer.complete();
          },
          (cause: unknown) =>
            observer.error(TRPCClientError.from(cause instanceof Error ? cause : new Error(String(cause)))),
        );
        return () => {
          op.signal?.removeEventListener('abort', abort);
          controller.abort();
        };
      });
}

/** `await appClient.plans.list.query()`; pass `{ signal }` as the second argument to cancel. */
export const appClient = createTRPCClient<AppRouter>({ links: [restLink()] });

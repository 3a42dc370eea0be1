// One route declaration for the application API (docs/app-api.md): each procedure's `route(...)` is the only
// place its REST method and path are written. The web build generates the web client's table from it
// (`virtual:app-routes`, scripts/vite-app-routes.ts), so the client sends every call to the path the server
// serves; a procedure without a route fails that generation as it fails the server's start; and a route
// declared or changed in api/trpc/ makes the built web app stale (scripts/ensure-web-build.ts).
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TRPCClientError } from '@trpc/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { proceduresOf, publicProcedure, restRoutesOf, route, router } from '../../api/trpc/init.ts';
import { appRouter } from '../../api/trpc/router.ts';
import { WEB_BUILD_INPUTS, webSourcesHash } from '../../scripts/ensure-web-build.ts';
import { APP_ROUTES_MODULE, appRoutesModule, appRoutesPlugin } from '../../scripts/vite-app-routes.ts';
import { appClient, appRoute, errorBodyOf, requestFor } from '../../web/src/lib/shared/app-client.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ID = '7d0f1f8e-3b5a-4c2e-9f64-0c1d2e3f4a5b';

/** Every procedure's method and path as its metadata holds them. */
const declared = Object.fromEntries(
  proceduresOf(appRouter).map(([name, procedure]) => {
    const { method, path } = procedure.meta?.openapi ?? {};
    return [name, { method, path }];
  }),
);

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the web client’s routes, generated from the procedures', () => {
  it('the generated module holds every procedure’s method and path as its route(...) declares them', async () => {
    const plugin = appRoutesPlugin();
    const resolve = plugin.resolveId as (id: string) => string | undefined;
    const load = plugin.load as (id: string) => Promise<string> | undefined;
    const id = resolve(APP_ROUTES_MODULE) as string;
    expect(id).toBe(`\0${APP_ROUTES_MODULE}`);
    const source = await load(id);
    const generated = (await import(`data:text/javascript,${encodeURIComponent(source ?? '')}`)) as {
      APP_ROUTES: unknown;
    };
    expect(Object.keys(declared).length).toBeGreaterThan(100);
    expect(generated.APP_ROUTES).toEqual(declared);
    expect(source).toBe(await appRoutesModule());
  });

  it('the client calls each procedure at that route: path parameters, the query string, the JSON body', async () => {
    for (const [name, route] of Object.entries(declared)) {
      expect(appRoute(name as Parameters<typeof appRoute>[0]), name).toEqual(route);
    }
    expect(requestFor(appRoute('documents.get'), { id: ID })).toEqual({ url: `/api/documents/${ID}` });

    const sent: { url: string; method: string; body: unknown; headers: Record<string, string> }[] = [];
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      sent.push({
        url,
        method: init.method ?? 'GET',
        body: init.body === undefined ? undefined : JSON.parse(String(init.body)),
        headers: init.headers as Record<string, string>,
      });
      if (url.startsWith('/api/roles/')) {
        return new Response(
          JSON.stringify({
            error: { code: 'not_found', message: 'No such role.', details: [], request_id: 'r-1' },
          }),
          { status: 404, headers: { 'content-type': 'application/json' } },
        );
      }
      return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
    });
    await appClient.documents.list.query({ search: 'lease', status: 'Sent' } as never);
    await appClient.users.update.mutate({ id: ID, fullName: 'Dana' } as never);
    await appClient.sending.fromTemplate.mutate({ templateId: ID } as never, {
      context: { idempotencyKey: 'key-1' },
    });
    const refused = await appClient.roles.delete.mutate({ id: ID }).catch((error: unknown) => error);
    expect(sent.map(({ method, url }) => `${method} ${url}`)).toEqual([
      'GET /api/documents?search=lease&status=Sent',
      `PUT /api/users/${ID}`,
      'POST /api/documents/send-from-template',
      `DELETE /api/roles/${ID}`,
    ]);
    expect(sent[1]?.body).toEqual({ fullName: 'Dana' });
    expect(sent[2]?.headers['idempotency-key']).toBe('key-1');
    expect(refused).toBeInstanceOf(TRPCClientError);
    expect(errorBodyOf(refused)).toEqual({
      code: 'not_found',
      message: 'No such role.',
      details: [],
      request_id: 'r-1',
    });
  });

  it('a procedure without a route, or a query on another method than GET, fails the generation', () => {
    expect(() => restRoutesOf(router({ loose: publicProcedure.query(() => 'x') }))).toThrow(
      /loose has no REST route/,
    );
    const wrongMethod = router({
      sneaky: publicProcedure
        .meta(route('POST', '/api/test/sneaky', { summary: 'A query', tags: ['test'], access: 'public' }))
        .output(z.object({}))
        .query(() => ({})),
    });
    expect(() => restRoutesOf(wrongMethod)).toThrow(/queries are GET routes/);
  });
});

describe('the web build’s staleness (scripts/ensure-web-build.ts)', () => {
  let copy: string | undefined;
  afterEach(async () => {
    if (copy) await rm(copy, { recursive: true, force: true });
    copy = undefined;
  });

  it('changes when a route declaration changes, and not for server code the table is not made from', async () => {
    copy = await mkdtemp(join(tmpdir(), 'sigil-web-hash-'));
    const write = async (path: string, text: string) => {
      await mkdir(dirname(join(copy as string, path)), { recursive: true });
      await writeFile(join(copy as string, path), text);
    };
    await write('web/src/app.html', '<html></html>');
    await write('package-lock.json', '{}');
    for (const input of WEB_BUILD_INPUTS) {
      await cp(join(ROOT, input), join(copy, input), { recursive: true });
    }
    await write('api/http/server.ts', 'export const server = 1;');
    const before = await webSourcesHash(copy);
    await write('api/http/server.ts', 'export const server = 2;');
    expect(await webSourcesHash(copy)).toBe(before);
    const plans = await readFile(join(ROOT, 'api/trpc/procedures/plans.ts'), 'utf8');
    expect(plans).toContain("'/api/plans'");
    await write('api/trpc/procedures/plans.ts', plans.replace("'/api/plans'", "'/api/pricing'"));
    expect(await webSourcesHash(copy)).not.toBe(before);
  });
});

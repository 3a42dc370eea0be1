// The API process serves the built web app (web/build) on its own origin: page paths get the app's fallback
// page with a strict Content-Security-Policy and the other security headers, built files are served with the
// right caching, API paths are never shadowed by the app, development pages are not served in production,
// and a missing build is said plainly. Text files go compressed from the build's precompressed copies (Brotli, then
// gzip, as the request accepts), varying by Accept-Encoding.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../api/http/server.ts';
import { pagePolicy, registerWebApp, WEB_BUILD_DIR } from '../../api/http/web-app.ts';
import { redactTokensInPath } from '../../config/logger.ts';
import { type ApiHarness, buildTestApp, openApiHarness, productionConfig } from '../support/api.ts';

/** The inline style of SvelteKit's route announcer, which SvelteKit writes into its generated root component. */
const ANNOUNCER_STYLE =
  'position: absolute; left: 0; top: 0; clip: rect(0 0 0 0); clip-path: inset(50%); overflow: hidden; white-space: nowrap; width: 1px; height: 1px';
const ROOT_WRITER = join(
  dirname(createRequire(import.meta.url).resolve('@sveltejs/kit/package.json')),
  'src/core/sync/write_root.js',
);

let harness: ApiHarness;
let production: FastifyInstance;
let app: FastifyInstance;

beforeAll(async () => {
  harness = await openApiHarness();
  app = harness.app;
  production = await buildTestApp(harness.ctx, productionConfig());
});
afterAll(async () => {
  await production?.close();
  await harness?.close();
});

async function someImmutableScript(): Promise<string> {
  const dir = join(WEB_BUILD_DIR, '_app/immutable/entry');
  const file = (await readdir(dir)).find((name) => name.endsWith('.js'));
  if (!file) throw new Error('no entry script in web/build');
  return `/_app/immutable/entry/${file}`;
}

describe('the web app on the API origin', () => {
  it('answers page paths with the app, never cached and with no referrer', async () => {
    for (const url of ['/', '/dev/notifications', '/dev/notifications?kind=otp', '/sign/AbCdEf0123456789']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type'], url).toMatch(/^text\/html/);
      expect(response.body, url).toContain('/_app/immutable/entry/');
      expect(response.headers['cache-control'], url).toBe('no-cache');
      expect(response.headers['referrer-policy'], url).toBe('no-referrer');
      expect(response.headers['x-frame-options'], url).toBe('DENY');
    }
    const head = await app.inject({ method: 'HEAD', url: '/dev/notifications' });
    expect(head.statusCode).toBe(200);
  });

  it('sends a strict Content-Security-Policy with every page, allowing its inline script by hash only', async () => {
    for (const url of ['/', '/sign/AbCdEf0123456789', '/plans']) {
      const response = await app.inject({ method: 'GET', url });
      const policy = String(response.headers['content-security-policy']);
      const directives = new Map(
        policy.split(/;\s*/).map((directive) => {
          const [name = '', ...sources] = directive.trim().split(/\s+/);
          return [name, sources];
        }),
      );
      const inline = [...response.body.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
        (match) =>
          `'sha256-${createHash('sha256')
            .update(match[1] ?? '')
            .digest('base64')}'`,
      );
      expect(inline.length, url).toBeGreaterThan(0);
      expect(directives.get('script-src'), url).toEqual(["'self'", ...inline]);
      expect(Object.fromEntries([...directives].filter(([name]) => name !== 'script-src')), url).toEqual({
        'default-src': ["'self'"],
        'style-src': ["'self'"],
        // SvelteKit's route announcer, the app's one style attribute, by its hash.
        'style-src-attr': [
          "'unsafe-hashes'",
          `'sha256-${createHash('sha256').update(ANNOUNCER_STYLE).digest('base64')}'`,
        ],
        'img-src': ["'self'", 'data:', 'blob:'],
        'font-src': ["'self'"],
        'connect-src': ["'self'"],
        'worker-src': ["'self'"],
        'object-src': ["'none'"],
        'base-uri': ["'self'"],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
      });
      expect(policy, url).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(response.body, url).not.toMatch(/\sstyle="/);
      expect(await readFile(ROOT_WRITER, 'utf8')).toContain(`style="${ANNOUNCER_STYLE}"`);
      expect(response.headers['x-content-type-options'], url).toBe('nosniff');
    }
  });

  it('gives a page built without its own policy a strict one from its inline scripts', () => {
    const page = '<html><head></head><body><script>start()</script></body></html>';
    const hash = createHash('sha256').update('start()').digest('base64');
    expect(pagePolicy(page)).toBe(
      `default-src 'self'; script-src 'self' 'sha256-${hash}'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'`,
    );
    const own = '<meta http-equiv="content-security-policy" content="default-src &#39;self&#39;">';
    expect(pagePolicy(own)).toBe("default-src 'self'; frame-ancestors 'none'");
  });

  it('serves built files, hashed ones for a year', async () => {
    const script = await someImmutableScript();
    const response = await app.inject({ method: 'GET', url: script });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/javascript/);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const robots = await app.inject({ method: 'GET', url: '/robots.txt' });
    expect(robots.statusCode).toBe(200);
    expect(robots.body).toContain('Disallow: /');
    expect(robots.headers['cache-control']).toBe('no-cache');
  });

  it('sends a built script compressed as the request accepts: Brotli, else gzip, else as it is', async () => {
    const script = await someImmutableScript();
    const file = await readFile(join(WEB_BUILD_DIR, script));
    const get = (acceptEncoding?: string) =>
      app.inject({
        method: 'GET',
        url: script,
        headers: acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding },
      });
    const cases = [
      // What Chromium sends: Brotli wins over gzip.
      { accept: 'gzip, deflate, br, zstd', encoding: 'br', decode: brotliDecompressSync },
      { accept: 'br', encoding: 'br', decode: brotliDecompressSync },
      { accept: 'gzip', encoding: 'gzip', decode: gunzipSync },
      { accept: 'br;q=0, gzip', encoding: 'gzip', decode: gunzipSync },
      { accept: 'identity', encoding: undefined, decode: (body: Buffer) => body },
      { accept: undefined, encoding: undefined, decode: (body: Buffer) => body },
    ];
    const etags = new Map<string | undefined, string>();
    for (const { accept, encoding, decode } of cases) {
      const response = await get(accept);
      const label = `Accept-Encoding: ${accept ?? '(none)'}`;
      expect(response.statusCode, label).toBe(200);
      expect(response.headers['content-encoding'], label).toBe(encoding);
      expect(response.headers.vary, label).toMatch(/accept-encoding/i);
      expect(response.headers['content-type'], label).toMatch(/javascript/);
      expect(response.headers['cache-control'], label).toBe('public, max-age=31536000, immutable');
      expect(Number(response.headers['content-length']), label).toBe(response.rawPayload.byteLength);
      expect(decode(response.rawPayload).equals(file), label).toBe(true);
      if (encoding) expect(response.rawPayload.byteLength, label).toBeLessThan(file.byteLength / 2);
      etags.set(encoding, String(response.headers.etag));
    }
    // Each coding has its own validator, so a cache never answers one coding's revalidation with another's.
    expect(new Set(etags.values()).size).toBe(3);
    const revalidated = await app.inject({
      method: 'GET',
      url: script,
      headers: { 'accept-encoding': 'br', 'if-none-match': String(etags.get('br')) },
    });
    expect(revalidated.statusCode).toBe(304);
  });

  it('sends the page compressed too, with its policy and no caching', async () => {
    const page = await readFile(join(WEB_BUILD_DIR, 'sign.html'));
    const response = await app.inject({
      method: 'GET',
      url: '/sign/AbCdEf0123456789',
      headers: { 'accept-encoding': 'gzip, br' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-encoding']).toBe('br');
    expect(response.headers.vary).toMatch(/accept-encoding/i);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(brotliDecompressSync(response.rawPayload).equals(page)).toBe(true);
  });

  it("gives a signing link the fallback page with the signer route's chunks preloaded, the same page otherwise", async () => {
    const index = await readFile(join(WEB_BUILD_DIR, 'index.html'), 'utf8');
    const manifest = JSON.parse(
      await readFile(join(WEB_BUILD_DIR, '../.svelte-kit/output/client/.vite/manifest.json'), 'utf8'),
    ) as Record<string, { file: string; src?: string; css?: string[] }>;
    // The route's own node: the generated module that imports the signer page's component.
    const nodes = Object.values(manifest).filter((chunk) => /nodes\/\d+\.js$/.test(chunk.src ?? ''));
    const sources = await Promise.all(
      nodes.map((chunk) => readFile(join(WEB_BUILD_DIR, '..', chunk.src ?? ''), 'utf8')),
    );
    const signer = nodes[sources.findIndex((text) => text.includes('routes/sign/[token]/+page.svelte'))];
    expect(signer, 'the signer route has a node in the build').toBeDefined();
    const response = await app.inject({ method: 'GET', url: '/sign/AbCdEf0123456789' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain(`<link href="/${signer?.file}" rel="modulepreload">`);
    for (const css of signer?.css ?? []) {
      expect(response.body).toContain(`<link href="/${css}" rel="preload" as="style">`);
    }
    // Only preloads are added: without the links index.html does not have, the page is index.html (so its policy
    // and bootstrap script hold for it as they are).
    const added = [...response.body.matchAll(/<link [^>]*>/g)]
      .map((match) => match[0])
      .filter((link) => !index.includes(link));
    expect(added.length).toBeGreaterThan(0);
    for (const link of added) expect(link).toMatch(/rel="(?:modulepreload|preload" as="style)"/);
    const without = added.reduce((page, link) => page.replace(link, ''), response.body);
    expect(without.replace(/\s+/g, '')).toBe(index.replace(/\s+/g, ''));
    // Other pages (and paths below a link, which are no signer page) keep index.html.
    for (const url of ['/', '/app', '/sign', '/sign/AbCdEf0123456789/more']) {
      const other = await app.inject({ method: 'GET', url });
      expect(other.body, url).toBe(index);
    }
  });

  it('answers a missing file, a dot-file or a path outside the build with 404, not the app', async () => {
    for (const url of [
      '/_app/immutable/entry/missing.js',
      '/missing.css',
      '/.sigil-sources.sha256',
      '/..%2f..%2fpackage.json',
      '/%2e%2e/%2e%2e/package.json',
    ]) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json().error.code, url).toBe('not_found');
    }
  });

  it('never shadows the APIs: unknown API paths stay JSON 404s', async () => {
    for (const url of [
      '/api/nothing',
      '/api',
      '/api/v1/nothing-here',
      '/oauth/nothing',
      '/swagger/nothing',
    ]) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json().error.code, url).toBe('not_found');
    }
    expect((await app.inject({ method: 'GET', url: '/api/health' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/api/dev/notifications?limit=1' })).statusCode).toBe(200);
    const swagger = await app.inject({ method: 'GET', url: '/swagger' });
    expect(swagger.statusCode).toBeLessThan(400);
    expect(swagger.body).not.toContain('/_app/immutable/entry/');
    const openapi = await app.inject({ method: 'GET', url: '/api/openapi/v1/openapi.json' });
    expect(openapi.statusCode).toBe(200);
  });

  it('in production serves the app but neither the development pages nor their API', async () => {
    expect((await production.inject({ method: 'GET', url: '/' })).statusCode).toBe(200);
    expect((await production.inject({ method: 'GET', url: '/sign/AbCdEf0123456789' })).statusCode).toBe(200);
    for (const url of ['/dev/notifications', '/dev', '/api/dev/notifications']) {
      const response = await production.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(404);
      expect(response.json().error.code, url).toBe('not_found');
    }
  });

  it('says so when the web app is not built', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'sigil-no-web-'));
    const bare = createServer({ logger: pino({ level: 'silent' }) });
    await registerWebApp(bare, { env: 'development', buildDir: empty });
    try {
      const response = await bare.inject({ method: 'GET', url: '/dev/notifications' });
      expect(response.statusCode).toBe(503);
      expect(response.json().error.message).toMatch(/npm run build:web/);
      expect((await bare.inject({ method: 'GET', url: '/api/anything' })).statusCode).toBe(404);
    } finally {
      await bare.close();
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('keeps signing tokens of signer pages out of the request log', () => {
    expect(redactTokensInPath('/sign/AbCdEf0123456789?lang=he')).toBe('/sign/[token]?lang=he');
    expect(redactTokensInPath('/dev/notifications')).toBe('/dev/notifications');
  });
});

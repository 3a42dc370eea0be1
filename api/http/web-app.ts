// Serves the built web app (web/build, from `npm run build:web`) on the API's origin. A file of the build is
// served as it is; any other page path gets the app's fallback page (index.html), whose router draws the page
// in the browser (`/dev/notifications`, `/sign/<token>` and whatever comes). API paths are never answered with
// the app: an unknown `/api/…`, `/oauth/…` or `/swagger/…` path stays a JSON 404. In production the
// development pages (`/dev/…`) are not served either. Files are looked up per request, so a rebuild is picked
// up without a restart. Pages carry a strict Content-Security-Policy: the one SvelteKit writes into the page
// (web/svelte.config.js, the inline bootstrap script allowed by its hash), sent as a header with
// `frame-ancestors 'none'`, which only a header can carry.
// The build holds a Brotli (.br) and a gzip (.gz) copy of every text file (adapter-static's `precompress`,
// web/svelte.config.js): @fastify/static's `preCompressed` sends the copy the request's Accept-Encoding
// prefers (Brotli before gzip), with Content-Encoding, the copy's own Content-Length and ETag, and
// `Vary: Accept-Encoding` on every file it serves, compressed or not, so a shared cache keeps them apart.
// Files that are compressed already (PNG, WOFF2, PDF) have no copies and go as they are. Content-hashed
// assets (`/_app/immutable/…`) are cached for a year as immutable; everything else is revalidated (no-cache).
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SigilEnv } from '../../config/config.ts';
import { AppError } from '../../services/errors.ts';

export const WEB_BUILD_DIR = fileURLToPath(new URL('../../web/build', import.meta.url));

/** Paths that belong to the APIs, whatever the app's router would make of them. */
const API_PATHS = /^\/(?:api|oauth|swagger)(?:\/|$)/;
/** Pages that exist only outside production. */
const DEVELOPMENT_PAGES = /^\/dev(?:\/|$)/;
/** The signer's link: its own copy of the fallback page, which preloads the route's chunks when the build has it. */
const SIGNER_LINK = /^\/sign\/[^/]+\/?$/;
/** Written by the web build beside index.html (scripts/web-route-pages.ts). */
const SIGNER_PAGE = 'sign.html';
/** Content-hashed assets never change under their name. */
const IMMUTABLE_ASSETS = /^\/_app\/immutable\//;
/** Paths that name a file: when it does not exist the answer is 404, not the app. */
const FILE_PATHS = /^\/_app\/|\.(?:js|mjs|css|map|json|txt|svg|png|jpe?g|gif|webp|ico|woff2?|webmanifest)$/;
/** A dot-file or dot-folder (the build's stamp, `..`, encoded or not) is never served, nor is the app. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e)/i;
/** The policy SvelteKit writes into a page it renders at build time (kit.csp in web/svelte.config.js). */
const META_POLICY = /<meta http-equiv="content-security-policy" content="([^"]*)"/i;
const INLINE_SCRIPT = /<script>([\s\S]*?)<\/script>/g;
/** Added to the page's own policy: a <meta> policy cannot say who may frame the page. */
const HEADER_ONLY_DIRECTIVES = "frame-ancestors 'none'";

export interface WebAppOptions {
  env: SigilEnv;
  /** Where the built app is (default web/build). */
  buildDir?: string;
}

export async function registerWebApp(app: FastifyInstance, options: WebAppOptions): Promise<void> {
  const root = resolve(options.buildDir ?? WEB_BUILD_DIR);
  // reply.sendFile only; the one route below decides what is served.
  await app.register(fastifyStatic, { serve: false, preCompressed: true });
  const policies = new PagePolicies(resolve(root, 'index.html'));

  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    const path = request.url.split(/[?#]/, 1)[0] ?? '/';
    if (
      API_PATHS.test(path) ||
      DOT_SEGMENT.test(path) ||
      (options.env === 'production' && DEVELOPMENT_PAGES.test(path))
    ) {
      return reply.callNotFound();
    }
    reply.header('x-content-type-options', 'nosniff');
    const file = await existingFile(root, path);
    if (file) {
      if (IMMUTABLE_ASSETS.test(path)) {
        return reply.sendFile(file, root, { dotfiles: 'deny', maxAge: '365d', immutable: true });
      }
      reply.header('cache-control', 'no-cache');
      return reply.sendFile(file, root, { dotfiles: 'deny', cacheControl: false });
    }
    if (FILE_PATHS.test(path)) return reply.callNotFound();
    if (!(await existingFile(root, '/index.html'))) {
      throw new AppError(
        503,
        'service_unavailable',
        'The web app is not built on this server: run `npm run build:web` (npm start does it by itself).',
      );
    }
    // The signer page differs from index.html only by its preloads, so index.html's policy is its policy.
    const page =
      SIGNER_LINK.test(path) && (await existingFile(root, `/${SIGNER_PAGE}`)) ? SIGNER_PAGE : 'index.html';
    return sendPage(reply, root, page, await policies.current());
  });
}

function sendPage(reply: FastifyReply, root: string, page: string, policy: string) {
  // Pages carry signing tokens in their address: no Referer leaves them, and no other site may frame them.
  reply.header('content-security-policy', policy);
  reply.header('referrer-policy', 'no-referrer');
  reply.header('x-frame-options', 'DENY');
  reply.header('cache-control', 'no-cache');
  return reply.sendFile(page, root, { cacheControl: false });
}

/** The Content-Security-Policy header of the fallback page, read from the page once per build. */
class PagePolicies {
  private readonly page: string;
  private cached: { build: string; policy: string } | undefined;

  constructor(page: string) {
    this.page = page;
  }

  async current(): Promise<string> {
    const info = await stat(this.page);
    const build = `${info.mtimeMs}:${info.size}`;
    if (this.cached?.build !== build) {
      this.cached = { build, policy: pagePolicy(await readFile(this.page, 'utf8')) };
    }
    return this.cached.policy;
  }
}

/**
 * The page's own policy plus what only a header can say. A page built without one (kit.csp removed) still
 * gets a strict policy: its own files and its inline scripts by their hashes, nothing else.
 */
export function pagePolicy(html: string): string {
  const meta = META_POLICY.exec(html)?.[1];
  if (meta !== undefined) return `${unescapeAttribute(meta)}; ${HEADER_ONLY_DIRECTIVES}`;
  const hashes = [...html.matchAll(INLINE_SCRIPT)].map(
    (match) =>
      `'sha256-${createHash('sha256')
        .update(match[1] ?? '')
        .digest('base64')}'`,
  );
  return [
    "default-src 'self'",
    ['script-src', "'self'", ...hashes].join(' '),
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    HEADER_ONLY_DIRECTIVES,
  ].join('; ');
}

function unescapeAttribute(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The path relative to `root` when it names a regular file inside it, else undefined. */
async function existingFile(root: string, urlPath: string): Promise<string | undefined> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  // No NUL, and no dot-file or dot-folder (the build's stamp, `..`).
  if (decoded.includes('\0') || decoded.split('/').some((segment) => segment.startsWith('.')))
    return undefined;
  const absolute = resolve(root, `.${decoded}`);
  if (!absolute.startsWith(root + sep)) return undefined;
  const info = await stat(absolute).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  return absolute
    .slice(root.length + 1)
    .split(sep)
    .join('/');
}

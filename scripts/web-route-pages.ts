// The signer's own fallback page. The app's fallback page (index.html) names the scripts every route needs
// (the router and the root layout); the browser learns of a route's own chunks only once the router has run
// and asked for them — one more round trip before the first render, the longest step of a phone's first
// paint on a slow network (docs/performance.md). Signers are the users who open a link cold, on a phone, so
// after each build this writes `sign.html`: index.html with `<link rel="modulepreload">` for every chunk the
// signer route imports statically (and a preload of its stylesheet), which the API process serves for
// `/sign/<token>` (api/http/web-app.ts). Everything else about the page (its policy, its bootstrap script)
// is index.html's own, so the page's Content-Security-Policy stays the same.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** The page the signer route gets, beside index.html in the build. */
export const SIGNER_PAGE = 'sign.html';
/** The route's page component, as the node files SvelteKit generates import it. */
const SIGNER_ROUTE_COMPONENT = 'src/routes/sign/[token]/+page.svelte';

interface ManifestChunk {
  file: string;
  src?: string;
  imports?: string[];
  css?: string[];
}
type Manifest = Record<string, ManifestChunk>;

/**
 * Writes `sign.html` (with its Brotli and gzip copies, as adapter-static's `precompress` does for the rest)
 * into `buildDir`, from the Vite manifest and the generated node files of the build in `webDir`. Answers the
 * files it preloads.
 */
export async function writeSignerPage(webDir: string, buildDir: string): Promise<string[]> {
  const manifestPath = join(webDir, '.svelte-kit/output/client/.vite/manifest.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Manifest;
  const node = await routeNode(webDir, manifest, SIGNER_ROUTE_COMPONENT);
  const html = await readFile(join(buildDir, 'index.html'), 'utf8');
  const { scripts, styles } = staticClosure(manifest, node);
  const page = withPreloads(html, scripts, styles);
  await writeFile(join(buildDir, SIGNER_PAGE), page);
  await writeFile(
    join(buildDir, `${SIGNER_PAGE}.br`),
    brotliCompressSync(page, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  );
  await writeFile(join(buildDir, `${SIGNER_PAGE}.gz`), gzipSync(page, { level: 9 }));
  return [...scripts, ...styles];
}

/** The manifest key of the generated node that renders `component`. */
async function routeNode(webDir: string, manifest: Manifest, component: string): Promise<string> {
  for (const [key, chunk] of Object.entries(manifest)) {
    if (!/^\.svelte-kit\/generated\/client-optimized\/nodes\/\d+\.js$/.test(key)) continue;
    const source = join(webDir, chunk.src ?? key);
    if (!existsSync(source)) continue;
    if ((await readFile(source, 'utf8')).includes(`/${component}"`)) return key;
  }
  throw new Error(`the web build has no node for ${component} (its Vite manifest was read)`);
}

/** Every chunk `key` imports statically, itself included, and their stylesheets: build paths from `/`. */
function staticClosure(manifest: Manifest, key: string): { scripts: string[]; styles: string[] } {
  const scripts: string[] = [];
  const styles = new Set<string>();
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const chunk = manifest[name];
    if (!chunk) throw new Error(`the web build's Vite manifest has no chunk ${name}`);
    scripts.push(`/${chunk.file}`);
    for (const css of chunk.css ?? []) styles.add(`/${css}`);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  visit(key);
  return { scripts, styles: [...styles] };
}

/** index.html with preloads of what it does not already name, before `</head>`. */
export function withPreloads(html: string, scripts: string[], styles: string[]): string {
  const named = (file: string) => html.includes(`"${file}"`);
  const links = [
    ...scripts.filter((file) => !named(file)).map((file) => `<link href="${file}" rel="modulepreload">`),
    ...styles.filter((file) => !named(file)).map((file) => `<link href="${file}" rel="preload" as="style">`),
  ];
  const at = html.indexOf('</head>');
  if (at < 0) throw new Error('the fallback page has no </head>');
  return `${html.slice(0, at).trimEnd()}\n\t\t${links.join('\n\t\t')}\n  ${html.slice(at)}`;
}

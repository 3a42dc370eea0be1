// The workflow code a worker runs, bundled once per version of it (docs/deployment.md, "Workers"). Bundling
// (webpack, inside the SDK) takes seconds on an idle machine and far longer on a loaded one, and every worker
// start did it: a worker restarted after a crash polled again only once it was done. The bundle is now kept in
// the cache directory under a key that covers everything it is made of — the source of every module the
// workflows import, followed from workflows/index.ts (type-only imports left out: the bundler drops them), the
// lockfile (the packages' versions) and this file's format — so a changed workflow is bundled again and an
// unchanged one is loaded as it is. A cache that cannot be written costs only the time: the bundle made now is
// used from memory.
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { bundleWorkflowCode, type Logger, type WorkflowBundleOption } from '@temporalio/worker';

/** Changes when the way bundles are made or named changes, so older ones are not taken for current ones. */
const BUNDLE_FORMAT = 'sigil-workflow-bundle/1';
/** Bundles of other versions kept beside the current one (a worker of the previous release starting). */
const KEEP_OTHERS = 2;

/** Every static import or re-export's specifier, and whether it is type-only. */
const IMPORT = /(?:^|[\n;])\s*(import|export)\s+(type\s+)?(?:[^'"`;]*?\s+from\s+)?['"]([^'"]+)['"]/g;

/** The relative modules a source file imports for their values (`import type` and `export type` left out). */
export function relativeImports(source: string): string[] {
  const found: string[] = [];
  for (const match of source.matchAll(IMPORT)) {
    const [, , typeOnly, specifier] = match;
    if (typeOnly || !specifier || !(specifier.startsWith('./') || specifier.startsWith('../'))) continue;
    found.push(specifier);
  }
  return found;
}

/** The workflow modules from the entry on, each with its source, in a stable order. */
async function workflowSources(entry: string): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  const pending = [resolve(entry)];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (sources.has(file)) continue;
    const source = await readFile(file, 'utf8');
    sources.set(file, source);
    for (const specifier of relativeImports(source)) pending.push(resolve(dirname(file), specifier));
  }
  return new Map([...sources].sort(([a], [b]) => a.localeCompare(b)));
}

/** The nearest package-lock.json above the entry (the packages the bundle takes in). */
async function lockfile(from: string): Promise<string> {
  let dir = dirname(resolve(from));
  for (;;) {
    const candidate = join(dir, 'package-lock.json');
    try {
      return await readFile(candidate, 'utf8');
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return '';
      dir = parent;
    }
  }
}

/** The key of the bundle the entry makes now: its modules' paths (relative to the entry) and sources, the lockfile. */
export async function workflowBundleKey(entry: string): Promise<string> {
  const hash = createHash('sha256').update(BUNDLE_FORMAT);
  const root = dirname(resolve(entry));
  for (const [file, source] of await workflowSources(entry)) {
    hash.update(`\0${file.slice(root.length)}\0${source.length}\0`).update(source);
  }
  hash.update('\0lock\0').update(await lockfile(entry));
  return hash.digest('hex').slice(0, 32);
}

export interface WorkflowBundleOptions {
  workflowsPath: string;
  /** Where bundles are kept (`<SIGIL_CACHE_DIR>/workflow-bundles`). */
  cacheDir: string;
  logger: Logger;
}

export interface LoadedWorkflowBundle {
  bundle: WorkflowBundleOption;
  /** `cached`: loaded as it was; `bundled`: made now (and stored, unless `stored` is false). */
  source: 'cached' | 'bundled';
  stored: boolean;
  key: string;
  path: string;
  ms: number;
}

/** The bundle of the workflows as they are now: the cached one when there is one, else made and stored. */
export async function loadWorkflowBundle(options: WorkflowBundleOptions): Promise<LoadedWorkflowBundle> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let key: string;
  try {
    key = await workflowBundleKey(options.workflowsPath);
  } catch (error) {
    // An import the key cannot follow (a module it cannot read): bundled as before, never cached under a key
    // that might not cover it.
    options.logger.warn('the workflow code cannot be keyed; it is bundled without the cache', {
      error: error instanceof Error ? error.message : String(error),
    });
    const { code } = await bundleWorkflowCode({
      workflowsPath: options.workflowsPath,
      logger: options.logger,
    });
    return { bundle: { code }, source: 'bundled', stored: false, key: '', path: '', ms: elapsed() };
  }
  const path = join(options.cacheDir, `workflow-bundle-${key}.js`);
  try {
    const found = await stat(path);
    if (found.isFile() && found.size > 0) {
      return { bundle: { codePath: path }, source: 'cached', stored: true, key, path, ms: elapsed() };
    }
  } catch {
    // Not made yet for this version.
  }
  const { code } = await bundleWorkflowCode({ workflowsPath: options.workflowsPath, logger: options.logger });
  let stored = false;
  try {
    // Written under a name of its own and renamed: a worker starting meanwhile never reads half a bundle.
    const partial = `${path}.${process.pid}.${Date.now()}.partial`;
    await mkdir(options.cacheDir, { recursive: true });
    await writeFile(partial, code, { flag: 'wx' });
    await rename(partial, path);
    stored = true;
    await pruneOtherBundles(options.cacheDir, path);
  } catch (error) {
    options.logger.warn('the workflow bundle could not be cached; the next start bundles again', {
      path,
      error: error instanceof Error ? error.message : String(error),
    });
  }
  return { bundle: { code }, source: 'bundled', stored, key, path, ms: elapsed() };
}

/** Leaves the current bundle and the KEEP_OTHERS newest others; removes the rest and stale partial writes. */
async function pruneOtherBundles(dir: string, current: string): Promise<void> {
  const names = (await readdir(dir)).filter((name) => name.startsWith('workflow-bundle-'));
  const others: { path: string; mtimeMs: number; partial: boolean }[] = [];
  for (const name of names) {
    const path = join(dir, name);
    if (path === current) continue;
    try {
      const { mtimeMs } = await stat(path);
      others.push({ path, mtimeMs, partial: name.endsWith('.partial') });
    } catch {
      // Removed meanwhile by another worker.
    }
  }
  const hourAgo = Date.now() - 3_600_000;
  const bundles = others.filter((other) => !other.partial).sort((a, b) => b.mtimeMs - a.mtimeMs);
  const remove = [
    ...bundles.slice(KEEP_OTHERS),
    ...others.filter((other) => other.partial && other.mtimeMs < hourAgo),
  ];
  await Promise.all(remove.map((other) => rm(other.path, { force: true })));
}

// Builds the SvelteKit app in web/ into web/build (what the API process serves), and tells whether a build
// is current. `npm run build:web` (build-web-cli.ts) always builds; `npm start` and the test setup call
// `ensureWebBuild`, which builds only when web/build is missing or was built from other sources. "Other
// sources" is decided by a SHA-256 over web/'s source files, domain/ (the contract and vocabulary the pages
// import), what the application routes' table is generated from (api/trpc/, scripts/vite-app-routes.ts) and
// package-lock.json, stored next to the build, so a checkout, a deleted file, a route declared in a procedure
// or a dependency change all count, and nothing depends on file times.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { APP_ROUTES_SOURCES } from './vite-app-routes.ts';
import { writeSignerPage } from './web-route-pages.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const WEB_DIR = join(ROOT, 'web');
/**
 * What the build reads outside web/ (from the repository's root): domain/, shared with the server and bundled
 * into the pages, the sources of the generated route table (`virtual:app-routes`) and what writes the
 * signer's page after the build (web-route-pages.ts).
 */
export const WEB_BUILD_INPUTS = ['domain', ...APP_ROUTES_SOURCES, 'scripts/web-route-pages.ts'];
export const WEB_BUILD_DIR = join(WEB_DIR, 'build');
const NEXT_BUILD_DIR = join(WEB_DIR, 'build.next');
const OLD_BUILD_DIR = join(WEB_DIR, 'build.old');
const STAMP = '.sigil-sources.sha256';
const LOCK_DIR = join(WEB_DIR, '.build-lock');
const LOCK_STALE_MS = 10 * 60_000;
const VITE = join(ROOT, 'node_modules/vite/bin/vite.js');

/** Generated or local folders of web/ that are not sources. */
const NOT_SOURCES = new Set([
  'build',
  'build.next',
  'build.old',
  '.svelte-kit',
  '.build-lock',
  'node_modules',
]);

type Log = (line: string) => void;

/** Lines of a successful build that say nothing (the adapter's banner, its hint about `vite preview`). */
const VITE_NOISE = /^> Using @sveltejs\/adapter-static|Wrote site to|Run npm run preview|✔ done/;

/**
 * SHA-256 over every source file of web/ and of WEB_BUILD_INPUTS (paths and contents) and the lockfile; `root`
 * is the repository's (a test hashes a copy).
 */
export async function webSourcesHash(root = ROOT): Promise<string> {
  const web = join(root, 'web');
  const files: string[] = [];
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (dir === web && NOT_SOURCES.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && !entry.name.endsWith('.md')) files.push(path);
    }
  };
  await walk(web);
  for (const input of WEB_BUILD_INPUTS) {
    const path = join(root, input);
    if ((await stat(path)).isDirectory()) await walk(path);
    else files.push(path);
  }
  files.sort();
  const hash = createHash('sha256');
  for (const file of [...files, join(root, 'package-lock.json')]) {
    hash.update(relative(root, file).split(sep).join('/'));
    hash.update('\0');
    hash.update(await readFile(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Why web/build must be built again, or undefined when it is current. */
export async function webBuildStaleReason(): Promise<string | undefined> {
  if (!existsSync(join(WEB_BUILD_DIR, 'index.html'))) return 'web/build does not exist yet';
  const built = await readFile(join(WEB_BUILD_DIR, STAMP), 'utf8').catch(() => '');
  if (built.trim() !== (await webSourcesHash())) return 'web/ changed since the last build';
  return undefined;
}

/**
 * Builds web/ with Vite into web/build.next and swaps it in, so a server reading web/build never sees a
 * half-written build. Concurrent builders (two test runs, `npm start` next to a test run) take turns.
 */
export async function buildWeb(log: Log): Promise<{ seconds: number }> {
  return withBuildLock(log, () => buildUnlocked(log));
}

/** Builds only when web/build is missing or stale; prints what it does. */
export async function ensureWebBuild(log: Log): Promise<void> {
  const reason = await webBuildStaleReason();
  if (!reason) return;
  await withBuildLock(log, async () => {
    // Another process may have built it while this one waited.
    const stillStale = await webBuildStaleReason();
    if (!stillStale) return;
    log(`building the web app (${stillStale})…`);
    await buildUnlocked(log);
  });
}

async function buildUnlocked(log: Log): Promise<{ seconds: number }> {
  const started = Date.now();
  const hash = await webSourcesHash();
  await rm(NEXT_BUILD_DIR, { recursive: true, force: true });
  await runVite(log);
  await writeSignerPage(WEB_DIR, NEXT_BUILD_DIR);
  await writeFile(join(NEXT_BUILD_DIR, STAMP), `${hash}\n`);
  await rm(OLD_BUILD_DIR, { recursive: true, force: true });
  if (existsSync(WEB_BUILD_DIR)) await rename(WEB_BUILD_DIR, OLD_BUILD_DIR);
  await rename(NEXT_BUILD_DIR, WEB_BUILD_DIR);
  await rm(OLD_BUILD_DIR, { recursive: true, force: true });
  const seconds = (Date.now() - started) / 1000;
  log(`web app built into web/build in ${seconds.toFixed(1)} s`);
  return { seconds };
}

function runVite(log: Log): Promise<void> {
  if (!existsSync(VITE)) {
    throw new Error(
      'Vite is not installed: `npm install` (with the devDependencies) installs what builds the web app',
    );
  }
  return new Promise((resolve, reject) => {
    // Vite's per-file listing is noise here: warnings and errors only.
    const child = spawn(process.execPath, [VITE, 'build', '--logLevel', 'warn'], {
      cwd: WEB_DIR,
      env: { ...process.env, SIGIL_WEB_OUT: 'build.next', NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const lines = output
        .split('\n')
        .map((line) => line.trimEnd())
        .filter((line) => line.trim() && !VITE_NOISE.test(line));
      if (code === 0) {
        for (const line of lines) log(`vite: ${line}`);
        resolve();
      } else {
        reject(
          new Error(`the web app build failed (${signal ?? `exit code ${code}`}):\n${lines.join('\n')}`),
        );
      }
    });
  });
}

async function withBuildLock<T>(log: Log, work: () => Promise<T>): Promise<T> {
  let announced = false;
  for (;;) {
    try {
      await mkdir(LOCK_DIR);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = await readFile(join(LOCK_DIR, 'pid'), 'utf8').catch(() => '');
      if (!processAlive(Number(holder)) || (await lockAge()) > LOCK_STALE_MS) {
        await rm(LOCK_DIR, { recursive: true, force: true });
        continue;
      }
      if (!announced) {
        log(`waiting for another build of the web app (process ${holder.trim()})…`);
        announced = true;
      }
      await sleep(500);
    }
  }
  try {
    await writeFile(join(LOCK_DIR, 'pid'), String(process.pid));
    return await work();
  } finally {
    await rm(LOCK_DIR, { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  // A lock without a pid yet is being taken right now: count it as held.
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function lockAge(): Promise<number> {
  const info = await stat(LOCK_DIR).catch(() => undefined);
  return info ? Date.now() - info.mtimeMs : 0;
}

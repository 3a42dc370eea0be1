// The workers' workflow bundle, made once per version of the workflow code (temporal/worker/workflow-bundle.ts):
// the key follows every module the workflows import for their values and the lockfile; a second start loads the
// stored bundle; a cache that cannot be written costs only the time.
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOWS_PATH } from '../../temporal/worker/worker.ts';
import {
  loadWorkflowBundle,
  relativeImports,
  workflowBundleKey,
} from '../../temporal/worker/workflow-bundle.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const quiet = () => {};
  return {
    warnings,
    log: quiet,
    trace: quiet,
    debug: quiet,
    info: quiet,
    warn: (message: string) => void warnings.push(message),
    error: quiet,
  };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sigil-workflow-bundle-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the workflow bundle', () => {
  it('follows value imports and re-exports, not type-only imports or packages', () => {
    const source = [
      "import { proxyActivities } from '@temporalio/workflow';",
      "import type { Activities } from '../activities/index.ts';",
      "import type {\n  A,\n  B,\n} from './types.ts';",
      "import { type C, d } from './mixed.ts';",
      "import {\n  e,\n  f,\n} from '../domain/vocabulary.ts';",
      "export { envelopeWorkflow } from './envelope.ts';",
      "export type { G } from './g.ts';",
      "export * from './all.ts';",
      "import './side-effect.ts';",
    ].join('\n');
    expect(relativeImports(source)).toEqual([
      './mixed.ts',
      '../domain/vocabulary.ts',
      './envelope.ts',
      './all.ts',
      './side-effect.ts',
    ]);
  });

  it('has a key that changes with a module the workflows use or the lockfile, not with a type-only import', async () => {
    const root = join(dir, 'key');
    await mkdir(join(root, 'workflows'), { recursive: true });
    const entry = join(root, 'workflows', 'index.ts');
    await writeFile(join(root, 'package-lock.json'), '{"lockfileVersion":3}');
    await writeFile(
      entry,
      "import type { Shape } from '../types.ts';\nexport { run } from './run.ts';\nexport const shape: Shape | null = null;\n",
    );
    await writeFile(
      join(root, 'workflows', 'run.ts'),
      "import { limit } from '../shared.ts';\nexport const run = limit;\n",
    );
    await writeFile(join(root, 'shared.ts'), 'export const limit = 1;\n');
    await writeFile(join(root, 'types.ts'), 'export type Shape = { a: number };\n');

    const first = await workflowBundleKey(entry);
    expect(first).toMatch(/^[0-9a-f]{32}$/);
    expect(await workflowBundleKey(entry)).toBe(first);

    // A module two imports away changes the key.
    await writeFile(join(root, 'shared.ts'), 'export const limit = 2;\n');
    const second = await workflowBundleKey(entry);
    expect(second).not.toBe(first);

    // A type-only import's module is dropped by the bundler: it does not.
    await writeFile(join(root, 'types.ts'), 'export type Shape = { a: string };\n');
    expect(await workflowBundleKey(entry)).toBe(second);

    // Another version of a package does.
    await writeFile(join(root, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}');
    expect(await workflowBundleKey(entry)).not.toBe(second);
  });

  it('is bundled and stored at the first start, loaded from the cache at the next, and older ones are pruned', async () => {
    const cacheDir = join(dir, 'cache');
    await mkdir(cacheDir, { recursive: true });
    // Bundles of earlier versions (the three newest are kept: this one and two others) and a partial write
    // left by a worker killed while storing one.
    const hour = 3_600;
    const now = Date.now() / 1000;
    for (const [name, ageHours] of [
      ['workflow-bundle-old1.js', 1],
      ['workflow-bundle-old2.js', 2],
      ['workflow-bundle-old3.js', 3],
      ['workflow-bundle-x.js.123.456.partial', 2],
    ] as const) {
      const path = join(cacheDir, name);
      await writeFile(path, '// an older bundle');
      await utimes(path, now - ageHours * hour, now - ageHours * hour);
    }

    const logger = recordingLogger();
    const made = await loadWorkflowBundle({ workflowsPath: WORKFLOWS_PATH, cacheDir, logger });
    expect(made.source).toBe('bundled');
    expect(made.stored).toBe(true);
    expect(made.key).toBe(await workflowBundleKey(WORKFLOWS_PATH));
    expect('code' in made.bundle).toBe(true);
    const code = (made.bundle as { code: string }).code;
    expect(code).toContain('envelopeWorkflow');
    expect(await readFile(made.path, 'utf8')).toBe(code);
    expect((await readdir(cacheDir)).sort()).toEqual(
      [`workflow-bundle-${made.key}.js`, 'workflow-bundle-old1.js', 'workflow-bundle-old2.js'].sort(),
    );

    const again = await loadWorkflowBundle({ workflowsPath: WORKFLOWS_PATH, cacheDir, logger });
    expect(again.source).toBe('cached');
    expect(again.bundle).toEqual({ codePath: made.path });
    expect(again.ms).toBeLessThan(made.ms);
    expect(logger.warnings).toEqual([]);
  }, 120_000);

  it('bundles without the cache code whose imports the key cannot follow (an import without its extension)', async () => {
    const root = join(dir, 'unkeyed');
    await mkdir(root, { recursive: true });
    // The bundler resolves '@temporalio/workflow' and the extension; the key reads files by their names only.
    await symlink(join(ROOT, 'node_modules'), join(root, 'node_modules'));
    await writeFile(join(root, 'index.ts'), "export * from './hello';\n");
    await writeFile(
      join(root, 'hello.ts'),
      "export async function helloWorkflow(): Promise<string> {\n  return 'hello';\n}\n",
    );
    await expect(workflowBundleKey(join(root, 'index.ts'))).rejects.toThrow(/ENOENT/);
    const cacheDir = join(dir, 'unkeyed-cache');
    const logger = recordingLogger();
    const made = await loadWorkflowBundle({ workflowsPath: join(root, 'index.ts'), cacheDir, logger });
    expect(made.source).toBe('bundled');
    expect(made.stored).toBe(false);
    expect((made.bundle as { code: string }).code).toContain('helloWorkflow');
    expect(logger.warnings).toEqual(['the workflow code cannot be keyed; it is bundled without the cache']);
    await expect(readdir(cacheDir)).rejects.toThrow(/ENOENT/);
  }, 120_000);

  it('is used from memory when the cache cannot be written, with a warning', async () => {
    // A file where the cache directory should be.
    const blocked = join(dir, 'blocked');
    await writeFile(blocked, 'not a directory');
    const logger = recordingLogger();
    const made = await loadWorkflowBundle({
      workflowsPath: WORKFLOWS_PATH,
      cacheDir: join(blocked, 'bundles'),
      logger,
    });
    expect(made.source).toBe('bundled');
    expect(made.stored).toBe(false);
    expect((made.bundle as { code: string }).code).toContain('envelopeWorkflow');
    expect(logger.warnings).toEqual([
      'the workflow bundle could not be cached; the next start bundles again',
    ]);
  }, 120_000);
});

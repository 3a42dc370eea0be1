// No circle of imports in the server's code, types included (docs/architecture.md, "Import rules"): madge
// reads every TypeScript file outside web/ and test/ — the server, scripts/ and bench/ — resolving imports as
// `tsc` does and counting `import type` as an import, so a circle that only types close fails here too.
// test/unit/import-rules.test.ts keeps the layers apart; this finds circles within a layer as well.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import madge from 'madge';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The web app (its own build and checks), the tests and what is not code. */
const NOT_CHECKED = new Set(['web', 'test', 'docs', 'node_modules']);

/** Every top-level folder and TypeScript file of the checkout outside NOT_CHECKED. */
async function checkedPaths(): Promise<string[]> {
  const entries = await readdir(ROOT, { withFileTypes: true });
  return entries
    .filter((entry) => !entry.name.startsWith('.') && !NOT_CHECKED.has(entry.name))
    .filter((entry) => entry.isDirectory() || entry.name.endsWith('.ts'))
    .map((entry) => entry.name)
    .sort();
}

function importGraph(paths: string[]) {
  return madge(
    paths.map((path) => join(ROOT, path)),
    {
      baseDir: ROOT,
      fileExtensions: ['ts'],
      tsConfig: join(ROOT, 'tsconfig.json'),
      detectiveOptions: {
        ts: { skipTypeImports: false, skipAsyncImports: false },
        es6: { skipTypeImports: false, skipAsyncImports: false },
      },
    },
  );
}

describe('import cycles (madge --circular, types included)', () => {
  it('finds none in the code outside web/ and test/', async () => {
    const paths = await checkedPaths();
    expect(paths).toEqual(expect.arrayContaining(['activities', 'api', 'bench', 'scripts', 'services']));
    const graph = await importGraph(paths);
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(450);
    // Every import of a project file resolved (what does not is a package madge need not follow).
    expect(graph.warnings().skipped.filter((specifier) => specifier.startsWith('.'))).toEqual([]);
    expect(graph.circular()).toEqual([]);
  });

  it('sees a circle closed by type imports only (the check itself works)', async () => {
    const graph = await importGraph(['test/fixtures/import-cycle']);
    expect(graph.circular()).toEqual([
      ['test/fixtures/import-cycle/a.ts', 'test/fixtures/import-cycle/b.ts'],
    ]);
  });
});

// The layering of docs/architecture.md, checked on every file: which folder may import which. Each rule
// names the folders a folder may import from (its own always), and whether only types may cross. An import
// that breaks a rule fails here with the file, the import and the rule.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Rule {
  /** Project folders (or files) this folder may import values from. */
  values: string[];
  /** Project folders (or files) it may import types from, in addition to `values`. */
  types?: string[];
}

/** First match wins: the longer (more specific) prefixes come first. */
const RULES: [string, Rule][] = [
  ['domain/', { values: [] }],
  ['config/', { values: ['domain/'] }],
  // Workflow code is bundled into Temporal's deterministic sandbox: no I/O, only contracts and pure rules.
  ['workflows/', { values: ['domain/'], types: ['activities/'] }],
  ['pdf/', { values: ['domain/'] }],
  ['db/', { values: ['domain/', 'config/', 'workflows/webhook-contracts.ts'] }],
  [
    'notifications/',
    { values: ['domain/', 'config/', 'db/', 'workflows/notification-contracts.ts'], types: ['workflows/'] },
  ],
  // A bulk send's rows become envelopes exactly as a user's request makes one — created and sent by the same
  // use cases — so its activity, and no other, runs them (docs/bulk-send.md).
  [
    'activities/bulk-send.ts',
    {
      values: [
        'domain/',
        'config/',
        'db/',
        'workflows/',
        'services/bulk-sends/send-bulk-rows.ts',
        'services/context.ts',
      ],
    },
  ],
  [
    'activities/',
    {
      values: ['domain/', 'config/', 'db/', 'pdf/', 'notifications/', 'workflows/'],
    },
  ],
  ['temporal/', { values: ['domain/', 'config/', 'db/', 'activities/', 'workflows/'] }],
  ['services/security/', { values: ['domain/', 'services/errors.ts'] }],
  ['services/errors.ts', { values: [] }],
  // Use cases: never a transport (routes, plugins, authentication, HTTP, tRPC, CLI).
  [
    'services/',
    {
      values: [
        'domain/',
        'config/',
        'db/',
        'pdf/',
        'notifications/',
        'temporal/',
        'workflows/',
        'services/',
        'services/errors.ts',
        'services/security/',
      ],
    },
  ],
  [
    'api/',
    {
      values: ['domain/', 'config/', 'db/', 'pdf/', 'notifications/', 'temporal/', 'workflows/', 'services/'],
    },
  ],
  // The browser app talks to the server over HTTP: it may share the contract (types, pure vocabulary).
  [
    'web/src/',
    {
      values: [
        'domain/vocabulary.ts',
        'domain/permissions.ts',
        'domain/document-lifecycle.ts',
        'domain/scopes.ts',
        'domain/credential-permissions.ts',
      ],
      types: ['domain/', 'api/'],
    },
  ],
];

/** What a folder may always import within itself (api/ sub-folders are layered, see above). */
function ownArea(file: string): string {
  if (file.startsWith('services/security/')) return 'services/security/';
  if (file.startsWith('services/')) return 'services/';
  if (file.startsWith('api/')) return 'api/';
  if (file.startsWith('web/src/')) return 'web/src/';
  return `${file.split('/')[0]}/`;
}

const CHECKED = [
  'domain',
  'config',
  'workflows',
  'pdf',
  'services',
  'db',
  'notifications',
  'activities',
  'temporal',
  'api',
  'web/src',
];

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await sourceFiles(path)));
    else if (/\.(ts|svelte)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

interface Import {
  specifier: string;
  typeOnly: boolean;
}

/** The imports and re-exports of a file (a Svelte file's <script> blocks), with whether only types cross. */
function importsOf(file: string, text: string): Import[] {
  const code = file.endsWith('.svelte')
    ? [...text.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n')
    : text;
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: Import[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const allTypes =
        clause?.isTypeOnly === true ||
        (clause !== undefined &&
          clause.name === undefined &&
          bindings !== undefined &&
          ts.isNamedImports(bindings) &&
          bindings.elements.length > 0 &&
          bindings.elements.every((element) => element.isTypeOnly));
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: allTypes });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      found.push({ specifier: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      found.push({ specifier: node.arguments[0].text, typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function ruleOf(file: string): Rule | undefined {
  return RULES.find(([prefix]) => file === prefix || file.startsWith(prefix))?.[1];
}

function allowed(targets: string[], target: string): boolean {
  return targets.some((prefix) => target === prefix || target.startsWith(prefix));
}

describe('import rules (docs/architecture.md)', () => {
  it('every file imports only what its folder may', async () => {
    const violations: string[] = [];
    let checked = 0;
    for (const dir of CHECKED) {
      for (const file of await sourceFiles(dir)) {
        const rule = ruleOf(file);
        if (!rule) continue;
        checked += 1;
        const text = await readFile(join(ROOT, file), 'utf8');
        for (const { specifier, typeOnly } of importsOf(file, text)) {
          if (!specifier.startsWith('.')) continue;
          const target = relative(ROOT, resolve(dirname(join(ROOT, file)), specifier))
            .split(sep)
            .join('/');
          if (target.startsWith(ownArea(file))) continue;
          if (allowed(rule.values, target)) continue;
          if (typeOnly && allowed(rule.types ?? [], target)) continue;
          violations.push(`${file} imports ${typeOnly ? 'types from ' : ''}${target}`);
        }
      }
    }
    expect(checked).toBeGreaterThan(150);
    expect(violations).toEqual([]);
  });

  it('catches a forbidden import (the check itself works)', () => {
    const imports = importsOf(
      'services/x.ts',
      "import { a } from '../routes/v1/index.ts';\nimport type { B } from '../plugins/p.ts';\nexport { c } from './c.ts';",
    );
    expect(imports).toEqual([
      { specifier: '../routes/v1/index.ts', typeOnly: false },
      { specifier: '../plugins/p.ts', typeOnly: true },
      { specifier: './c.ts', typeOnly: false },
    ]);
    const rule = ruleOf('services/x.ts') as Rule;
    expect(allowed(rule.values, 'api/routes/v1/index.ts')).toBe(false);
    expect(allowed(rule.values, 'services/envelopes/find-envelope.ts')).toBe(true);
  });
});

// The layering of docs/architecture.md, checked on every file: the layers from top to bottom, what each may
// import, and that every allowance points down (or across to the layer itself), so no lower layer imports a
// higher one and no circle can form between layers; test/unit/import-cycles.test.ts finds circles within
// them. An import that breaks a rule fails here with the file, the import and the layer.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

interface Layer {
  name: string;
  /** Folders (ending in `/`) and files that make up the layer; the longest match decides a file's layer. */
  paths: string[];
  /** Layers (by name) or single files of a layer below whose values this layer may import. */
  values: string[];
  /** Layers or files it may import types from, in addition to `values`. */
  types?: string[];
}

/** The pure workflow rules and the contracts shared with the callers: no I/O, no activities. */
const WORKFLOW_CONTRACTS = [
  'workflows/contracts.ts',
  'workflows/bulk-send-contracts.ts',
  'workflows/notification-contracts.ts',
  'workflows/object-sweep-contracts.ts',
  'workflows/retention-contracts.ts',
  'workflows/webhook-contracts.ts',
  'workflows/envelope-model.ts',
  'workflows/rounds.ts',
  'workflows/transitions.ts',
];

/** The workflow functions: they call their activities through proxyActivities, typed by activities/index.ts. */
const WORKFLOW_FUNCTIONS = [
  'workflows/index.ts',
  'workflows/envelope.ts',
  'workflows/envelope-run.ts',
  'workflows/bulk-send.ts',
  'workflows/object-sweep.ts',
  'workflows/retention.ts',
  'workflows/webhook-delivery.ts',
];

const SERVER = [
  'domain',
  'config',
  'workflow contracts',
  'pdf',
  'db',
  'notifications',
  'temporal client',
  'storage',
];
const SERVICES = ['services', 'service security', 'service errors'];
const PROVISIONING = ['provisioning entry', 'temporal provisioning', 'provisioning'];

/** Top to bottom. A layer may import only from itself and from layers below it. */
const LAYERS: Layer[] = [
  // The browser app talks to the server over HTTP: it may share the contract (types, pure vocabulary).
  {
    name: 'web',
    paths: ['web/src/'],
    values: [
      'domain/vocabulary.ts',
      'domain/permissions.ts',
      'domain/document-lifecycle.ts',
      'domain/scopes.ts',
      'domain/credential-permissions.ts',
      'domain/backoffice-roles.ts',
    ],
    types: ['domain', 'api'],
  },
  {
    name: 'scripts',
    paths: ['scripts/'],
    values: ['api', 'worker', 'activities', ...SERVICES, ...SERVER, ...PROVISIONING],
  },
  // The API process: HTTP, tRPC and the CLI, over the use cases. Never the worker's parts.
  { name: 'api', paths: ['api/'], values: [...SERVICES, ...SERVER] },
  // The worker process: its workers and the workflow bundle's path.
  { name: 'worker', paths: ['temporal/worker/'], values: ['activities', ...SERVICES, ...SERVER] },
  // Bundled into Temporal's deterministic sandbox: no I/O, only contracts, pure rules and activity types.
  {
    name: 'workflow functions',
    paths: WORKFLOW_FUNCTIONS,
    values: ['domain', 'workflow contracts'],
    types: ['activities'],
  },
  { name: 'activities', paths: ['activities/'], values: [...SERVICES, ...SERVER] },
  // The use cases: never a transport (routes, plugins, authentication, HTTP, tRPC, CLI) nor the worker.
  { name: 'services', paths: ['services/'], values: ['service security', 'service errors', ...SERVER] },
  { name: 'service security', paths: ['services/security/'], values: ['service errors', 'domain'] },
  { name: 'service errors', paths: ['services/errors.ts'], values: [] },
  // Connections, deadlines, starting workflows by type name, search attributes, the retention Schedule.
  {
    name: 'temporal client',
    paths: ['temporal/'],
    values: ['db', 'workflow contracts', 'config', 'domain'],
  },
  {
    name: 'notifications',
    paths: ['notifications/'],
    values: ['db', 'workflow contracts', 'config', 'domain'],
  },
  { name: 'db', paths: ['db/'], values: ['workflow contracts', 'config', 'domain'] },
  { name: 'pdf', paths: ['pdf/'], values: ['domain'] },
  // The storage port and its implementations (PostgreSQL, S3-compatible): bytes in, bytes out, no use cases.
  { name: 'storage', paths: ['storage/'], values: ['config', 'domain'] },
  // Tools Sigil provisions for itself and its tests (`npm run provision`): the entry, the Temporal servers'
  // provisioning, and the shared parts with Chromium, Schemathesis and the PDF validators.
  {
    name: 'provisioning entry',
    paths: ['provisioning/cli.ts'],
    values: ['temporal provisioning', 'provisioning', 'config', 'domain'],
  },
  {
    name: 'temporal provisioning',
    paths: ['temporal/provisioning/'],
    values: ['provisioning', 'config', 'domain'],
  },
  { name: 'provisioning', paths: ['provisioning/'], values: ['config', 'domain'] },
  { name: 'workflow contracts', paths: WORKFLOW_CONTRACTS, values: ['domain'] },
  { name: 'config', paths: ['config/'], values: ['domain'] },
  { name: 'domain', paths: ['domain/'], values: [] },
];

/** The layer a project path belongs to: the one with the longest matching path. */
function layerOf(path: string): Layer | undefined {
  let found: Layer | undefined;
  let length = -1;
  for (const layer of LAYERS) {
    for (const prefix of layer.paths) {
      const matches = prefix.endsWith('/') ? path.startsWith(prefix) : path === prefix;
      if (matches && prefix.length > length) {
        found = layer;
        length = prefix.length;
      }
    }
  }
  return found;
}

/** Whether `layer` may import `target` (a project path): its own layer, or one its allowances name. */
function allowed(layer: Layer, target: string, typeOnly: boolean): boolean {
  const targetLayer = layerOf(target);
  if (targetLayer === layer) return true;
  const allowances = typeOnly ? [...layer.values, ...(layer.types ?? [])] : layer.values;
  return allowances.some((allowance) =>
    allowance.includes('/') ? target === allowance : targetLayer?.name === allowance,
  );
}

const CHECKED = [
  'domain',
  'config',
  'workflows',
  'pdf',
  'db',
  'storage',
  'notifications',
  'activities',
  'temporal',
  'services',
  'api',
  'provisioning',
  'scripts',
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

describe('import rules (docs/architecture.md)', () => {
  it('every file imports only from its layer and the layers below it', async () => {
    const violations: string[] = [];
    let checked = 0;
    for (const dir of CHECKED) {
      for (const file of await sourceFiles(dir)) {
        const layer = layerOf(file);
        if (!layer) {
          violations.push(`${file} belongs to no layer`);
          continue;
        }
        checked += 1;
        const text = await readFile(join(ROOT, file), 'utf8');
        for (const { specifier, typeOnly } of importsOf(file, text)) {
          if (!specifier.startsWith('.')) continue;
          const target = relative(ROOT, resolve(dirname(join(ROOT, file)), specifier))
            .split(sep)
            .join('/');
          if (allowed(layer, target, typeOnly)) continue;
          violations.push(
            `${file} (${layer.name}) imports ${typeOnly ? 'types from ' : ''}${target} (${layerOf(target)?.name ?? 'no layer'})`,
          );
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
    expect(violations).toEqual([]);
  });

  it('has no exception: every allowance names a layer below (no upward import, no circle of layers)', () => {
    const upward: string[] = [];
    LAYERS.forEach((layer, index) => {
      for (const allowance of [...layer.values, ...(layer.types ?? [])]) {
        const target = allowance.includes('/')
          ? layerOf(allowance)
          : LAYERS.find((l) => l.name === allowance);
        const at = target ? LAYERS.indexOf(target) : -1;
        if (at <= index) upward.push(`${layer.name} → ${allowance}`);
      }
    });
    expect(upward).toEqual([]);
  });

  it('catches a forbidden import (the check itself works)', () => {
    const imports = importsOf(
      'services/x.ts',
      "import { a } from '../api/routes/v1/index.ts';\nimport type { B } from '../activities/index.ts';\nexport { c } from './c.ts';",
    );
    expect(imports).toEqual([
      { specifier: '../api/routes/v1/index.ts', typeOnly: false },
      { specifier: '../activities/index.ts', typeOnly: true },
      { specifier: './c.ts', typeOnly: false },
    ]);
    const services = layerOf('services/x.ts') as Layer;
    expect(services.name).toBe('services');
    expect(allowed(services, 'api/routes/v1/index.ts', false)).toBe(false);
    expect(allowed(services, 'activities/index.ts', true)).toBe(false);
    expect(allowed(services, 'temporal/worker/worker.ts', true)).toBe(false);
    expect(allowed(services, 'workflows/envelope.ts', true)).toBe(false);
    expect(allowed(services, 'services/envelopes/find-envelope.ts', false)).toBe(true);
    expect(allowed(services, 'temporal/deadline.ts', false)).toBe(true);
    expect(allowed(services, 'workflows/contracts.ts', false)).toBe(true);
    const workflow = layerOf('workflows/envelope-run.ts') as Layer;
    expect(allowed(workflow, 'activities/index.ts', true)).toBe(true);
    expect(allowed(workflow, 'activities/index.ts', false)).toBe(false);
    expect(allowed(layerOf('workflows/rounds.ts') as Layer, 'workflows/envelope.ts', false)).toBe(false);
  });
});

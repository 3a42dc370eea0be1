// Shapes the /api/v1 OpenAPI document for client generators (openapi-python-client, openapi-generator; see
// docs/api.md "Generating a client"), after fastify-type-provider-zod has turned the zod schemas into JSON
// Schema. Three things generators trip over are rewritten, none of which changes what the server accepts:
//   - zod's input/output twins: every named schema is emitted twice (`X` as answered, `XInput` as accepted).
//     One schema is kept per shape: a twin equal to its other half is merged into it, a twin that nothing
//     uses is dropped, and a request body only ever read as input keeps the plain name.
//   - nullable unions: `anyOf [anyOf [string with a pattern, const ""], null]` (a field where "" means "not
//     set") and `anyOf [simple type, null]` become one schema with `type: [t, "null"]`; the empty string joins
//     the pattern (`^$|…`), so a generated client's own validation accepts what the server accepts.
//   - deep inline objects: an object nested in a named schema becomes a named component of its own
//     (NESTED_NAMES; structurally equal ones share one), instead of the generator's own
//     `ParentPropInnerItemInner` name and code.
//   - a string with both a `format` and zod's `pattern` for it (uuid, date-time, email): generators type the
//     field by the format (UUID, datetime) and then run the pattern on that object, or forget to import their
//     validator. What the server reads keeps the pattern, its exact rule (the format goes); what it only
//     answers keeps the format, which types the field (the pattern goes: every answer matches it anyway).
// Anything no operation refers to, directly or through other schemas, is left out.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };

const REF_PREFIX = '#/components/schemas/';
const INPUT_SUFFIX = 'Input';

/**
 * Names of the objects nested in named schemas, by `<Schema>.<property path>` (`[]` for an array's items).
 * A nested object missing here is named `<Schema><Property>` (see nestedName).
 */
export const NESTED_NAMES: Record<string, string> = {
  'Diagnostics.requests': 'DiagnosticsRequests',
  'Diagnostics.requests.lastHour': 'RequestCounts',
  'Diagnostics.requests.last24Hours': 'RequestCounts',
  'Diagnostics.rateLimits': 'RateLimits',
  'Diagnostics.rateLimits.standard': 'RateLimitBucket',
  'Diagnostics.rateLimits.heavy': 'RateLimitBucket',
  'Diagnostics.oauthClients[]': 'OauthClientDiagnostics',
  'Diagnostics.oauthClients[].activeSecrets[]': 'OauthClientSecret',
  'Diagnostics.webhooks': 'WebhookDiagnostics',
  'FieldDefinition.properties': 'FieldProperties',
  'WebhookEndpointListItem.changedBy': 'CredentialChanger',
  'WebhookEndpointListItem.recentDeliveries': 'RecentDeliveries',
  'WebhookEndpointListItem.suspendedEvents[]': 'SuspendedEvent',
  'CreateEnvelopeRequest.recipients[]': 'NewRecipient',
  'CreateEnvelopeRequest.initialValues[]': 'NewInitialValue',
  'Envelope.initialValues[]': 'InitialValue',
  'Error.error': 'ErrorInfo',
};

const isObject = (value: Json | undefined): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every `$ref` to a component schema in `value`, by name. */
function refsIn(value: Json, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, into);
  else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(REF_PREFIX)) {
        into.add(child.slice(REF_PREFIX.length));
      } else refsIn(child, into);
    }
  }
  return into;
}

/** `value` with every `$ref` to a component renamed by `rename`. */
function renameRefs(value: Json, rename: (name: string) => string): Json {
  if (Array.isArray(value)) return value.map((item) => renameRefs(item, rename));
  if (!isObject(value)) return value;
  const result: Schema = {};
  for (const [key, child] of Object.entries(value)) {
    result[key] =
      key === '$ref' && typeof child === 'string' && child.startsWith(REF_PREFIX)
        ? `${REF_PREFIX}${rename(child.slice(REF_PREFIX.length))}`
        : renameRefs(child, rename);
  }
  return result;
}

/** A stable text of a schema for comparing shapes (object keys sorted). */
function canonical(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key] as Json)}`).join(',')}}`;
}

/** The component names reachable from the document outside components.schemas. */
function reachable(document: Schema, schemas: Schema): Set<string> {
  const { components, ...rest } = document;
  const roots = refsIn(rest as Json);
  if (isObject(components)) {
    for (const [key, value] of Object.entries(components)) if (key !== 'schemas') refsIn(value, roots);
  }
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    if (seen.has(name) || !(name in schemas)) continue;
    seen.add(name);
    queue.push(...refsIn(schemas[name] as Json));
  }
  return seen;
}

/** Replaces every `$ref` in the whole document by `rename`. */
function renameEverywhere(document: Schema, rename: (name: string) => string): Schema {
  return renameRefs(document, rename) as Schema;
}

/** One schema per shape: merges or drops zod's `…Input` twins (see the header). */
function mergeInputTwins(document: Schema): Schema {
  let doc = document;
  const schemasOf = (d: Schema) => (d.components as Schema).schemas as Schema;
  const twins = Object.keys(schemasOf(doc)).filter(
    (name) => name.endsWith(INPUT_SUFFIX) && name.slice(0, -INPUT_SUFFIX.length) in schemasOf(doc),
  );
  // Twins equal to their other half once their own references are read as the plain names.
  const plain = (name: string) =>
    name.endsWith(INPUT_SUFFIX) && name.slice(0, -INPUT_SUFFIX.length) in schemasOf(doc)
      ? name.slice(0, -INPUT_SUFFIX.length)
      : name;
  const alias = new Map<string, string>();
  for (const twin of twins) {
    const base = twin.slice(0, -INPUT_SUFFIX.length);
    const schemas = schemasOf(doc);
    const a = renameRefs(schemas[twin] as Json, plain);
    const b = renameRefs(schemas[base] as Json, plain);
    if (canonical(a) === canonical(b)) alias.set(twin, base);
  }
  doc = renameEverywhere(doc, (name) => alias.get(name) ?? name);
  for (const twin of alias.keys()) delete schemasOf(doc)[twin];

  // The twins that differ: the half no operation uses goes; an input whose plain name is free takes it.
  const used = reachable(doc, schemasOf(doc));
  const renamed = new Map<string, string>();
  for (const twin of twins) {
    if (alias.has(twin)) continue;
    const base = twin.slice(0, -INPUT_SUFFIX.length);
    if (!used.has(base) && used.has(twin)) renamed.set(twin, base);
  }
  for (const base of renamed.values()) delete schemasOf(doc)[base];
  doc = renameEverywhere(doc, (name) => renamed.get(name) ?? name);
  const schemas = schemasOf(doc);
  for (const [twin, base] of renamed) {
    schemas[base] = schemas[twin] as Json;
    delete schemas[twin];
  }
  return doc;
}

const NULL_BRANCH = canonical({ type: 'null' });
const SIMPLE_TYPES = new Set(['string', 'integer', 'number', 'boolean', 'array', 'object']);

/** A branch with one simple type and no union of its own: it can carry `"null"` in its `type`. */
const isSimple = (schema: Json | undefined): schema is Schema =>
  isObject(schema) &&
  typeof schema.type === 'string' &&
  SIMPLE_TYPES.has(schema.type) &&
  !('anyOf' in schema) &&
  !('oneOf' in schema) &&
  !('const' in schema) &&
  !('enum' in schema);

const isEmptyStringConst = (schema: Json | undefined): boolean =>
  isObject(schema) &&
  schema.const === '' &&
  Object.keys(schema).every((key) => key === 'const' || key === 'type');

/**
 * `anyOf [string with a pattern, const ""]`: one string whose pattern also admits "". A format (email, …)
 * cannot hold "" and is dropped; the pattern keeps the rule.
 */
function emptyOrPattern(schema: Schema): Schema | undefined {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return undefined;
  const other = branches.find((branch) => !isEmptyStringConst(branch));
  if (!branches.some(isEmptyStringConst) || !isSimple(other) || other.type !== 'string') return undefined;
  if (typeof other.pattern !== 'string') return undefined;
  const { anyOf: _, ...rest } = schema;
  const { format: __, minLength: ___, ...kept } = other;
  return { ...kept, ...rest, pattern: `^$|${other.pattern}` };
}

/** The nullable and empty-string unions, simplified at every depth (see the header). */
function simplifyUnions(value: Json): Json {
  if (Array.isArray(value)) return value.map(simplifyUnions);
  if (!isObject(value)) return value;
  const schema: Schema = {};
  for (const [key, child] of Object.entries(value)) schema[key] = simplifyUnions(child);
  const emptyOr = emptyOrPattern(schema);
  if (emptyOr) return emptyOr;
  const branches = schema.anyOf;
  if (Array.isArray(branches) && branches.length === 2) {
    const nullIndex = branches.findIndex((branch) => canonical(branch) === NULL_BRANCH);
    const other = branches[1 - nullIndex];
    if (nullIndex >= 0 && isSimple(other)) {
      const { anyOf: _, ...rest } = schema;
      return { ...other, ...rest, type: [other.type as string, 'null'] };
    }
  }
  return schema;
}

const capitalized = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

/** A nested object's component name: NESTED_NAMES, or `<Schema><Property…>`. */
function nestedName(path: string): string {
  const known = NESTED_NAMES[path];
  if (known) return known;
  return path.replaceAll('[]', '').split('.').map(capitalized).join('');
}

/** An object with properties (directly or as the non-null half of a nullable union). */
function objectOf(schema: Json | undefined): { object: Schema; nullable: Schema | undefined } | undefined {
  if (!isObject(schema)) return undefined;
  if (schema.type === 'object' && isObject(schema.properties)) return { object: schema, nullable: undefined };
  const branches = schema.anyOf;
  if (Array.isArray(branches) && branches.length === 2) {
    const nullIndex = branches.findIndex((branch) => canonical(branch) === NULL_BRANCH);
    const other = branches[1 - nullIndex];
    if (nullIndex >= 0 && isObject(other) && other.type === 'object' && isObject(other.properties)) {
      return { object: other, nullable: schema };
    }
  }
  return undefined;
}

/** Moves every object nested in a named schema into components of its own (see the header). */
function nameNestedObjects(schemas: Schema): void {
  const byShape = new Map<string, string>();
  const hoist = (schema: Json, path: string): Json => {
    const found = objectOf(schema);
    if (!found) return descend(schema, path);
    const inner = descend(found.object, path) as Schema;
    // A description belongs to the property, not to the shape: it stays beside the reference.
    const { description, ...shape } = inner;
    const key = canonical(shape);
    let name = byShape.get(key);
    if (!name) {
      name = nestedName(path);
      for (let n = 2; name in schemas; n++) name = `${nestedName(path)}${n}`;
      byShape.set(key, name);
      schemas[name] = shape;
    }
    const ref: Schema = { $ref: `${REF_PREFIX}${name}` };
    if (found.nullable) {
      const { anyOf: _, ...rest } = found.nullable;
      return { ...rest, anyOf: [ref, { type: 'null' }] };
    }
    return description === undefined ? ref : { ...ref, description };
  };
  const descend = (schema: Json, path: string): Json => {
    if (!isObject(schema)) return schema;
    const result: Schema = { ...schema };
    if (isObject(schema.properties)) {
      const properties: Schema = {};
      for (const [name, child] of Object.entries(schema.properties)) {
        properties[name] = hoist(child, `${path}.${name}`);
      }
      result.properties = properties;
    }
    if (isObject(schema.items)) result.items = hoist(schema.items, `${path}[]`);
    return result;
  };
  for (const name of Object.keys(schemas)) schemas[name] = descend(schemas[name] as Json, name);
}

/** Every string with both a format and a pattern in `value` keeps only one of them (see the header). */
function oneOfFormatOrPattern(value: Json, keep: 'format' | 'pattern'): Json {
  if (Array.isArray(value)) return value.map((item) => oneOfFormatOrPattern(item, keep));
  if (!isObject(value)) return value;
  const result: Schema = {};
  for (const [key, child] of Object.entries(value)) {
    result[key] = key === 'example' || key === 'examples' ? child : oneOfFormatOrPattern(child, keep);
  }
  if (typeof result.format === 'string' && typeof result.pattern === 'string') {
    delete result[keep === 'format' ? 'pattern' : 'format'];
  }
  return result;
}

/**
 * Strings with a format and a pattern: the schemas only answers reach keep the format, everything a request
 * reaches (parameters, bodies, and schemas shared with answers) keeps the pattern.
 */
function formatOrPattern(document: Schema): void {
  const schemas = (document.components as Schema).schemas as Schema;
  const paths = isObject(document.paths) ? document.paths : {};
  const requestSide: Json[] = [];
  for (const operations of Object.values(paths)) {
    if (!isObject(operations)) continue;
    for (const [method, operation] of Object.entries(operations)) {
      if (!isObject(operation)) continue;
      if (method === 'parameters') {
        requestSide.push(operation);
        continue;
      }
      const { responses, ...request } = operation;
      requestSide.push(request as Json);
      if (isObject(responses)) operation.responses = oneOfFormatOrPattern(responses, 'format');
      for (const [key, child] of Object.entries(request))
        operation[key] = oneOfFormatOrPattern(child, 'pattern');
    }
  }
  const read = reachable({ paths: requestSide } as Schema, schemas);
  for (const name of Object.keys(schemas)) {
    schemas[name] = oneOfFormatOrPattern(schemas[name] as Json, read.has(name) ? 'pattern' : 'format');
  }
}

/** Drops the component schemas no operation refers to. */
function withoutUnused(document: Schema): void {
  const schemas = (document.components as Schema).schemas as Schema;
  const used = reachable(document, schemas);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}

/** The document, shaped for client generators (see the header). */
export function shapeForGenerators<T>(input: T): T {
  let document = mergeInputTwins(structuredClone(input) as unknown as Schema);
  withoutUnused(document);
  nameNestedObjects((document.components as Schema).schemas as Schema);
  document = simplifyUnions(document) as Schema;
  withoutUnused(document);
  formatOrPattern(document);
  return document as unknown as T;
}

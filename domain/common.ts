// Building blocks of the resource schemas: identifiers, dates and text as the API reads and writes them.
import { z } from 'zod';
import { type TextKind, textProblem } from './text.ts';

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An ISO 8601 date-time with an offset, as every answer writes dates. */
export const IsoDateTime = z.iso.datetime({ offset: true });

const EARLIEST_INSTANT = Date.parse('0001-01-01T00:00:00Z');
const LATEST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * A caller's date-time bound of a range (a filter's from or to) as PostgreSQL takes it: in UTC, and held within
 * the years 1 to 9999. An ISO 8601 date-time may name year 0 or an offset of up to ±23:59, which PostgreSQL
 * refuses (no year 0; offsets up to ±15:59); as a bound, a moment before or after every stored one filters alike.
 */
export function rangeBound(value: string): Date {
  const instant = Date.parse(value);
  return new Date(Math.min(LATEST_INSTANT, Math.max(EARLIEST_INSTANT, instant)));
}

/** A uuid given by a caller: the message names the field. */
export function uuidOf(field: string) {
  return z.string().regex(UUID_PATTERN, `${field} must be a uuid`);
}

/**
 * A string that PostgreSQL can store and a person meant to send (domain/text.ts): no NUL, no unpaired
 * surrogate, no control characters, and in single-line text (the default) no line breaks or tabs. Every
 * text field of every request schema is built on this, so one rule holds at every boundary; chain `.trim()`,
 * `.min()`, `.max()` as with `z.string()`.
 */
export function safeText(kind: TextKind = 'line') {
  return z
    .string()
    .superRefine((value, ctx) => {
      const problem = textProblem(value, kind);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .meta({ pattern: TEXT_PATTERNS[kind] });
}

/**
 * The control-character part of the rule as a JSON Schema pattern, for the OpenAPI documents (and clients
 * generated from them): no control characters (tab and line breaks allowed in multi-line text). Unpaired
 * surrogates are refused too, but are left out of the pattern: regular-expression engines outside
 * JavaScript cannot express them, and a pattern they cannot compile would document nothing.
 */
const TEXT_PATTERNS: Record<TextKind, string> = {
  line: '^[^\\x00-\\x1F\\x7F]*$',
  multiline: '^[^\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F]*$',
};

/** The specification's error body, answered by every route of every transport. */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ example: 'forbidden' }),
      message: z.string(),
      details: z.array(z.record(z.string(), z.unknown())),
      request_id: z.string(),
    }),
  })
  .meta({ id: 'Error' });

/**
 * The `limit` and `offset` of a list read a page at a time (contacts, templates, bulk sends): `limit` 1 to `max`
 * (default 50), `offset` the `nextOffset` of the previous page. Query parameters arrive as text: coerced.
 */
export function offsetPage(max: number, what: string) {
  return {
    limit: z.coerce
      .number({ message: 'limit must be a whole number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(max, `limit must be at most ${max}`)
      .default(50),
    offset: z.coerce
      .number({ message: 'offset must be a whole number' })
      .int('offset must be a whole number')
      .min(0, 'offset must be at least 0')
      .max(1_000_000, 'offset must be at most 1000000')
      .default(0)
      .describe(`How many ${what} to skip (the \`nextOffset\` of the previous page)`),
  };
}

/** The OpenAPI extension that marks a named schema as the application document's only (api/http/openapi.ts). */
export const APPLICATION_DOCUMENT_KEY = 'x-sigil-document';
/**
 * Spread into `.meta({ id, ... })` of a named request or answer of the application routes: zod's registry is one
 * for the process, and the public /api/v1 document leaves out what carries this.
 */
export const APPLICATION_DOCUMENT_ONLY = { [APPLICATION_DOCUMENT_KEY]: 'app' } as const;

/**
 * The schema with every object in it strict, at every depth: a field it does not define is refused (zod's
 * `unrecognized_keys`, a 400 naming the field) instead of dropped. For the application routes' bodies that
 * reuse /api/v1's create requests, which ignore unknown fields (docs/app-api.md). Objects that chose already
 * stay as they are: strict ones, and loose ones (`z.looseObject`, such as a WebAuthn response, whose members
 * are the browser's).
 */
export function strictly<T extends z.ZodType>(schema: T): T {
  const def = schema.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const strict = (inner: unknown) => strictly(inner as z.ZodType);
  switch (def.type) {
    case 'object': {
      const shape = Object.fromEntries(
        Object.entries(def.shape as Record<string, z.ZodType>).map(([key, value]) => [key, strict(value)]),
      );
      return schema.clone({ ...def, shape, catchall: def.catchall ?? z.never() } as never) as T;
    }
    case 'array':
      return schema.clone({ ...def, element: strict(def.element) } as never) as T;
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      return schema.clone({ ...def, innerType: strict(def.innerType) } as never) as T;
    case 'pipe':
      return schema.clone({ ...def, in: strict(def.in) } as never) as T;
    case 'union':
      return schema.clone({ ...def, options: (def.options as z.ZodType[]).map(strict) } as never) as T;
    default:
      return schema;
  }
}

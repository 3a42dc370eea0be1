// Parses service input with a zod schema; failures become one InvalidRequest listing every problem. Each refused
// field's detail also says what rule it broke in a form a client can translate (docs/app-api.md, "Errors"):
// zod's issue code and the schema's own limits (`{ code: 'too_big', params: { origin: 'string', maximum: 200 } }`),
// never the value that was sent. The transports' validation errors (api/http/errors.ts, api/trpc/errors.ts)
// describe their issues with the same `issueRule`.
import type { z } from 'zod';
import { InvalidRequest } from './errors.ts';

/** A validation issue: zod's, or fastify-type-provider-zod's item with zod's code as its `keyword`. */
export interface ValidationIssue {
  code?: string | undefined;
  [key: string]: unknown;
}

/** The rule a refused field broke: its code and the params a client needs to say it in words. */
export type IssueRule = {
  code?: string;
  params?: Record<string, string | number | boolean | (string | number | boolean)[]>;
};

/** Which of an issue's members say the rule, by its code; everything else (the input among them) stays out. */
const RULE_PARAMS: Record<string, readonly string[]> = {
  too_small: ['origin', 'minimum', 'inclusive', 'exact'],
  too_big: ['origin', 'maximum', 'inclusive', 'exact'],
  invalid_format: ['format'],
  invalid_type: ['expected'],
  invalid_value: ['values'],
  not_multiple_of: ['divisor'],
  unrecognized_keys: ['keys'],
};

type Scalar = string | number | boolean;

function scalar(value: unknown): Scalar | undefined {
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  return undefined;
}

function param(value: unknown): Scalar | Scalar[] | undefined {
  if (Array.isArray(value)) {
    const items = value.slice(0, 50).map(scalar);
    return items.every((item) => item !== undefined) ? (items as Scalar[]) : undefined;
  }
  return scalar(value);
}

/**
 * The code and params of an issue: for zod's own codes the listed members; for a `custom` rule the params its
 * schema gave (`ctx.addIssue({ code: 'custom', params: { key: 'requiredForChannel' } })`), scalars only.
 */
export function issueRule(issue: ValidationIssue): IssueRule {
  const code = typeof issue.code === 'string' ? issue.code : undefined;
  if (!code) return {};
  const source =
    code === 'custom'
      ? ((issue.params as Record<string, unknown> | undefined) ?? {})
      : Object.fromEntries((RULE_PARAMS[code] ?? []).map((name) => [name, issue[name]]));
  const params: NonNullable<IssueRule['params']> = {};
  for (const [name, value] of Object.entries(source)) {
    const kept = param(value);
    if (kept !== undefined) params[name] = kept;
  }
  return Object.keys(params).length > 0 ? { code, params } : { code };
}

export function parseInput<T extends z.ZodType>(schema: T, input: unknown, what: string): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || undefined,
    message: issue.message,
    ...issueRule(issue as unknown as ValidationIssue),
  }));
  const first = details[0];
  const summary = first ? `${first.field ? `${first.field}: ` : ''}${first.message}` : 'invalid input';
  throw new InvalidRequest(
    `Invalid ${what}: ${summary}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}`,
    details,
  );
}

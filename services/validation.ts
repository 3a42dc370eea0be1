// Parses service input with a zod schema; failures become one InvalidRequest listing every problem.
import type { z } from 'zod';
import { InvalidRequest } from './errors.ts';

export function parseInput<T extends z.ZodType>(schema: T, input: unknown, what: string): z.infer<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    field: issue.path.map(String).join('.') || undefined,
    message: issue.message,
  }));
  const first = details[0];
  const summary = first ? `${first.field ? `${first.field}: ` : ''}${first.message}` : 'invalid input';
  throw new InvalidRequest(
    `Invalid ${what}: ${summary}${details.length > 1 ? ` (and ${details.length - 1} more)` : ''}`,
    details,
  );
}

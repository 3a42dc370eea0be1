// tRPC's errors in the terms of the server's one error mapping (api/http/errors.ts). A procedure call fails
// with a TRPCError: its input failed the procedure's zod schema (BAD_REQUEST with the issues), a service threw
// one of our AppErrors (wrapped as the cause), or something unexpected happened (INTERNAL_SERVER_ERROR with
// the cause, including an output that failed its schema). The transport rethrows what this returns, and the
// server's error handler answers it like any other route's error.
import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import { AppError } from '../../services/errors.ts';
import { issueRule, type ValidationIssue } from '../../services/validation.ts';
import { invalidRequest } from '../http/errors.ts';

/** Where a top-level input key came from, named as /api/v1's validation errors name it. */
export type InputSource = (key: string | undefined) => 'params' | 'querystring' | 'body';

type PathSegment = PropertyKey | { key: PropertyKey };

interface Issue extends ValidationIssue {
  path?: readonly PathSegment[];
  message: string;
  /** zod's `unrecognized_keys`: fields the input does not define, under `path`. */
  keys?: readonly string[];
}

/** What a field the request does not define is told (docs/app-api.md: request bodies are strict). */
export const UNKNOWN_FIELD = 'is not a field of this request';

/** The error to hand to the server's error handler for what a procedure call threw. */
export function fromTRPCError(error: unknown, sourceOf: InputSource): unknown {
  if (!(error instanceof TRPCError)) return error;
  if (error.cause instanceof AppError) return error.cause;
  const issues = inputIssues(error);
  if (issues) {
    return invalidRequest(
      issues.flatMap((issue): Parameters<typeof invalidRequest>[0] => {
        const path = (issue.path ?? []).map((segment) =>
          String(typeof segment === 'object' && segment !== null ? segment.key : segment),
        );
        const field = (at: string[]) => [sourceOf(at[0]), ...at].join('.');
        // An unknown field is named itself (`body.events`), one detail each, not the object holding it.
        if (issue.code === 'unrecognized_keys' && issue.keys && issue.keys.length > 0) {
          return issue.keys.map((key) => ({
            field: field([...path, key]),
            message: UNKNOWN_FIELD,
            code: 'unrecognized_keys',
          }));
        }
        return [{ field: field(path), message: issue.message, ...issueRule(issue) }];
      }),
    );
  }
  // Unexpected: the cause goes to the log, the client gets a 500 without it.
  if (error.code === 'INTERNAL_SERVER_ERROR') return error.cause ?? error;
  // A TRPCError a procedure or middleware threw on purpose (services throw AppErrors; see docs/app-api.md).
  const status = getHTTPStatusCodeFromError(error);
  return new AppError(
    status,
    error.code === 'BAD_REQUEST' ? 'invalid_request' : error.code.toLowerCase(),
    error.message,
  );
}

/** The issues of an input that failed its schema (zod's, or any Standard Schema's). */
function inputIssues(error: TRPCError): Issue[] | undefined {
  if (error.code !== 'BAD_REQUEST') return undefined;
  const issues = (error.cause as { issues?: unknown } | undefined)?.issues;
  return Array.isArray(issues) && issues.length > 0 ? (issues as Issue[]) : undefined;
}

// Schemas shared by the /api/v1 routes. Route files define their own request/response schemas next to the
// route (zod); these are the common pieces. The same zod schemas validate requests at runtime and produce
// the OpenAPI document (fastify-type-provider-zod + @fastify/swagger).
import { z } from 'zod';
import { ErrorBody } from '../../../domain/common.ts';

/** Every /api/v1 route may answer these, each with the error body (the specification's list, and 503). */
export const ERROR_RESPONSES = {
  400: ErrorBody.describe('Malformed request'),
  401: ErrorBody.describe('Missing or invalid credentials'),
  403: ErrorBody.describe(
    'Missing scope, API access off, source address not allowed, or sandbox requested while sandbox is not enabled on the server',
  ),
  404: ErrorBody.describe('Unknown resource (or another organization’s)'),
  409: ErrorBody.describe(
    'Conflict with the resource’s state, or an Idempotency-Key reused with another body',
  ),
  429: ErrorBody.describe('Too many requests'),
  500: ErrorBody.describe('Internal error'),
  503: ErrorBody.describe(
    'A dependency (the database or the workflow service) is unavailable; retry after the Retry-After seconds',
  ),
} as const;

export const UuidParam = z.object({ id: z.uuid({ message: 'id must be a uuid' }) });

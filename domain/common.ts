// Building blocks of the resource schemas: identifiers and dates as the API writes them.
import { z } from 'zod';

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An ISO 8601 date-time with an offset, as every answer writes dates. */
export const IsoDateTime = z.iso.datetime({ offset: true });

/** A uuid given by a caller: the message names the field. */
export function uuidOf(field: string) {
  return z.string().regex(UUID_PATTERN, `${field} must be a uuid`);
}

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

// The list and search of an organization's envelopes in the public API (GET /api/v1/envelopes): its query —
// filters, text query, sort and cursor — and its answer, a page of the envelope view (domain/envelope.ts).
// Query values arrive as text (docs/api.md, "Listing and searching envelopes").
import { z } from 'zod';
import { safeText, UUID_PATTERN, uuidOf } from './common.ts';
import { EnvelopeView } from './envelope.ts';
import { ENVELOPE_STATUSES, type EnvelopeStatus } from './vocabulary.ts';

export const ENVELOPE_LIST_LIMITS = {
  /** The largest page. */
  page: 100,
  defaultPage: 20,
  /** The longest text query. */
  q: 200,
} as const;

/** What a page is sorted by: the envelope's creation or last change. */
export const ENVELOPE_LIST_SORTS = ['createdAt', 'updatedAt'] as const;
export type EnvelopeListSort = (typeof ENVELOPE_LIST_SORTS)[number];
export const ENVELOPE_LIST_ORDERS = ['desc', 'asc'] as const;
export type EnvelopeListOrder = (typeof ENVELOPE_LIST_ORDERS)[number];

/**
 * The position after which a page starts: the sort and order it was read with, the last envelope's sort key
 * (to the microsecond, as PostgreSQL stores it) and its id.
 */
export interface EnvelopeListCursor {
  sort: EnvelopeListSort;
  order: EnvelopeListOrder;
  key: string;
  id: string;
}

const CURSOR_VERSION = 'e1';
const CURSOR_PATTERN = /^[A-Za-z0-9_-]+$/;
const CURSOR_MESSAGE = 'cursor must be the nextCursor of a previous page';
const KEY_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export function encodeEnvelopeListCursor(cursor: EnvelopeListCursor): string {
  return Buffer.from(
    [CURSOR_VERSION, cursor.sort, cursor.order, cursor.key, cursor.id].join('|'),
    'utf8',
  ).toString('base64url');
}

/** The cursor a page answered, or undefined for any other text. */
export function decodeEnvelopeListCursor(text: string): EnvelopeListCursor | undefined {
  if (!CURSOR_PATTERN.test(text) || text.length > 200) return undefined;
  const [version, sort, order, key, id, ...rest] = Buffer.from(text, 'base64url').toString('utf8').split('|');
  if (version !== CURSOR_VERSION || rest.length > 0 || !key || !id) return undefined;
  if (!ENVELOPE_LIST_SORTS.includes(sort as EnvelopeListSort)) return undefined;
  if (!ENVELOPE_LIST_ORDERS.includes(order as EnvelopeListOrder)) return undefined;
  if (!KEY_PATTERN.test(key) || Number.isNaN(Date.parse(key)) || !UUID_PATTERN.test(id)) return undefined;
  return { sort: sort as EnvelopeListSort, order: order as EnvelopeListOrder, key, id: id.toLowerCase() };
}

/** A cursor as a page answers it, for the OpenAPI document's examples. */
const EXAMPLE_CURSOR = encodeEnvelopeListCursor({
  sort: 'createdAt',
  order: 'desc',
  key: '2026-11-30T09:15:02.123456Z',
  id: '0f6e2c1a-5b7d-4c3e-9a8b-1d2e3f4a5b6c',
});

const STATUS_MESSAGE = `status must be a comma-separated list of: ${ENVELOPE_STATUSES.join(', ')}`;

const DateTime = (field: string) =>
  z.iso.datetime({ offset: true, message: `${field} must be an ISO 8601 date-time with an offset` });

/** The query of GET /api/v1/envelopes. */
export const EnvelopeListQuery = z
  .object({
    status: z
      .string()
      .max(400, STATUS_MESSAGE)
      .transform((text, ctx) => {
        const statuses = text.split(',').map((status) => status.trim());
        const unknown = statuses.filter((status) => !ENVELOPE_STATUSES.includes(status as EnvelopeStatus));
        if (unknown.length > 0) {
          ctx.addIssue({ code: 'custom', message: `${STATUS_MESSAGE} (not: ${unknown.join(', ')})` });
          return z.NEVER;
        }
        return [...new Set(statuses)] as EnvelopeStatus[];
      })
      .optional()
      .meta({ example: 'Sent,InProgress' })
      .describe(
        'Envelopes in any of these statuses: one status or several separated by commas (`Sent,InProgress`)',
      ),
    templateId: uuidOf('templateId').optional().describe('Created from this template'),
    externalReference: safeText()
      .min(1, 'externalReference must not be empty')
      .max(200, 'externalReference must be at most 200 characters')
      .optional()
      .describe('Exactly this external reference: every envelope that has it'),
    externalSystem: safeText()
      .min(1, 'externalSystem must not be empty')
      .max(100, 'externalSystem must be at most 100 characters')
      .optional()
      .describe('Exactly this external system'),
    createdFrom: DateTime('createdFrom')
      .optional()
      .meta({ example: '2026-11-01T00:00:00Z' })
      .describe('Created at or after this time'),
    createdTo: DateTime('createdTo').optional().describe('Created before this time'),
    updatedFrom: DateTime('updatedFrom').optional().describe('Last changed at or after this time'),
    updatedTo: DateTime('updatedTo').optional().describe('Last changed before this time'),
    q: safeText()
      .trim()
      .min(1, 'q must not be empty')
      .max(ENVELOPE_LIST_LIMITS.q, `q must be at most ${ENVELOPE_LIST_LIMITS.q} characters`)
      .optional()
      .meta({ example: 'dana' })
      .describe(
        'Text that occurs, without regard to case, in the title or in a recipient’s name, email address or phone',
      ),
    sort: z
      .enum(ENVELOPE_LIST_SORTS, { message: `sort must be one of: ${ENVELOPE_LIST_SORTS.join(', ')}` })
      .default('createdAt')
      .describe('Sort by creation time (default) or last change; ties by id'),
    order: z
      .enum(ENVELOPE_LIST_ORDERS, { message: `order must be one of: ${ENVELOPE_LIST_ORDERS.join(', ')}` })
      .default('desc')
      .describe('`desc` (newest first, default) or `asc`'),
    limit: z.coerce
      .number({ message: 'limit must be a whole number' })
      .int('limit must be a whole number')
      .min(1, 'limit must be at least 1')
      .max(ENVELOPE_LIST_LIMITS.page, `limit must be at most ${ENVELOPE_LIST_LIMITS.page}`)
      .default(ENVELOPE_LIST_LIMITS.defaultPage)
      .describe(
        `Envelopes per page, 1 to ${ENVELOPE_LIST_LIMITS.page} (default ${ENVELOPE_LIST_LIMITS.defaultPage})`,
      ),
    cursor: z
      .string()
      .max(200, CURSOR_MESSAGE)
      .regex(CURSOR_PATTERN, CURSOR_MESSAGE)
      .refine((text) => decodeEnvelopeListCursor(text) !== undefined, CURSOR_MESSAGE)
      .optional()
      .meta({ example: EXAMPLE_CURSOR })
      .describe('The `nextCursor` of the previous page, read with the same filters, sort and order'),
  })
  .superRefine((query, ctx) => {
    for (const [from, to] of [
      ['createdFrom', 'createdTo'],
      ['updatedFrom', 'updatedTo'],
    ] as const) {
      const start = query[from];
      const end = query[to];
      if (start && end && Date.parse(end) <= Date.parse(start)) {
        ctx.addIssue({ code: 'custom', path: [to], message: `${to} must be later than ${from}` });
      }
    }
    const cursor = query.cursor ? decodeEnvelopeListCursor(query.cursor) : undefined;
    if (cursor && (cursor.sort !== query.sort || cursor.order !== query.order)) {
      ctx.addIssue({
        code: 'custom',
        path: ['cursor'],
        message: `cursor was read with sort=${cursor.sort}&order=${cursor.order}: page on with the same sort and order`,
      });
    }
  });
export type EnvelopeListQuery = z.output<typeof EnvelopeListQuery>;

export const EnvelopeList = z
  .object({
    items: z
      .array(EnvelopeView)
      .describe('The envelopes of this page, each as GET /api/v1/envelopes/{id} shows it'),
    nextCursor: z.string().nullable().describe('The `cursor` of the next page; null: this is the last'),
  })
  .meta({ id: 'EnvelopeList' });
export type EnvelopeList = z.output<typeof EnvelopeList>;

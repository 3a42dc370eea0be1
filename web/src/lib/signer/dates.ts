// A Date field as the signer types it: in the field's date format (docs/templates.md; YYYY-MM-DD when it names
// none), with the format's parts named in the page's language as the placeholder ("DD/MM/YYYY", "יי/חח/שששש").
// The value saved is always YYYY-MM-DD, whatever the browser's locale — a native date input would follow the
// browser's, not the page's.
import { DATE_FORMATS, type DateFormat } from '../../../../domain/vocabulary.ts';

const PARTS: Record<DateFormat, { order: ('D' | 'M' | 'Y')[]; separator: string }> = {
  'YYYY-MM-DD': { order: ['Y', 'M', 'D'], separator: '-' },
  'DD/MM/YYYY': { order: ['D', 'M', 'Y'], separator: '/' },
  'MM/DD/YYYY': { order: ['M', 'D', 'Y'], separator: '/' },
  'DD.MM.YYYY': { order: ['D', 'M', 'Y'], separator: '.' },
};

export const DEFAULT_DATE_FORMAT: DateFormat = 'YYYY-MM-DD';

/** A Date field's format (`properties.dateFormat`), or the default when it names none it knows. */
export function fieldDateFormat(properties: { dateFormat?: string } | null | undefined): DateFormat {
  const named = properties?.dateFormat ?? '';
  return (DATE_FORMATS as readonly string[]).includes(named) ? (named as DateFormat) : DEFAULT_DATE_FORMAT;
}

/** A stored YYYY-MM-DD written in `format`; anything else is returned as it is. */
export function formatDate(stored: string, format: DateFormat): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(stored);
  if (!match) return stored;
  const part = { Y: match[1], M: match[2], D: match[3] };
  const { order, separator } = PARTS[format];
  return order.map((key) => part[key]).join(separator);
}

/**
 * What the signer typed, read in `format` (any of / . - or a space between the parts; a one-digit day or month
 * is fine): the YYYY-MM-DD to save, '' for an empty input, or undefined when it is not a date of the calendar.
 */
export function parseDate(typed: string, format: DateFormat): string | undefined {
  const text = typed.trim();
  if (text === '') return '';
  const pieces = text.split(/[\s./-]+/);
  const { order } = PARTS[format];
  if (pieces.length !== 3 || pieces.some((piece) => !/^\d+$/.test(piece))) return undefined;
  const value = { D: 0, M: 0, Y: 0 };
  order.forEach((key, index) => {
    value[key] = Number(pieces[index]);
  });
  const yearPiece = pieces[order.indexOf('Y')] ?? '';
  if (yearPiece.length !== 4) return undefined;
  const date = new Date(Date.UTC(value.Y, value.M - 1, value.D));
  if (
    date.getUTCFullYear() !== value.Y ||
    date.getUTCMonth() !== value.M - 1 ||
    date.getUTCDate() !== value.D
  )
    return undefined;
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${String(value.Y).padStart(4, '0')}-${pad(value.M)}-${pad(value.D)}`;
}

/** The format with its parts in the page's words (`letters`: the day's, month's and year's letter). */
export function datePlaceholder(format: DateFormat, letters: { D: string; M: string; Y: string }): string {
  const { order, separator } = PARTS[format];
  return order.map((key) => letters[key].repeat(key === 'Y' ? 4 : 2)).join(separator);
}

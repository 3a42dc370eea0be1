// The signer page's pure rules (web/src/lib/signer): the reading order of a recipient's fields (rows, right to
// left in Hebrew), the guided path (required first), the names a signer reads instead of a builder's default
// labels, and a Date field typed in its format.
import { describe, expect, it } from 'vitest';
import type { FieldType } from '../../domain/vocabulary.ts';
import { datePlaceholder, formatDate, parseDate } from '../../web/src/lib/signer/dates.ts';
import {
  fieldNames,
  guidedOrder,
  isDefaultLabel,
  type PlacedField,
  readingOrder,
} from '../../web/src/lib/signer/field-order.ts';

function field(
  label: string,
  type: FieldType,
  x: number,
  y: number,
  required = false,
  page = 1,
): PlacedField {
  return { fieldDefinitionId: label, label, type, x, y, width: 100, height: 20, required, page };
}

const FIELDS = [
  field('left', 'Text', 40, 100),
  field('right', 'Text', 400, 102),
  field('middle', 'Signature', 220, 98, true),
  field('top', 'Date', 300, 40),
  field('second page', 'Signature', 40, 10, true, 2),
  field('note', 'Read-only text', 40, 200),
];

const labels = (fields: PlacedField[]) => fields.map((item) => item.label);

describe('the signer page', () => {
  it('reads fields page by page, in rows, left to right or right to left', () => {
    expect(labels(readingOrder(FIELDS, false))).toEqual([
      'top',
      'left',
      'middle',
      'right',
      'note',
      'second page',
    ]);
    expect(labels(readingOrder(FIELDS, true))).toEqual([
      'top',
      'right',
      'middle',
      'left',
      'note',
      'second page',
    ]);
  });

  it('guides through the required fields first, then the optional ones, never to Read-only text', () => {
    expect(labels(guidedOrder(FIELDS, false))).toEqual(['middle', 'second page', 'top', 'left', 'right']);
    expect(labels(guidedOrder(FIELDS, true))).toEqual(['middle', 'second page', 'top', 'right', 'left']);
  });

  it("names a field by its type in the page's language when its label is only a default one", () => {
    const english: Record<string, string> = { Text: 'Text', Signature: 'Signature', Date: 'Date' };
    const hebrew: Record<string, string> = { Text: 'טקסט', Signature: 'חתימה', Date: 'תאריך' };
    const defaults = (type: FieldType) => [type, english[type] ?? type, hebrew[type] ?? type];
    expect(isDefaultLabel('Text 1', defaults('Text'))).toBe(true);
    expect(isDefaultLabel('טקסט 12', defaults('Text'))).toBe(true);
    expect(isDefaultLabel('signature', defaults('Signature'))).toBe(true);
    expect(isDefaultLabel('Start date', defaults('Date'))).toBe(false);
    const fields = [
      field('Signature 2', 'Signature', 40, 300, true),
      field('Signature 1', 'Signature', 40, 80, true),
      field('Date 1', 'Date', 40, 200),
      field('Client name', 'Text', 40, 40),
      field('Text 7', 'Text', 40, 60),
    ];
    const names = fieldNames(fields, true, (type) => hebrew[type] ?? type, defaults);
    // Numbered in reading order only when the recipient has several; a label of its own is kept.
    expect(Object.fromEntries(names)).toEqual({
      'Signature 1': 'חתימה 1',
      'Signature 2': 'חתימה 2',
      'Date 1': 'תאריך',
      'Client name': 'Client name',
      'Text 7': 'טקסט',
    });
  });

  it('reads and writes a date in the field’s format, and saves YYYY-MM-DD', () => {
    expect(parseDate('05/12/2026', 'DD/MM/YYYY')).toBe('2026-12-05');
    expect(parseDate('12/05/2026', 'MM/DD/YYYY')).toBe('2026-12-05');
    expect(parseDate('5.12.2026', 'DD.MM.YYYY')).toBe('2026-12-05');
    expect(parseDate('2026-12-05', 'YYYY-MM-DD')).toBe('2026-12-05');
    expect(parseDate('31/02/2026', 'DD/MM/YYYY')).toBeUndefined();
    expect(parseDate('05/12/26', 'DD/MM/YYYY')).toBeUndefined();
    expect(parseDate('  ', 'DD/MM/YYYY')).toBe('');
    expect(formatDate('2026-12-05', 'DD.MM.YYYY')).toBe('05.12.2026');
    expect(formatDate('2026-12-05', 'MM/DD/YYYY')).toBe('12/05/2026');
    expect(datePlaceholder('DD/MM/YYYY', { D: 'י', M: 'ח', Y: 'ש' })).toBe('יי/חח/שששש');
  });
});

// A new field's label in the template builder (web/src/lib/app/templates/document.ts, newFieldLabel): its type's
// name in the page's language — "Date", "תאריך" — numbered only when the document already has a field of that
// type ("Date 2"), never "Text 1" for the only text field, and never a label a field of the type already has.
import { get } from 'svelte/store';
import { addMessages, format, init, locale } from 'svelte-i18n';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FieldType } from '../../domain/vocabulary.ts';
import { FIELD_TYPE_KEYS } from '../../web/src/lib/app/labels.ts';
import { newFieldLabel } from '../../web/src/lib/app/templates/document.ts';
import en from '../../web/src/lib/i18n/en.json' with { type: 'json' };
import he from '../../web/src/lib/i18n/he.json' with { type: 'json' };

type Placed = { type: FieldType; label: string };

/** The labels fields of these types get when placed one after the other, as the builder's pages word them. */
async function placed(language: 'en' | 'he', types: readonly FieldType[], existing: Placed[] = []) {
  await locale.set(language);
  const t = get(format);
  const fields = [...existing];
  for (const type of types) {
    const name = t(FIELD_TYPE_KEYS[type]);
    const label = newFieldLabel(fields, type, name, (number) =>
      t('templates.builder.defaultLabel', { values: { type: name, number } }),
    );
    fields.push({ type, label });
  }
  return fields.slice(existing.length).map((field) => field.label);
}

describe('a new field label in the template builder', () => {
  beforeAll(() => {
    addMessages('en', en);
    addMessages('he', he);
    init({ fallbackLocale: 'en', initialLocale: 'en' });
  });

  it('is the type name alone for the only field of its type, numbered from 2 when repeated', async () => {
    expect(await placed('en', ['Text', 'Date', 'Signature', 'Date', 'Date'])).toEqual([
      'Text',
      'Date',
      'Signature',
      'Date 2',
      'Date 3',
    ]);
  });

  it('is in the page language', async () => {
    expect(await placed('he', ['Date', 'Signature', 'Date'])).toEqual(['תאריך', 'חתימה', 'תאריך 2']);
  });

  it('takes the first number no field of its type has, whatever the others were renamed to', async () => {
    const existing: Placed[] = [
      { type: 'Date', label: 'Start date' },
      { type: 'Date', label: 'Date 2' },
      { type: 'Text', label: 'Date 3' },
    ];
    expect(await placed('en', ['Date', 'Date'], existing)).toEqual(['Date 3', 'Date 4']);
  });
});

// The business app's timeline in words (web/src/lib/app/documents/timeline-events.ts): every audit event an
// envelope's workflow, its record and its recipients' links write has its own line in English and Hebrew — never
// "Event <type>" — naming who did it; a download says which document, a delegation whom the part went to.
import { get } from 'svelte/store';
import { addMessages, format, init, locale } from 'svelte-i18n';
import { beforeAll, describe, expect, it } from 'vitest';
import { RECORD_EVENT_TYPES } from '../../domain/document-lifecycle.ts';
import { DOCUMENT_DOWNLOADED_EVENT, SIGNING_DOCUMENTS } from '../../domain/signing.ts';
import { type DocumentEvent, eventLine } from '../../web/src/lib/app/documents/timeline-events.ts';
import en from '../../web/src/lib/i18n/en.json' with { type: 'json' };
import he from '../../web/src/lib/i18n/he.json' with { type: 'json' };
import { ENVELOPE_TRANSITIONS } from '../../workflows/transitions.ts';

const DANA = {
  id: '6f1c0a52-5d1e-4c57-9a44-1f0f5e0b7d01',
  email: 'dana@client.example',
  fullName: 'Dana Levi',
};

/** An event as GET /api/documents/{id} answers it, with the data its writer records. */
function event(type: string, data: Record<string, unknown> = {}): DocumentEvent {
  return { sequence: 1, type, occurredAt: '2026-12-05T10:00:00.000Z', recipient: DANA, data };
}

/** The line an event reads as in a language. */
async function words(language: 'en' | 'he', audit: DocumentEvent): Promise<string> {
  await locale.set(language);
  const line = eventLine(audit, (iso) => iso.slice(0, 10));
  return get(format)(line.key, { values: line.values });
}

/** What the workflow's transitions record (the event names in their table) and what the records add. */
function recordedEventTypes(): string[] {
  const fromWorkflow = ENVELOPE_TRANSITIONS.flatMap((rule) =>
    [...rule.event.matchAll(/`([a-z_]+\.[a-z_]+)`/g)].map((match) => match[1] ?? ''),
  );
  return [...new Set([...fromWorkflow, ...RECORD_EVENT_TYPES, DOCUMENT_DOWNLOADED_EVENT])].sort();
}

/** The data some events need for their line, as their writers record it. */
const DATA: Record<string, Record<string, unknown>> = {
  'recipient.completed': { action: 'signed' },
  'recipient.delegated': { delegated_by_name: 'Dana Levi', delegated_to_name: 'Noa Bar' },
  'envelope.extended': { expires_at: '2026-12-31T00:00:00.000Z' },
  [DOCUMENT_DOWNLOADED_EVENT]: { document: 'final-pdf' },
};

describe('the documents timeline', () => {
  beforeAll(() => {
    addMessages('en', en);
    addMessages('he', he);
    init({ fallbackLocale: 'en', initialLocale: 'en' });
  });

  it('has a line of its own for every event the workflow, the record and the links write', () => {
    const types = recordedEventTypes();
    expect(types).toEqual(expect.arrayContaining(['recipient.delegated', 'document.downloaded']));
    for (const type of types) {
      expect(eventLine(event(type, DATA[type]), String).key, type).not.toBe('documents.event.other');
    }
  });

  it('says who downloaded which document, in English and in Hebrew', async () => {
    const lines = async (language: 'en' | 'he') =>
      Promise.all(
        SIGNING_DOCUMENTS.map((document) => words(language, event('document.downloaded', { document }))),
      );
    expect(await lines('en')).toEqual([
      'Dana Levi downloaded the signed document',
      'Dana Levi downloaded the audit trail',
      'Dana Levi downloaded the original document',
    ]);
    expect(await lines('he')).toEqual([
      'Dana Levi הוריד את המסמך החתום',
      'Dana Levi הוריד את יומן הביקורת',
      'Dana Levi הוריד את המסמך המקורי',
    ]);
  });

  it('says who handed their part to whom', async () => {
    const delegated = event('recipient.delegated', DATA['recipient.delegated']);
    expect(await words('en', delegated)).toBe('Dana Levi handed their part to Noa Bar');
    expect(await words('he', delegated)).toBe('Dana Levi העביר את חלקו אל Noa Bar');
  });

  it('still names an event it does not know by its type', async () => {
    expect(await words('en', event('envelope.unheard_of'))).toBe('Event envelope.unheard_of');
  });
});

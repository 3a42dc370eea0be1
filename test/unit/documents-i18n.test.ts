// The documents in the organization's language: both catalogs carry the same keys, a Hebrew audit trail has
// Hebrew labels, headings, event names and status words (ids, hashes, dates and addresses unchanged) laid out
// from the right, an English one stays English, and every uploaded file is listed.
import { readFile } from 'node:fs/promises';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { describe, expect, it } from 'vitest';
import { ENVELOPE_STATUSES, RECIPIENT_STATUSES, RECIPIENT_TYPES } from '../../domain/vocabulary.ts';
import { DOCUMENT_MESSAGES, documentLanguage, documentText } from '../../pdf/i18n.ts';
import { type RenderAuditTrailInput, renderAuditTrail } from '../../pdf/render-audit-trail.ts';

const ENVELOPE_ID = '0f8e2c1a-5b7d-4e8f-9a1b-2c3d4e5f6a7b';
const ORIGINAL_SHA = 'a3f1'.repeat(16);
const FINAL_SHA = '9bc0'.repeat(16);
const UPLOAD_SHA = '5e7a'.repeat(16);
const IP = '198.51.100.7';
const minute = (n: number) => new Date(Date.UTC(2026, 2, 1, 9, 0, 0) + n * 60_000);

function input(language?: 'en' | 'he'): RenderAuditTrailInput {
  return {
    envelope: {
      id: ENVELOPE_ID,
      title: 'Services agreement',
      organizationName: 'Acme Ltd.',
      status: 'Completed',
      createdAt: minute(-30),
      sentAt: minute(0),
      completedAt: minute(5),
      expiresAt: null,
    },
    document: { filename: 'services-agreement.pdf', sha256: ORIGINAL_SHA, pageCount: 3 },
    finalPdfSha256: FINAL_SHA,
    recipients: [
      {
        id: '11111111-1111-4111-8111-111111111111',
        fullName: 'Dana Levi',
        email: 'dana@example.com',
        phone: '+972501234567',
        roleName: 'Client',
        type: 'Signer',
        signingOrder: 1,
        status: 'Completed',
        completedAt: minute(4),
        language: 'he',
        deliveryChannel: 'Sms',
        authenticationMethod: 'OtpSms',
      },
    ],
    events: [
      { sequence: 1, type: 'envelope.sent', occurredAt: minute(0), data: {} },
      {
        sequence: 2,
        type: 'recipient.opened',
        occurredAt: minute(1),
        ip: IP,
        userAgent: 'Mozilla/5.0 (X11)',
        data: {},
      },
      { sequence: 3, type: 'recipient.completed', occurredAt: minute(4), ip: IP, data: {} },
    ],
    uploads: [
      {
        fieldLabel: 'Passport scan',
        filename: 'passport.pdf',
        contentType: 'application/pdf',
        sizeBytes: 48213,
        sha256: UPLOAD_SHA,
      },
    ],
    generatedAt: minute(5),
    ...(language ? { language } : {}),
  };
}

/** Text items of the first page with their x positions. */
async function firstPage(bytes: Uint8Array): Promise<{ text: string; items: { str: string; x: number }[] }> {
  const task = getDocument({ data: bytes.slice(), verbosity: 0 });
  const pdf = await task.promise;
  const content = await (await pdf.getPage(1)).getTextContent();
  const items = content.items
    .filter((item): item is TextItem => 'str' in item)
    .map((item) => ({ str: item.str, x: item.transform[4] as number }));
  await task.destroy();
  return { text: items.map((item) => item.str).join(' '), items };
}

describe('the documents catalog', () => {
  it('has the same keys in English and Hebrew, none empty', () => {
    const english = Object.keys(DOCUMENT_MESSAGES.en).sort();
    expect(Object.keys(DOCUMENT_MESSAGES.he).sort()).toEqual(english);
    for (const language of ['en', 'he'] as const) {
      for (const [key, message] of Object.entries(DOCUMENT_MESSAGES[language])) {
        expect(message.trim(), `${language} ${key}`).not.toBe('');
        // The same placeholders in both languages.
        const placeholders = (text: string) => (text.match(/\{\w+\}/g) ?? []).sort();
        expect(placeholders(message), `${language} ${key}`).toEqual(
          placeholders(DOCUMENT_MESSAGES.en[key as keyof typeof DOCUMENT_MESSAGES.en]),
        );
      }
    }
  });

  it('names every status and recipient type, and translates them into Hebrew', () => {
    const he = documentText('he');
    for (const status of ENVELOPE_STATUSES) {
      expect(he.lookup(`envelopeStatus.${status}`, '')).toMatch(/[\u0590-\u05FF]/);
    }
    for (const status of RECIPIENT_STATUSES) {
      expect(he.lookup(`recipientStatus.${status}`, '')).toMatch(/[\u0590-\u05FF]/);
    }
    for (const type of RECIPIENT_TYPES)
      expect(he.lookup(`recipientType.${type}`, '')).toMatch(/[\u0590-\u05FF]/);
    expect(he.lookup('event.some.future_event', 'fallback')).toBe('fallback');
  });

  it('names every audit event the envelope workflow records, in both languages', async () => {
    // The workflow, its model and its runner are where transitions are named.
    const source = (
      await Promise.all(
        ['envelope.ts', 'envelope-model.ts', 'envelope-run.ts'].map((file) =>
          readFile(new URL(`../../workflows/${file}`, import.meta.url), 'utf8'),
        ),
      )
    ).join('\n');
    const recorded = [...new Set(source.match(/'(?:envelope|recipient|document)\.[a-z_]+'/g))].map((t) =>
      t.slice(1, -1),
    );
    expect(recorded).toContain('recipient.authentication_requested');
    expect(recorded.length).toBeGreaterThanOrEqual(20);
    for (const language of ['en', 'he'] as const) {
      const words = documentText(language);
      for (const type of recorded)
        expect(words.lookup(`event.${type}`, ''), `${language} ${type}`).not.toBe('');
    }
  });

  it('takes the organization language, anything unknown being English', () => {
    expect(documentLanguage('he')).toBe('he');
    expect(documentLanguage('en')).toBe('en');
    for (const other of ['fr', 'HE', '', null, undefined, 3]) expect(documentLanguage(other)).toBe('en');
    expect(documentText('he').t('audit.pageOf', { page: 2, total: 5 })).toBe('עמוד 2 מתוך 5');
    expect(documentText().t('final.attached', { filename: 'a {page}.pdf' })).toBe('Attached: a {page}.pdf');
  });
});

describe('the Hebrew audit trail', () => {
  it('has Hebrew labels, headings, event names and statuses, with ids, hashes, dates and addresses as they are', async () => {
    const { text, items } = await firstPage(await renderAuditTrail(input('he')));
    // pdf.js returns each run of one font as an item, so a label mixing Hebrew and Latin ("כתובת IP") comes
    // back in pieces: the Hebrew words are looked for on their own.
    for (const hebrew of [
      'יומן ביקורת',
      'מזהה מעטפה',
      'ארגון',
      'סטטוס',
      'הושלמה',
      'מסמך',
      'שם הקובץ',
      'של המקור',
      'נמענים',
      'פרטי קשר',
      'חותם',
      'השלים',
      'קבצים שהועלו',
      'שדה',
      'גודל',
      'יומן אירועים',
      'המעטפה נשלחה',
      'הקישור נפתח',
      'הנמען השלים',
      'כתובת',
      'עמוד',
      'מתוך',
      'קוד חד',
    ]) {
      expect(text, hebrew).toContain(hebrew);
    }
    for (const unchanged of [
      ENVELOPE_ID,
      ORIGINAL_SHA,
      FINAL_SHA,
      UPLOAD_SHA,
      IP,
      '2026-03-01T08:30:00Z',
      '2026-03-01T09:04:00Z',
      'dana@example.com',
      '+972501234567',
      'passport.pdf',
      'application/pdf',
      '48213',
      'Passport scan',
      'recipient.opened',
    ]) {
      expect(text, unchanged).toContain(unchanged);
    }
    for (const english of [
      'Envelope ID',
      'Recipients',
      'Event log',
      'Link opened',
      'page 1 of 1',
      'Uploaded files',
    ]) {
      expect(text).not.toContain(english);
    }
    // Right to left: the label "Envelope ID" sits right of its value, near the right margin.
    const label = items.find((item) => item.str.includes('מזהה מעטפה'));
    const value = items.find((item) => item.str.includes(ENVELOPE_ID));
    expect(label?.x).toBeGreaterThan(400);
    expect(value?.x).toBeLessThan(label?.x as number);
  });

  it('stays English by default, uploads listed with their size and digest', async () => {
    const { text, items } = await firstPage(await renderAuditTrail(input()));
    for (const english of [
      'AUDIT TRAIL',
      'Envelope ID',
      'Recipients (1)',
      'Uploaded files (1)',
      'Passport scan',
      'passport.pdf',
      'application/pdf',
      '48213 bytes',
      `SHA-256: ${UPLOAD_SHA}`,
      'Event log (3 events)',
      'Link opened',
      'page 1 of 1',
    ]) {
      expect(text, english).toContain(english);
    }
    expect(text).not.toMatch(/[\u0590-\u05FF]/);
    const label = items.find((item) => item.str.includes('Envelope ID'));
    expect(label?.x).toBeLessThan(60);
  });

  it('leaves the uploads section out when nothing was uploaded', async () => {
    const none = input();
    none.uploads = [];
    const { text } = await firstPage(await renderAuditTrail(none));
    expect(text).not.toContain('Uploaded files');
  });
});

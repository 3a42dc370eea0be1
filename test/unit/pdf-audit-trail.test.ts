// The audit-trail renderer: the envelope's identity, both digests, every recipient and every event in order,
// spread over as many A4 pages as needed with "page N of M" on each; Hebrew readable; same input, same bytes.
import { createHash } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { describe, expect, it } from 'vitest';
import {
  type AuditTrailEvent,
  PdfRenderError,
  type RenderAuditTrailInput,
  renderAuditTrail,
} from '../../documents/render-audit-trail.ts';

const ENVELOPE_ID = '0f8e2c1a-5b7d-4e8f-9a1b-2c3d4e5f6a7b';
const ORIGINAL_SHA = 'a3f1'.repeat(16);
const FINAL_SHA = '9bc0'.repeat(16);
const GENERATED_AT = new Date('2026-03-01T14:05:00.123Z');
const minute = (n: number) => new Date(Date.UTC(2026, 2, 1, 9, 0, 0) + n * 60_000);

function events(count: number): AuditTrailEvent[] {
  const types = [
    'recipient.opened',
    'recipient.authentication_verified',
    'recipient.completed',
    'envelope.reminded',
  ];
  return Array.from({ length: count }, (_, index) => ({
    sequence: index + 1,
    type: index === 0 ? 'envelope.sent' : (types[index % types.length] as string),
    occurredAt: minute(index),
    actor: `actor-${String(index + 1).padStart(3, '0')}`,
    ip: index % 2 ? '198.51.100.7' : '2001:db8::7334',
    userAgent:
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    data: index % 10 === 0 ? { reason: 'שינוי בסעיף 4', round: index } : {},
  }));
}

function input(eventCount = 6): RenderAuditTrailInput {
  return {
    envelope: {
      id: ENVELOPE_ID,
      title: 'הסכם שירותים – Services agreement',
      organizationName: 'Acme Ltd.',
      status: 'Completed',
      createdAt: minute(-30),
      sentAt: minute(0),
      completedAt: minute(eventCount),
      expiresAt: null,
    },
    document: { filename: 'services-agreement.pdf', sha256: ORIGINAL_SHA, pageCount: 3 },
    finalPdfSha256: FINAL_SHA,
    recipients: [
      {
        fullName: 'דנה לוי',
        email: 'dana@example.com',
        phone: '+972501234567',
        roleName: 'Provider',
        type: 'Signer',
        signingOrder: 2,
        status: 'Completed',
        completedAt: minute(4),
        language: 'he',
        deliveryChannel: 'Sms',
        authenticationMethod: 'OtpSms',
      },
      {
        fullName: 'Avi Cohen',
        email: 'avi@example.com',
        phone: null,
        roleName: 'Client',
        type: 'Signer',
        signingOrder: 1,
        status: 'Completed',
        completedAt: minute(2),
        language: null,
      },
      {
        fullName: 'Legal Team',
        email: 'legal@example.com',
        phone: null,
        roleName: 'Observer',
        type: 'Cc',
        signingOrder: 3,
        status: 'Pending',
        completedAt: null,
        language: 'en',
      },
    ],
    events: events(eventCount),
    generatedAt: GENERATED_AT,
  };
}

/** The text of each page, items joined in content order. */
async function pageTexts(bytes: Uint8Array): Promise<string[]> {
  const task = getDocument({ data: bytes.slice(), verbosity: 0 });
  const pdf = await task.promise;
  const texts: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const items = (await (await pdf.getPage(number)).getTextContent()).items;
    texts.push(
      items
        .filter((item): item is TextItem => 'str' in item)
        .map((item) => item.str)
        .join(' '),
    );
  }
  await task.destroy();
  return texts;
}

describe('renderAuditTrail', () => {
  it('shows the envelope, the document digests and every recipient, in UTC', async () => {
    const output = await renderAuditTrail(input());
    const [text = ''] = await pageTexts(output);
    for (const expected of [
      ENVELOPE_ID,
      'Acme Ltd.',
      'Completed',
      'Created (UTC)',
      '2026-03-01T08:30:00Z',
      '2026-03-01T09:00:00Z',
      '2026-03-01T14:05:00Z',
      'services-agreement.pdf',
      ORIGINAL_SHA,
      FINAL_SHA,
      'Avi Cohen',
      'דנה לוי',
      'Legal Team',
      'legal@example.com',
      'Sms · OtpSms',
      'Observer',
      'Cc',
      'שינוי בסעיף',
      'Services agreement',
      'הסכם שירותים',
    ]) {
      expect(text).toContain(expected);
    }
    // Recipients in signing order.
    expect(text.indexOf('Avi Cohen')).toBeLessThan(text.indexOf('דנה לוי'));
    expect(text).toContain('page 1 of 1');
    const doc = await PDFDocument.load(output, { updateMetadata: false });
    expect(doc.getPageCount()).toBe(1);
    expect(doc.getProducer()).toBe('Sigil');
    expect(doc.getCreationDate()?.toISOString()).toBe('2026-03-01T14:05:00.000Z');
    expect(doc.getTitle()).toBe('Audit trail: הסכם שירותים – Services agreement');
  });

  it('spreads 200 events over several pages, in sequence order, with a footer on each page', async () => {
    const many = input(200);
    many.events.reverse();
    const output = await renderAuditTrail(many);
    const texts = await pageTexts(output);
    expect(texts.length).toBeGreaterThanOrEqual(5);
    texts.forEach((text, index) => {
      expect(text).toContain(`page ${index + 1} of ${texts.length}`);
      expect(text).toContain(`Sigil audit trail · envelope ${ENVELOPE_ID}`);
      if (index > 0) expect(text).toContain('Event log (200 events) (continued)');
    });
    const all = texts.join(' ');
    let previous = -1;
    for (let sequence = 1; sequence <= 200; sequence += 1) {
      const position = all.indexOf(`actor-${String(sequence).padStart(3, '0')}`);
      expect(position, `event ${sequence}`).toBeGreaterThan(previous);
      previous = position;
    }
    expect(all).toContain('Recipient completed');
    expect(all).toContain('recipient.authentication_verified');
    expect((await PDFDocument.load(output)).getPageCount()).toBe(texts.length);
  });

  it('gives identical bytes for identical input', async () => {
    const [a, b] = await Promise.all([renderAuditTrail(input(40)), renderAuditTrail(input(40))]);
    const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    expect(sha(a)).toBe(sha(b));
  });

  it('shows an empty log and missing values plainly', async () => {
    const empty = input();
    empty.events = [];
    empty.recipients = [];
    empty.envelope.sentAt = null;
    const [text = ''] = await pageTexts(await renderAuditTrail(empty));
    expect(text).toContain('No events recorded.');
    expect(text).toContain('No recipients.');
    expect(text).toContain('—');
  });

  it('refuses an invalid date', async () => {
    const bad = input();
    bad.events[2] = { ...(bad.events[2] as AuditTrailEvent), occurredAt: new Date('nope') };
    await expect(renderAuditTrail(bad)).rejects.toThrow(
      new PdfRenderError('event 3 (recipient.completed): occurredAt must be a valid date'),
    );
    const badGenerated = input();
    badGenerated.generatedAt = new Date(Number.NaN);
    await expect(renderAuditTrail(badGenerated)).rejects.toThrow(PdfRenderError);
  });
});

// The audit-trail renderer: the envelope's identity, both digests, every recipient and every event in order,
// spread over as many A4 pages as needed with "page N of M" on each; Hebrew readable; same input, same bytes.
// Every event names who acted (a recipient event its recipient), and addresses, phone numbers, ids, digests
// and IP addresses come back from pdf.js whole, each as one piece of text.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { describe, expect, it } from 'vitest';
import type { DocumentLanguage } from '../../pdf/i18n.ts';
import {
  type AuditTrailEvent,
  type AuditTrailRecipient,
  eventActor,
  formatUtc,
  PdfRenderError,
  type RenderAuditTrailInput,
  renderAuditTrail,
} from '../../pdf/render-audit-trail.ts';

const ENVELOPE_ID = '0f8e2c1a-5b7d-4e8f-9a1b-2c3d4e5f6a7b';
const ORIGINAL_SHA = 'a3f1'.repeat(16);
const FINAL_SHA = '9bc0'.repeat(16);
const GENERATED_AT = new Date('2026-03-01T14:05:00.123Z');
const RECIPIENT_DANA = '11111111-1111-4111-8111-111111111111';
const RECIPIENT_AVI = '22222222-2222-4222-8222-222222222222';
const RECIPIENT_LEGAL = '33333333-3333-4333-8333-333333333333';
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
        id: RECIPIENT_DANA,
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
        id: RECIPIENT_AVI,
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
        id: RECIPIENT_LEGAL,
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

/** The text items of each page, in content order: each is one run of text as drawn. */
async function pageItems(bytes: Uint8Array): Promise<string[][]> {
  const task = getDocument({ data: bytes.slice(), verbosity: 0 });
  const pdf = await task.promise;
  const pages: string[][] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const items = (await (await pdf.getPage(number)).getTextContent()).items;
    pages.push(items.filter((item): item is TextItem => 'str' in item).map((item) => item.str));
  }
  await task.destroy();
  return pages;
}

/** The text of each page, items joined in content order. */
async function pageTexts(bytes: Uint8Array): Promise<string[]> {
  return (await pageItems(bytes)).map((items) => items.join(' '));
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

  it('lists the stamps chosen from personal stamps in their own section, in both languages', async () => {
    const stamped = input();
    stamped.personalStamps = [
      {
        fieldLabel: 'Company stamp',
        stampName: 'Levi Trading',
        version: 3,
        contentType: 'image/jpeg',
        sizeBytes: 20480,
        sha256: '7c1d'.repeat(16),
      },
    ];
    const text = (await pageTexts(await renderAuditTrail(stamped))).join('\n');
    for (const expected of [
      'Stamps chosen from personal stamps (1)',
      'Personal stamp',
      'Levi Trading, version 3',
      'image/jpeg',
      '20480 bytes',
      `SHA-256: ${'7c1d'.repeat(16)}`,
    ]) {
      expect(text).toContain(expected);
    }
    expect((await pageTexts(await renderAuditTrail(input()))).join('\n')).not.toContain('personal stamps');
    const hebrew = { ...stamped, language: 'he' as const };
    expect((await pageTexts(await renderAuditTrail(hebrew))).join('\n')).toContain('7c1d'.repeat(16));
    const [chosen] = stamped.personalStamps;
    if (!chosen) throw new Error('no personal stamp');
    stamped.personalStamps = [{ ...chosen, version: 1.5 }];
    await expect(renderAuditTrail(stamped)).rejects.toThrow(PdfRenderError);
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

const LONG_EMAIL = 'noa.levi-cohen+contracts-2026@subsidiary.example.co.il';
/** E.164 allows 15 digits. */
const LONG_PHONE = '+972501234567890';
const LONG_IPV6 = '2001:0db8:85a3:0000:0000:8a2e:0370:7334';
const RECIPIENT_NOA = '44444444-4444-4444-8444-444444444444';
const RECIPIENT_YOSSI = '55555555-5555-4555-8555-555555555555';

/**
 * Two recipients with one name and one address (in two roles), one with a long e-mail address, one reached by
 * SMS at a long number; an event of every kind a recipient causes, and the envelope's own events.
 */
function whoActed(language: DocumentLanguage): RenderAuditTrailInput {
  const recipient = (
    id: string,
    signingOrder: number,
    values: Partial<AuditTrailRecipient>,
  ): AuditTrailRecipient => ({
    id,
    fullName: 'Dana Levi',
    email: 'dana@example.com',
    phone: null,
    roleName: 'Client',
    type: 'Signer',
    signingOrder,
    status: 'Completed',
    completedAt: minute(50 + signingOrder),
    language: 'en',
    deliveryChannel: 'Email',
    authenticationMethod: 'SecureLink',
    ...values,
  });
  const recipients = [
    recipient(RECIPIENT_DANA, 1, {}),
    recipient(RECIPIENT_AVI, 2, { roleName: 'Guarantor' }),
    recipient(RECIPIENT_NOA, 3, {
      fullName: 'נועה כהן',
      email: LONG_EMAIL,
      roleName: 'Counsel',
      type: 'Approver',
    }),
    recipient(RECIPIENT_YOSSI, 4, {
      fullName: 'Yossi Mizrahi',
      email: 'yossi@example.com',
      phone: LONG_PHONE,
      roleName: 'Witness',
      type: 'Viewer',
      status: 'AuthenticationPending',
      completedAt: null,
      deliveryChannel: 'Sms',
      authenticationMethod: 'OtpSms',
    }),
  ];
  const steps: [type: string, recipientId: string | null, data?: Record<string, unknown>][] = [
    ['envelope.sent', null],
    ['recipient.invitation_sent', RECIPIENT_DANA, { kind: 'invitation', channel: 'Email' }],
    ['recipient.opened', RECIPIENT_DANA],
    ['recipient.viewed', RECIPIENT_DANA],
    ['recipient.started', RECIPIENT_DANA],
    ['recipient.completed', RECIPIENT_DANA, { action: 'signed' }],
    ['recipient.opened', RECIPIENT_AVI],
    ['recipient.completed', RECIPIENT_AVI, { action: 'signed' }],
    [
      'envelope.reminded',
      null,
      { recipient_ids: [RECIPIENT_NOA, RECIPIENT_YOSSI, RECIPIENT_LEGAL], automatic: true },
    ],
    ['recipient.delivery_failed', RECIPIENT_NOA, { kind: 'reminder', failure_type: 'bounced' }],
    ['recipient.viewed', RECIPIENT_NOA],
    ['recipient.completed', RECIPIENT_NOA, { action: 'approved' }],
    ['envelope.reminded', null, { recipient_ids: [RECIPIENT_YOSSI] }],
    ['recipient.authentication_requested', RECIPIENT_YOSSI, { channel: 'Sms' }],
    ['recipient.authentication_failed', RECIPIENT_YOSSI, { reason: 'wrong code' }],
    ['recipient.authentication_verified', RECIPIENT_YOSSI],
    ['recipient.declined', RECIPIENT_YOSSI, { reason: 'not my contract' }],
    ['envelope.extended', null, { expires_at: '2026-04-30T09:00:00.000Z' }],
    ['envelope.cancelled', null, {}],
    ['envelope.expired', null, {}],
    ['envelope.final_pdf_failed', null, { reason: 'font missing' }],
    ['envelope.final_pdf_retried', null],
  ];
  return {
    ...input(),
    recipients,
    events: steps.map(([type, recipientId, data], index) => ({
      sequence: index + 1,
      type,
      recipientId,
      occurredAt: minute(index),
      ...(type === 'recipient.completed' ? { ip: LONG_IPV6 } : {}),
      data: data ?? {},
    })),
    language,
  };
}

/** Each event's row in the extracted text: from its time to the next event's (the times are distinct). */
function eventRowTexts(text: string, report: RenderAuditTrailInput): Map<number, string> {
  const heading = report.language === 'he' ? 'יומן אירועים' : 'Event log';
  let from = text.indexOf(heading);
  expect(from).toBeGreaterThan(0);
  const rows = new Map<number, string>();
  const times = report.events.map((event) => formatUtc(event.occurredAt));
  report.events.forEach((event, index) => {
    const start = text.indexOf(times[index] as string, from);
    const next = times[index + 1];
    const end = next ? text.indexOf(next, start + 1) : text.length;
    expect(start, `event ${event.sequence}`).toBeGreaterThan(from - 1);
    rows.set(event.sequence, text.slice(start, end));
    from = end;
  });
  return rows;
}

describe('who acted, in the event log', () => {
  for (const language of ['en', 'he'] as const) {
    it(`names the recipient of every recipient event (${language})`, async () => {
      const report = whoActed(language);
      const text = (await pageTexts(await renderAuditTrail(report))).join(' ');
      const rows = eventRowTexts(text, report);
      const hebrewType: Record<string, string> = { Signer: 'חותם', Approver: 'מאשר', Viewer: 'צופה' };
      let named = 0;
      for (const event of report.events) {
        if (!event.recipientId) continue;
        const recipient = report.recipients.find((r) => r.id === event.recipientId) as AuditTrailRecipient;
        const row = rows.get(event.sequence) as string;
        const where = `${language} event ${event.sequence} ${event.type}`;
        expect(row, where).toContain(recipient.fullName);
        // The address the recipient's messages go to: the phone for SMS.
        expect(row, where).toContain(recipient.deliveryChannel === 'Sms' ? LONG_PHONE : recipient.email);
        expect(row, where).toContain(recipient.roleName);
        // English: "Client · Signer"; Hebrew: the role and the type's Hebrew name.
        if (language === 'en') expect(row, where).toContain(`${recipient.roleName} · ${recipient.type}`);
        else expect(row, where).toContain(hebrewType[recipient.type]);
        named += 1;
      }
      expect(named).toBe(14);
      // Two "Recipient completed" rows from one name and address differ by the role.
      expect(rows.get(6)).toContain('Client');
      expect(rows.get(6)).not.toContain('Guarantor');
      expect(rows.get(8)).toContain('Guarantor');
    });
  }

  it('names the sender, Sigil or an operator for the envelope events', async () => {
    const english = whoActed('en');
    const rows = eventRowTexts((await pageTexts(await renderAuditTrail(english))).join(' '), english);
    const actors: Record<number, string> = {
      1: 'Sender (Acme Ltd.)',
      9: 'Sigil (automatic)',
      13: 'Sender (Acme Ltd.)',
      18: 'Sender (Acme Ltd.)',
      19: 'Sender (Acme Ltd.)',
      20: 'Sigil (automatic)',
      21: 'Sigil (automatic)',
      22: 'Sigil operator',
    };
    for (const [sequence, actor] of Object.entries(actors)) {
      expect(rows.get(Number(sequence)), `event ${sequence}`).toContain(actor);
    }
    const hebrew = whoActed('he');
    const hebrewRows = eventRowTexts((await pageTexts(await renderAuditTrail(hebrew))).join(' '), hebrew);
    for (const sequence of [1, 13, 18, 19]) {
      expect(hebrewRows.get(sequence)).toContain('השולח');
      expect(hebrewRows.get(sequence)).toContain('Acme Ltd.');
    }
    for (const sequence of [9, 20, 21]) expect(hebrewRows.get(sequence)).toContain('אוטומטי');
    expect(hebrewRows.get(22)).toContain('מפעיל');
  });

  it('prints an explicit actor, and a recipient id that is not on the envelope as it is', async () => {
    const report = whoActed('en');
    report.events = [
      { sequence: 1, type: 'envelope.sent', occurredAt: minute(0), actor: 'Integration "CRM"', data: {} },
      { sequence: 2, type: 'recipient.opened', occurredAt: minute(1), recipientId: ORPHAN, data: {} },
    ];
    const rows = eventRowTexts((await pageTexts(await renderAuditTrail(report))).join(' '), report);
    expect(rows.get(1)).toContain('Integration "CRM"');
    expect(rows.get(1)).not.toContain('Sender');
    expect(rows.get(2)).toContain('A recipient not on the envelope');
    expect(rows.get(2)).toContain(ORPHAN);
  });

  it('knows the actor of every event the envelope workflow records', async () => {
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
    expect(recorded.length).toBeGreaterThanOrEqual(20);
    // recipient.* events carry their recipient's id; every other one needs a rule.
    for (const type of recorded.filter((t) => !t.startsWith('recipient.'))) {
      expect(eventActor(type, {}), type).toBeDefined();
    }
    expect(eventActor('envelope.reminded', {})).toBe('sender');
    expect(eventActor('envelope.reminded', { automatic: true })).toBe('system');
    expect(eventActor('envelope.some_future_event', {})).toBeUndefined();
  });
});

const ORPHAN = '66666666-6666-4666-8666-666666666666';

describe('values read as one string', () => {
  for (const language of ['en', 'he'] as const) {
    it(`draws addresses, phone numbers, ids, digests and IP addresses whole, each as one run (${language})`, async () => {
      const report = whoActed(language);
      report.uploads = [
        {
          fieldLabel: 'Passport scan',
          filename: 'passport.pdf',
          contentType: 'application/pdf',
          sizeBytes: 48213,
          sha256: '5e7a'.repeat(16),
        },
      ];
      const items = (await pageItems(await renderAuditTrail(report))).flat();
      const runs = (value: string) => items.filter((item) => item.includes(value)).length;
      for (const value of [
        LONG_EMAIL,
        LONG_PHONE,
        LONG_IPV6,
        ENVELOPE_ID,
        ORIGINAL_SHA,
        FINAL_SHA,
        '5e7a'.repeat(16),
        RECIPIENT_NOA,
        RECIPIENT_YOSSI,
        RECIPIENT_LEGAL,
        'recipient.authentication_requested',
      ]) {
        expect(runs(value), `${language} ${value}`).toBeGreaterThan(0);
      }
      // The long address: once in the recipients table and in each of its recipient's three events.
      expect(runs(LONG_EMAIL)).toBe(4);
      if (language === 'en') expect(runs('AuthenticationPending')).toBe(1);
    });
  }

  it('breaks an address too long for its cell even at the smallest size only before "@" or "."', async () => {
    const address = `${'a-very-long-local-part.'.repeat(4)}x@${'department.'.repeat(8)}example.co.il`;
    const report = whoActed('en');
    (report.recipients[2] as AuditTrailRecipient).email = address;
    const items = (await pageItems(await renderAuditTrail(report))).flat();
    // The first piece is in the recipients table: the pieces that follow it spell the address.
    const first = items.findIndex((item) => item !== '' && address.startsWith(item) && item.length > 20);
    const pieces: string[] = [];
    let rest = address;
    for (let index = first; rest !== '' && index < items.length; index += 1) {
      const item = items[index] as string;
      if (item === '') continue;
      expect(rest.startsWith(item), `piece ${item}`).toBe(true);
      pieces.push(item);
      rest = rest.slice(item.length);
    }
    expect(pieces.join('')).toBe(address);
    expect(pieces.length).toBeGreaterThan(1);
    for (const piece of pieces.slice(1)) expect(piece[0], piece).toMatch(/[@.]/);
  });
});

describe('a sender’s correction of a recipient in the event log', () => {
  /** Avi's address corrected after he opened his link; the events before name him as he was. */
  function corrected(language: DocumentLanguage): RenderAuditTrailInput {
    const base = input(0);
    const avi = base.recipients[1] as AuditTrailRecipient;
    return {
      ...base,
      language,
      recipients: [{ ...avi, email: 'avi@client.example' }],
      events: [
        {
          sequence: 1,
          type: 'recipient.opened',
          occurredAt: minute(1),
          recipientId: RECIPIENT_AVI,
          data: {},
        },
        {
          sequence: 2,
          type: 'recipient.corrected',
          occurredAt: minute(2),
          recipientId: RECIPIENT_AVI,
          data: { changes: { email: { old: 'avi@typo.example', new: 'avi@client.example' } } },
        },
        {
          sequence: 3,
          type: 'recipient.completed',
          occurredAt: minute(3),
          recipientId: RECIPIENT_AVI,
          data: {},
        },
      ],
    };
  }

  it('says old → new in English and in Hebrew, and names the recipient as they were before it', async () => {
    const english = (await pageTexts(await renderAuditTrail(corrected('en')))).join('\n');
    expect(english).toContain('Recipient corrected by the sender');
    expect(english).toContain('Corrected email from avi@typo.example to avi@client.example');
    expect(english).not.toContain('changes:');
    // The open and the correction were Avi at the old address; the completion at the new one.
    expect(english.indexOf('avi@typo.example')).toBeLessThan(english.indexOf('Recipient completed'));
    expect(english.slice(english.indexOf('Recipient completed'))).toContain('avi@client.example');
    const hebrew = (await pageTexts(await renderAuditTrail(corrected('he')))).join('\n');
    expect(hebrew).toContain('השולח תיקן את פרטי הנמען');
    expect(hebrew).toContain('avi@typo.example');
    expect(hebrew).toContain('avi@client.example');
    expect(hebrew).toContain('דוא״ל');
  });
});

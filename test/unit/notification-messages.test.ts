// The notification catalogs and renderers: both languages carry the same keys with the same placeholders,
// every message renders in English and in Hebrew (Hebrew HTML right-to-left), interpolated values are
// escaped in HTML, links must be http(s), and the organization's branding (display name, footer) is used.
import { describe, expect, it } from 'vitest';
import {
  NOTIFICATION_LANGUAGES,
  NOTIFICATION_MESSAGES,
  notificationLanguage,
  placeholdersOf,
} from '../../notifications/catalog.ts';
import { redactedMessage } from '../../notifications/errors.ts';
import { type Message, renderEmail, renderShortText, signerAction } from '../../notifications/messages.ts';

const LINK = 'https://sign.example.com/sign/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde';
const HEBREW = /[\u0590-\u05FF]/;
const base = {
  branding: { organizationName: 'Acme Ltd.', senderDisplayName: 'Acme Signing', emailFooter: null },
  recipientName: 'Dana Levi',
  envelopeTitle: 'Services agreement',
};

function every(language: 'en' | 'he'): Message[] {
  const expiresAt = new Date(Date.UTC(2026, 11, 20, 15, 30));
  return [
    ...(['sign', 'fill', 'approve', 'view'] as const).flatMap((action) => [
      { ...base, language, kind: 'invitation' as const, action, link: LINK, expiresAt },
      { ...base, language, kind: 'reminder' as const, action, link: LINK, expiresAt: null },
    ]),
    { ...base, language, kind: 'otp', code: '048213', minutes: 10 },
    { ...base, language, kind: 'completed', link: LINK },
    {
      ...base,
      language,
      kind: 'declined',
      declinedBy: 'Sam Cohen',
      reason: 'Wrong amount',
      envelopeId: 'e-1',
    },
    { ...base, language, kind: 'cancelled', reason: 'Replaced by a new version', envelopeId: 'e-1' },
  ];
}

describe('notification catalogs', () => {
  it('have the same keys in every language', () => {
    const english = Object.keys(NOTIFICATION_MESSAGES.en).sort();
    expect(english.length).toBeGreaterThan(30);
    for (const language of NOTIFICATION_LANGUAGES) {
      expect(Object.keys(NOTIFICATION_MESSAGES[language]).sort(), language).toEqual(english);
    }
  });

  it('have the same placeholders for every key, and no empty message', () => {
    for (const [key, english] of Object.entries(NOTIFICATION_MESSAGES.en)) {
      for (const language of NOTIFICATION_LANGUAGES) {
        const message = NOTIFICATION_MESSAGES[language][key as keyof typeof NOTIFICATION_MESSAGES.en];
        expect(message.trim(), `${language} ${key}`).not.toBe('');
        expect(placeholdersOf(message), `${language} ${key}`).toEqual(placeholdersOf(english));
      }
    }
  });

  it('writes Hebrew in the Hebrew catalog', () => {
    for (const [key, message] of Object.entries(NOTIFICATION_MESSAGES.he)) {
      expect(message, key).toMatch(HEBREW);
    }
  });

  it('falls back to English for any other language', () => {
    expect(notificationLanguage('he')).toBe('he');
    expect(notificationLanguage('fr')).toBe('en');
    expect(notificationLanguage(null)).toBe('en');
  });
});

describe('rendered messages', () => {
  it.each(NOTIFICATION_LANGUAGES)('renders every message in %s with nothing left unfilled', (language) => {
    for (const message of every(language)) {
      const email = renderEmail(message);
      const short = renderShortText(message);
      for (const text of [email.subject, email.text, email.html, short]) {
        expect(text, `${message.kind}`).not.toMatch(/\{\w+\}/);
        if (language === 'he') expect(text, message.kind).toMatch(HEBREW);
        else expect(text, message.kind).not.toMatch(HEBREW);
      }
      expect(email.subject).not.toMatch(/\n/);
      expect(email.language).toBe(language);
      if ('link' in message) {
        expect(short).toContain(LINK);
        expect(email.text).toContain(LINK);
        expect(email.html).toContain(`href="${LINK}"`);
      }
    }
  });

  it('lays out Hebrew HTML right to left and English left to right', () => {
    const [hebrew] = every('he');
    const [english] = every('en');
    if (!hebrew || !english) throw new Error('no messages');
    const he = renderEmail(hebrew).html;
    expect(he).toContain('<html lang="he" dir="rtl">');
    expect(he).toMatch(/<div dir="rtl" style="[^"]*text-align:right;/);
    // The link itself stays left to right inside the Hebrew text.
    expect(he).toContain(`<a href="${LINK}" dir="ltr"`);
    const en = renderEmail(english).html;
    expect(en).toContain('<html lang="en" dir="ltr">');
    expect(en).not.toContain('rtl');
  });

  it('names the sender by its display name, falling back to the organization name', () => {
    const invitation = every('en')[0] as Message;
    expect(renderEmail(invitation).subject).toBe('Acme Signing sent you "Services agreement" to sign');
    const plain = { ...invitation, branding: { organizationName: 'Acme Ltd.' } };
    expect(renderEmail(plain).subject).toBe('Acme Ltd. sent you "Services agreement" to sign');
    expect(renderShortText(plain)).toBe(`Acme Ltd. sent you "Services agreement" to sign: ${LINK}`);
  });

  it('closes with the organization footer (line breaks kept) or a default line', () => {
    const invitation = every('en')[0] as Message;
    const footer = 'Acme Ltd. · 1 Harbour St, Haifa\nQuestions? contracts@acme.example';
    const email = renderEmail({ ...invitation, branding: { ...base.branding, emailFooter: footer } });
    expect(email.text.endsWith(`--\n${footer}`)).toBe(true);
    expect(email.html).toContain('Acme Ltd. · 1 Harbour St, Haifa<br>Questions? contracts@acme.example');
    expect(renderEmail(invitation).text).toContain('Sent by Acme Signing with Sigil.');
    expect(renderEmail({ ...invitation, language: 'he' }).text).toContain(
      'נשלח על ידי Acme Signing באמצעות Sigil.',
    );
  });

  it('escapes every interpolated value in HTML and keeps the text as written', () => {
    const hostile = '<script>alert("x")</script> & \'quotes\'';
    const message: Message = {
      branding: { organizationName: 'A&B <Ltd>', senderDisplayName: null, emailFooter: `<b>${hostile}</b>` },
      recipientName: hostile,
      envelopeTitle: hostile,
      language: 'en',
      kind: 'declined',
      declinedBy: hostile,
      reason: hostile,
      envelopeId: 'e-1',
    };
    const email = renderEmail(message);
    expect(email.html).not.toContain('<script>');
    expect(email.html).not.toContain('<b>');
    expect(email.html).not.toContain('<Ltd>');
    expect(email.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;');
    expect(email.text).toContain(`Reason given: ${hostile}`);
    // The organization's name, in the default footer.
    const withoutFooter = renderEmail({ ...message, branding: { organizationName: 'A&B <Ltd>' } });
    expect(withoutFooter.html).toContain('Sent by A&amp;B &lt;Ltd&gt; with Sigil.');
  });

  it('refuses links that are not http(s) URLs', () => {
    const invitation = every('en')[0] as Extract<Message, { kind: 'invitation' | 'reminder' }>;
    for (const link of ['javascript:alert(1)', '/sign/abc', 'data:text/html,x']) {
      expect(() => renderEmail({ ...invitation, link })).toThrow(/http/);
      expect(() => renderShortText({ ...invitation, link })).toThrow(/http/);
    }
  });

  it('keeps titles in subjects and SMS on one line, and SMS short', () => {
    const invitation = every('en')[0] as Message;
    const long = { ...invitation, envelopeTitle: `Services\r\nagreement ${'x'.repeat(200)}` };
    expect(renderEmail(long).subject).toMatch(/^Acme Signing sent you "Services agreement x+" to sign$/);
    const sms = renderShortText(long);
    expect(sms).not.toMatch(/[\r\n]/);
    expect(sms.length).toBeLessThan(60 + 40 + LINK.length + 10);
  });

  it('writes the one-time code message as the signer API always did', () => {
    const [en, he] = (['en', 'he'] as const).map((language) =>
      renderShortText({ ...base, language, kind: 'otp', code: '048213', minutes: 10 }),
    );
    expect(en).toBe(
      'Acme Signing: your signing verification code is 048213. It is valid for 10 minutes. Do not share it with anyone.',
    );
    expect(he).toContain('048213');
    expect(he).toMatch(HEBREW);
  });

  it('maps recipient types to what they are asked to do', () => {
    expect(['Signer', 'FormFiller', 'Approver', 'Viewer', 'Cc'].map(signerAction)).toEqual([
      'sign',
      'fill',
      'approve',
      'view',
      null,
    ]);
  });
});

describe('the completed email and its final PDF', () => {
  const completed = (finalPdf: { attached: true } | { attached: false; size: string }): Message => ({
    ...base,
    language: 'he',
    kind: 'completed',
    link: LINK,
    finalPdf,
  });
  const stored = { subject: 'הושלם: {title}', body: 'שלום {name}\n\n{link}', sms: null };

  it('says the PDF is attached, or too large to attach, with built-in and with stored texts', () => {
    for (const template of [null, stored]) {
      const attached = renderEmail(completed({ attached: true }), template);
      expect(attached.text).toContain('המסמך החתום מצורף להודעה זו.');
      expect(attached.html).toContain('המסמך החתום מצורף להודעה זו.');
      const tooLarge = renderEmail(completed({ attached: false, size: '12.4 MB' }), template);
      expect(tooLarge.text).toContain('(12.4 MB) גדול מכדי לצרף אותו');
      expect(tooLarge.html).toContain('(12.4 MB) גדול מכדי לצרף אותו');
      expect(tooLarge.text).not.toContain('מצורף להודעה זו');
    }
    const stored0 = renderEmail({ ...base, language: 'he', kind: 'completed', link: LINK }, stored);
    expect(stored0.text).not.toContain('מצורף');
    expect(stored0.text.split('\n\n')[0]).toBe('שלום Dana Levi');
  });
});

describe('redacted errors', () => {
  it('hides secrets, Basic credentials and URL passwords, on one bounded line', () => {
    const token = 'f3a1c9e0b2d44e6f8a7b5c3d1e9f0a2b';
    const error = new Error(
      `request failed: Authorization: Basic ${Buffer.from(`AC1:${token}`).toString('base64')}\n` +
        `token ${token} url smtp://user:s3cr%40t@mail.example:587 ${'x'.repeat(1000)}`,
    );
    const text = redactedMessage(error, [token, 's3cr@t']);
    expect(text).not.toContain(token);
    expect(text).not.toContain('s3cr');
    expect(text).not.toContain(Buffer.from(`AC1:${token}`).toString('base64'));
    expect(text).toContain('Basic [redacted]');
    expect(text).toContain('smtp://[redacted]@mail.example:587');
    expect(text).not.toMatch(/\n/);
    expect(text.length).toBeLessThanOrEqual(500);
  });
});

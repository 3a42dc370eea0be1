// The deadline notices to recipients (notifications/messages.ts): `expiring_soon` says how many days are left
// (or "tomorrow"), the deadline and carries the recipient's link; `expired` carries no link; both in English
// and Hebrew, by email and as the short text of SMS and WhatsApp, and as the backoffice's default templates.
import { describe, expect, it } from 'vitest';
import { type Message, renderEmail, renderShortText } from '../../notifications/messages.ts';
import { defaultTexts, previewTemplate } from '../../notifications/templates.ts';

const LINK = 'https://sigil.example/sign/abc';
const base = {
  branding: { organizationName: 'Acme Ltd' },
  recipientName: 'Dana Levi',
  envelopeTitle: 'Lease',
};
const warning = (daysLeft: number, language = 'en'): Message => ({
  ...base,
  language,
  kind: 'expiring_soon',
  action: 'sign',
  link: LINK,
  expiresAt: new Date(Date.UTC(2027, 0, 15, 15, 30)),
  daysLeft,
});

describe('deadline notices', () => {
  it('expiring_soon: the days left, the deadline and the link, in English and Hebrew', () => {
    const email = renderEmail(warning(3));
    expect(email.subject).toBe('"Lease" expires in 3 days');
    expect(email.text).toContain('expires in 3 days, on 15 January 2027 at 15:30 (UTC)');
    expect(email.html).toContain(`href="${LINK}"`);
    expect(renderShortText(warning(1))).toBe(`"Lease" from Acme Ltd expires tomorrow: ${LINK}`);
    const hebrew = renderEmail(warning(3, 'he'));
    expect(hebrew.subject).toBe('תוקף "Lease" יפוג בעוד 3 ימים');
    expect(hebrew.html).toContain('dir="rtl"');
    expect(renderShortText(warning(3, 'he'))).toContain(LINK);
  });

  it('expired: no link, the envelope id; the short text too', () => {
    const message: Message = { ...base, kind: 'expired', envelopeId: 'e-1' };
    const email = renderEmail(message);
    expect(email.subject).toBe('"Lease" has expired');
    expect(email.text).toContain('Envelope ID: e-1');
    expect(email.html).not.toContain('href="https://sigil.example/sign');
    expect(renderShortText({ ...message, language: 'he' })).toBe(
      'תוקף "Lease" של Acme Ltd פג: הקישור שלו אינו פעיל עוד.',
    );
  });

  it('have backoffice default templates that preview in both languages', () => {
    for (const kind of ['expiring_soon', 'expired'] as const) {
      for (const language of ['en', 'he'] as const) {
        const texts = defaultTexts(kind, language);
        const preview = previewTemplate(kind, language, texts);
        expect(preview.subject, `${kind} ${language}`).toMatch(/\S/);
        expect(preview.sms, `${kind} ${language}`).toMatch(/\S/);
      }
    }
    expect(previewTemplate('expiring_soon', 'en', defaultTexts('expiring_soon', 'en')).sms).toContain(
      'expires in 3 days',
    );
  });
});

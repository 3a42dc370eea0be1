// The account emails' renderer (notifications/messages.ts, renderAccountEmail): every kind in English and in
// Hebrew (right to left), the same layout as the envelope emails, the organization's branding, the link as
// the button and as text, interpolated values escaped, and only http(s) links.
import { describe, expect, it } from 'vitest';
import { ACCOUNT_EMAIL_KINDS, renderAccountEmail } from '../../notifications/messages.ts';

const LINK = 'https://sign.example.com/app/verify-email?token=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde';
const HEBREW = /[\u0590-\u05FF]/;
const base = {
  branding: { organizationName: 'Acme & Sons', senderDisplayName: null, emailFooter: null },
  recipientName: 'Dana <b>Levi</b>',
  email: 'dana@example.com',
  link: LINK,
};

describe('account emails', () => {
  it('render every kind in English and Hebrew with the link, escaped, in the right direction', () => {
    for (const kind of ACCOUNT_EMAIL_KINDS) {
      const english = renderAccountEmail({ ...base, kind, language: 'en', invitedBy: 'Sam Cohen' });
      const hebrew = renderAccountEmail({ ...base, kind, language: 'he', invitedBy: 'Sam Cohen' });
      for (const email of [english, hebrew]) {
        expect(email.subject.length, kind).toBeGreaterThan(10);
        expect(email.subject).not.toMatch(/\{\w+\}/);
        expect(email.text).not.toMatch(/\{\w+\}/);
        expect(email.text).toContain(LINK);
        expect(email.html).toContain(`href="${LINK.replace(/&/g, '&amp;')}"`);
        expect(email.html).toContain('Dana &lt;b&gt;Levi&lt;/b&gt;');
        expect(email.html).not.toContain('<b>Levi</b>');
      }
      expect(english.language).toBe('en');
      expect(english.html).toContain('<html lang="en" dir="ltr">');
      expect(english.text).toMatch(/^Hello Dana <b>Levi<\/b>,/);
      expect(english.text).toContain('Sent by Acme & Sons with Sigil.');
      expect(hebrew.language).toBe('he');
      expect(hebrew.html).toContain('<html lang="he" dir="rtl">');
      expect(hebrew.html).toMatch(/<div dir="rtl"[^>]*text-align:right/);
      expect(hebrew.subject).toMatch(HEBREW);
      expect(hebrew.text).toMatch(HEBREW);
    }
  });

  it('name the inviter in an invitation, and only there', () => {
    const invite = renderAccountEmail({ ...base, kind: 'invite', language: 'en', invitedBy: 'Sam Cohen' });
    expect(invite.text).toContain('Invited by Sam Cohen.');
    expect(invite.subject).toBe('You are invited to join Acme & Sons on Sigil');
    const anonymous = renderAccountEmail({ ...base, kind: 'invite', language: 'en' });
    expect(anonymous.text).not.toContain('Invited by');
    const reset = renderAccountEmail({
      ...base,
      kind: 'reset_password',
      language: 'en',
      invitedBy: 'Sam Cohen',
    });
    expect(reset.text).not.toContain('Sam Cohen');
    expect(reset.text).toContain('dana@example.com');
  });

  it("use the organization's sender display name and footer", () => {
    const email = renderAccountEmail({
      ...base,
      kind: 'verify_email',
      language: 'en',
      branding: {
        organizationName: 'Acme',
        senderDisplayName: 'Acme Signing',
        emailFooter: 'Acme Ltd.\nHaifa',
      },
    });
    expect(email.subject).toBe('Confirm your email address for Acme Signing on Sigil');
    expect(email.text.endsWith('--\nAcme Ltd.\nHaifa')).toBe(true);
    expect(email.html).toContain('Acme Ltd.<br>Haifa');
  });

  it('refuse a link that is not http(s)', () => {
    for (const link of ['javascript:alert(1)', '/app/verify-email?token=x', 'mailto:a@b.c']) {
      expect(() => renderAccountEmail({ ...base, kind: 'verify_email', link })).toThrow(/http/);
    }
  });
});

// Notification templates without a server (domain/notification-templates.ts, notifications/templates.ts): the
// built-in texts obey the rules a stored text must, each kind's texts render with every variable filled, and
// the rules refuse what they should.
import { describe, expect, it } from 'vitest';
import {
  TEMPLATE_KINDS,
  TEMPLATE_LANGUAGES,
  TEMPLATE_RULES,
  templateProblems,
  templateVariables,
} from '../../domain/notification-templates.ts';
import { defaultTexts, previewTemplate } from '../../notifications/templates.ts';

describe('notification templates', () => {
  for (const kind of TEMPLATE_KINDS) {
    for (const language of TEMPLATE_LANGUAGES) {
      it(`${kind} in ${language}: the built-in texts pass the rules and render with no variable left`, () => {
        const texts = defaultTexts(kind, language);
        expect(templateProblems(kind, texts)).toEqual([]);
        const preview = previewTemplate(kind, language, texts);
        for (const rendered of [preview.subject, preview.text, preview.html, preview.sms]) {
          if (rendered !== null) expect(templateVariables(rendered)).toEqual([]);
        }
        expect(preview.subject !== null).toBe(TEMPLATE_RULES[kind].email);
        expect(preview.sms !== null).toBe(TEMPLATE_RULES[kind].short);
        if (language === 'he' && preview.html) expect(preview.html).toContain('dir="rtl"');
      });
    }
  }

  it('refuses unknown variables, a missing link or code, and texts a kind does not have', () => {
    expect(templateProblems('invitation', { subject: 'Hi {x}', body: 'No link', sms: '{link} {y}' })).toEqual(
      [
        {
          field: 'subject',
          message:
            'unknown variable {x}: invitation messages can use {name}, {organization}, {title}, {link}, {deadline}',
        },
        { field: 'body', message: 'must contain {link}: the link the recipient opens' },
        {
          field: 'sms',
          message:
            'unknown variable {y}: invitation messages can use {name}, {organization}, {title}, {link}, {deadline}',
        },
      ],
    );
    expect(templateProblems('otp', { sms: 'Code', body: 'x' })).toEqual([
      { field: 'body', message: 'otp messages have no email body: leave it out' },
      { field: 'sms', message: 'must contain {code}: the one-time code' },
    ]);
    expect(templateProblems('declined', { subject: ' ', body: 'Declined', sms: null })).toEqual([
      { field: 'subject', message: 'subject is required for declined messages' },
      { field: 'sms', message: 'sms is required for declined messages' },
    ]);
  });

  it('fills values as text: HTML in a value or a text is escaped, a link in a paragraph is a link', () => {
    const preview = previewTemplate('completed', 'en', {
      subject: '<i>{title}</i>',
      body: 'Get it: {link} <script>\n\nSecond line',
      sms: '{link}',
    });
    expect(preview.subject).toBe('<i>Services agreement 2027</i>');
    expect(preview.html).toContain('<title>&lt;i&gt;Services agreement 2027&lt;/i&gt;</title>');
    expect(preview.html).toContain(
      'Get it: <a href="https://sigil.example/sign/sample-link-for-the-preview"',
    );
    expect(preview.html).toContain('&lt;script&gt;');
    expect(preview.html).not.toContain('<script>');
    expect(preview.text).toBe(
      'Get it: https://sigil.example/sign/sample-link-for-the-preview <script>\n\nSecond line\n\n--\nSent by Example Ltd. with Sigil.',
    );
  });
});

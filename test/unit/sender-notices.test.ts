// The emails of sender notifications (notifications/sender-notices.ts): each kind in English and Hebrew with the
// document page's link (and the signed PDF's for a completed one), a platform administrator's stored texts over
// the built-in ones, and the daily digest's lines, each on a line of its own in the HTML too.
import { describe, expect, it } from 'vitest';
import { renderSenderDigest, renderSenderNotice } from '../../notifications/sender-notices.ts';
import { previewTemplate } from '../../notifications/templates.ts';

const to = (language: 'en' | 'he') => ({
  fullName: 'Dana Levi',
  language,
  branding: { organizationName: 'Example Ltd.' },
  baseUrl: 'https://sigil.example/',
});
const ID = '00000000-0000-4000-8000-000000000001';

describe('sender notices', () => {
  it('says each kind in the user’s language with the document page', () => {
    const completed = renderSenderNotice({ kind: 'completed', envelopeId: ID, title: 'NDA' }, to('en'));
    expect(completed.subject).toBe('Completed: NDA');
    expect(completed.text).toContain(`https://sigil.example/app/documents/${ID}`);
    expect(completed.text).toContain(`https://sigil.example/api/documents/${ID}/files/final-pdf`);
    const failed = renderSenderNotice(
      {
        kind: 'delivery_failed',
        envelopeId: ID,
        title: 'NDA',
        recipientName: 'Sam',
        channel: 'Sms',
        reason: '21211',
      },
      to('he'),
    );
    expect(failed.subject).toBe('לא נמסר: NDA');
    expect(failed.text).toContain('Sam (SMS)');
    expect(failed.html).toContain('dir="rtl"');
  });

  it('uses the stored texts of the kind when a platform administrator saved some', () => {
    const email = renderSenderNotice(
      { kind: 'declined', envelopeId: ID, title: 'NDA', reason: 'No' },
      to('en'),
      {
        subject: 'Declined by {recipient}',
        body: 'Hi {name}: {reason}\n\n{link}',
      },
    );
    expect(email.subject).toBe('Declined by');
    expect(email.text.startsWith('Hi Dana Levi: No')).toBe(true);
  });

  it('lists a digest’s notifications one a line, in the text and the HTML', () => {
    const email = renderSenderDigest(
      [
        { kind: 'completed', envelopeId: ID, title: 'NDA' },
        { kind: 'declined', envelopeId: ID, title: 'Quote', recipientName: 'Sam', reason: 'Too high' },
      ],
      to('en'),
    );
    expect(email.subject).toBe('Your documents today: 2 updates');
    expect(email.text).toContain(
      `• Completed: NDA — https://sigil.example/app/documents/${ID}\n• Declined: Quote (Sam: Too high)`,
    );
    expect(email.html).toMatch(/• Completed: NDA — [^<]*<br>• Declined: Quote/);
  });

  it('previews every sender kind in both languages, as the backoffice shows it', () => {
    for (const kind of ['sender_completed', 'sender_expiring_soon', 'sender_digest'] as const) {
      for (const language of ['en', 'he'] as const) {
        const preview = previewTemplate(kind, language, {
          subject: '{title} {name}',
          body: '{name}\n\n{link}\n\n{summary}',
        });
        expect(preview.html).toContain('https://sigil.example/app/');
        expect(preview.sms).toBeNull();
      }
    }
  });
});

// The development notifications panel names every kind of message the capture keeps (CAPTURED_NOTIFICATION_KINDS:
// an envelope's, the account emails, the backoffice's sign-in code, a provider's test) in English and Hebrew —
// never a raw key such as `devNotifications.kind.platform_admin_code` — and labels the link a message carries by
// what it opens: a signing link, an email verification, a password reset, an invitation, the sign-in page.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CAPTURED_NOTIFICATION_KINDS } from '../../domain/vocabulary.ts';
import { kindKey, linkKey } from '../../web/src/lib/dev/dev-notifications.ts';

async function catalog(language: 'en' | 'he'): Promise<Record<string, string>> {
  const file = new URL(`../../web/src/lib/i18n/${language}.json`, import.meta.url);
  return JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
}

describe('the development panel’s words for each captured kind', () => {
  it('has a label of its own for every kind, in English and Hebrew', async () => {
    for (const language of ['en', 'he'] as const) {
      const words = await catalog(language);
      for (const kind of CAPTURED_NOTIFICATION_KINDS) {
        expect(kindKey(kind), kind).toBe(`devNotifications.kind.${kind}`);
        expect(words[kindKey(kind)], `${language}: ${kind}`).toMatch(/\S/);
        expect(words[linkKey(kind)], `${language}: the link of ${kind}`).toMatch(/\S/);
      }
      const labels = CAPTURED_NOTIFICATION_KINDS.map((kind) => words[kindKey(kind)]);
      expect(new Set(labels).size, language).toBe(labels.length);
    }
  });

  it('names a link by what it opens', async () => {
    const en = await catalog('en');
    const link = (kind: (typeof CAPTURED_NOTIFICATION_KINDS)[number]) => en[linkKey(kind)];
    expect(link('invitation')).toBe('Open the signing link');
    expect(link('reminder')).toBe('Open the signing link');
    expect(link('verify_email')).toBe('Open the email verification link');
    expect(link('reset_password')).toBe('Open the password reset link');
    expect(link('invite')).toBe('Open the invitation to join');
    expect(link('registration_attempt')).toBe('Open the sign-in page');
    expect(link('completed')).toBe('Open the signed documents');
  });
});

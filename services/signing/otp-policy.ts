// One-time codes for `OtpSms` / `OtpWhatsApp` recipients: every limit in one place, the code's hash, the
// masked phone and the message text.
//
// How a code is kept: only HMAC-SHA256(key = the code row's random id, message = the code). Six digits are a
// million values, so anyone holding a row could find its code by trying them all in well under a second;
// the hash is not what protects the code. What does: a code lives 10 minutes, allows 5 guesses, dies when
// a newer one is sent, and is useless without the signing link (a 256-bit secret) of the same recipient.
// Hashing still keeps codes out of plain sight in queries, dumps and backups, and keying by the row id
// means no single precomputed table of a million hashes fits every row.
import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { TemplateTexts } from '../../domain/notification-templates.ts';
import { type AuthenticationMethod, OTP_DIGITS } from '../../domain/vocabulary.ts';
import { renderShortText } from '../../notifications/messages.ts';

export const OTP_POLICY = {
  /** The specification's code length. */
  digits: OTP_DIGITS,
  /** A code can be verified for this long after it was sent. */
  codeLifetimeMs: 10 * 60 * 1000,
  /** Wrong guesses allowed per code; the last one kills the code and a new one must be requested. */
  maxAttempts: 5,
  /** A new code can be requested this long after the previous one. */
  resendIntervalMs: 30 * 1000,
  /** At most this many codes per recipient within `sendWindowMs`. */
  maxCodesPerWindow: 5,
  sendWindowMs: 60 * 60 * 1000,
  /** A verified code opens a signer session (header X-Signing-Session) for this long. */
  sessionLifetimeMs: 2 * 60 * 60 * 1000,
} as const;

/** A recipient who must verify a code, and the channel it goes out on; null for everyone else. */
export function otpChannel(method: AuthenticationMethod): 'Sms' | 'WhatsApp' | null {
  if (method === 'OtpSms') return 'Sms';
  if (method === 'OtpWhatsApp') return 'WhatsApp';
  return null;
}

/** A uniformly random code of `OTP_POLICY.digits` digits, leading zeros kept. */
export function generateCode(): string {
  return String(randomInt(0, 10 ** OTP_POLICY.digits)).padStart(OTP_POLICY.digits, '0');
}

export function hashCode(codeId: string, code: string): string {
  return createHmac('sha256', codeId).update(code).digest('hex');
}

export function codeMatches(codeId: string, code: string, storedHash: string): boolean {
  const actual = Buffer.from(hashCode(codeId, code), 'hex');
  const expected = Buffer.from(storedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** `+972501234567` → `+97250•••••67`: enough for the signer to recognise their number. */
export function maskPhone(phone: string): string {
  const tail = 2;
  const head = Math.max(2, Math.min(6, phone.length - 6));
  if (phone.length <= head + tail) return '•'.repeat(phone.length);
  return `${phone.slice(0, head)}${'•'.repeat(phone.length - head - tail)}${phone.slice(-tail)}`;
}

/**
 * The text message with the code, in the recipient's language (English when it has no translation), from
 * the notification catalog (notifications/catalog.ts). `senderName`: the organization's sender display name.
 */
export function codeMessage(
  language: string,
  senderName: string,
  code: string,
  template?: TemplateTexts | null,
): string {
  return renderShortText(
    {
      kind: 'otp',
      code,
      minutes: OTP_POLICY.codeLifetimeMs / 60_000,
      language,
      branding: { organizationName: senderName },
      recipientName: '',
      envelopeTitle: '',
    },
    template,
  );
}

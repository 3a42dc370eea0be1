// Notification templates (docs/backoffice.md, "Notification templates"): the built-in texts of every kind as a
// platform administrator starts editing them, the stored texts a message is rendered with, and a preview with
// sample values. The rules of what a kind may say are in domain/notification-templates.ts.
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotificationTemplate } from '../db/entities/index.ts';
import {
  SENDER_NOTICE_TEMPLATE_KINDS,
  type SenderNoticeTemplateKind,
  TEMPLATE_RULES,
  type TemplateKind,
  type TemplateLanguage,
  type TemplateTexts,
} from '../domain/notification-templates.ts';
import { NOTIFICATION_MESSAGES, type NotificationMessageKey } from './catalog.ts';
import {
  type Message,
  renderAccountEmail,
  renderEmail,
  renderPlatformAdminCode,
  renderShortText,
} from './messages.ts';
import {
  renderSenderDigest,
  renderSenderNotice,
  type SenderNotice,
  senderNoticeDefaultTexts,
} from './sender-notices.ts';

export interface StoredTexts {
  subject: string | null;
  body: string | null;
  sms: string | null;
}

/**
 * The built-in texts of a kind written as a template: what the editor starts from and a reset goes back to.
 * The built-in invitation and reminder vary with the recipient's type; these are the signer's. (Until a
 * template is stored, messages keep the built-in renderer, with its per-type wording and optional lines.)
 */
export function defaultTexts(kind: TemplateKind, language: TemplateLanguage): StoredTexts {
  const m = NOTIFICATION_MESSAGES[language];
  const t = (key: NotificationMessageKey) => m[key];
  const paragraphs = (...lines: string[]) => lines.join('\n\n');
  switch (kind) {
    case 'invitation':
    case 'reminder':
      return {
        subject: t(`${kind}.subject.sign`),
        body: paragraphs(t('email.greeting'), t(`${kind}.intro.sign`), '{link}', t('email.personalLink')),
        sms: t(`${kind}.short.sign`),
      };
    case 'otp':
      return { subject: null, body: null, sms: t('otp.short') };
    case 'completed':
      return {
        subject: t('completed.subject'),
        body: paragraphs(t('email.greeting'), t('completed.intro'), '{link}', t('email.personalLink')),
        sms: t('completed.short'),
      };
    case 'declined':
      return {
        subject: t('declined.subject'),
        body: paragraphs(t('email.greeting'), t('declined.intro'), t('declined.reason'), idLine(t)),
        sms: t('declined.short'),
      };
    case 'cancelled':
      return {
        subject: t('cancelled.subject'),
        body: paragraphs(t('email.greeting'), t('cancelled.intro'), t('cancelled.reason'), idLine(t)),
        sms: t('cancelled.short'),
      };
    case 'expiring_soon':
      return {
        subject: t('expiringSoon.subject'),
        body: paragraphs(t('email.greeting'), t('expiringSoon.intro'), '{link}', t('email.personalLink')),
        sms: t('expiringSoon.short'),
      };
    case 'expired':
      return {
        subject: t('expired.subject'),
        body: paragraphs(t('email.greeting'), t('expired.intro'), idLine(t)),
        sms: t('expired.short'),
      };
    case 'verify_email':
    case 'reset_password':
    case 'registration_attempt':
    case 'password_changed':
    case 'email_change':
    case 'email_change_requested':
    case 'email_changed':
    case 'mfa_reset':
    case 'account_unlocked': {
      const key = ACCOUNT_KEYS[kind];
      return {
        subject: t(`account.${key}.subject`),
        body: paragraphs(t('email.greeting'), t(`account.${key}.intro`), '{link}', t(`account.${key}.note`)),
        sms: null,
      };
    }
    case 'invitation_attempt':
      return {
        subject: t('account.invitationAttempt.subject'),
        body: paragraphs(
          t('email.greeting'),
          t('account.invitationAttempt.intro'),
          '{link}',
          t('account.invitationAttempt.note'),
        ),
        sms: null,
      };
    case 'invite':
      return {
        subject: t('account.invite.subject'),
        body: paragraphs(
          t('email.greeting'),
          t('account.invite.intro'),
          t('account.invite.invitedBy'),
          '{link}',
          t('account.invite.note'),
        ),
        sms: null,
      };
    case 'platform_admin_code':
      return {
        subject: t('backoffice.code.subject'),
        body: paragraphs(t('email.greeting'), t('backoffice.code.intro'), t('backoffice.code.note')),
        sms: null,
      };
    case 'sender_completed':
    case 'sender_declined':
    case 'sender_cancelled':
    case 'sender_expired':
    case 'sender_expiring_soon':
    case 'sender_delivery_failed':
    case 'sender_digest':
      return senderNoticeDefaultTexts(kind, language);
  }
}

const ACCOUNT_KEYS = {
  verify_email: 'verifyEmail',
  reset_password: 'resetPassword',
  registration_attempt: 'registrationAttempt',
  password_changed: 'passwordChanged',
  email_change: 'emailChange',
  email_change_requested: 'emailChangeRequested',
  email_changed: 'emailChanged',
  mfa_reset: 'mfaReset',
  account_unlocked: 'accountUnlocked',
} as const;

/** The envelope id line of the built-in decline and cancel emails, with the id as a variable. */
function idLine(t: (key: NotificationMessageKey) => string): string {
  return t('email.envelopeId').replace('{id}', '{envelopeId}');
}

/** The stored texts of a kind in a language, or null: the built-in ones are used. Read for every message. */
export async function storedTemplate(
  em: EntityManager,
  kind: TemplateKind,
  language: string | null | undefined,
): Promise<StoredTexts | null> {
  const row = await em.findOne(
    NotificationTemplate,
    { kind, language: language === 'he' ? 'he' : 'en' },
    { disableIdentityMap: true },
  );
  return row ? { subject: row.subject ?? null, body: row.body ?? null, sms: row.sms ?? null } : null;
}

const SAMPLE = {
  en: {
    name: 'Dana Levi',
    organization: 'Example Ltd.',
    title: 'Services agreement 2027',
    decliner: 'Yossi Cohen',
    reason: 'The price in section 4 is not what we agreed.',
    inviter: 'Noa Mizrahi',
  },
  he: {
    name: 'דנה לוי',
    organization: 'דוגמה בע"מ',
    title: 'הסכם שירותים 2027',
    decliner: 'יוסי כהן',
    reason: 'המחיר בסעיף 4 אינו מה שסיכמנו.',
    inviter: 'נועה מזרחי',
  },
} as const;

const SAMPLE_LINK = 'https://sigil.example/sign/sample-link-for-the-preview';
const SAMPLE_ENVELOPE_ID = '00000000-0000-4000-8000-000000000000';

/**
 * A kind's texts rendered with sample values, exactly as a message would be: the email (subject, text, HTML)
 * and the SMS text, each null when the kind has none.
 */
export function previewTemplate(
  kind: TemplateKind,
  language: TemplateLanguage,
  texts: TemplateTexts,
): { subject: string | null; text: string | null; html: string | null; sms: string | null } {
  const sample = SAMPLE[language];
  const rules = TEMPLATE_RULES[kind];
  const template = { subject: texts.subject ?? null, body: texts.body ?? null, sms: texts.sms ?? null };
  const branding = { organizationName: sample.organization };
  let email: { subject: string; text: string; html: string } | null = null;
  let sms: string | null = null;
  if (kind === 'platform_admin_code') {
    email = renderPlatformAdminCode(
      { language, recipientName: sample.name, code: '482913', minutes: 10 },
      template,
    );
  } else if (
    kind === 'verify_email' ||
    kind === 'reset_password' ||
    kind === 'invite' ||
    kind === 'registration_attempt' ||
    kind === 'invitation_attempt' ||
    kind === 'password_changed' ||
    kind === 'email_change' ||
    kind === 'email_change_requested' ||
    kind === 'email_changed' ||
    kind === 'mfa_reset' ||
    kind === 'account_unlocked'
  ) {
    email = renderAccountEmail(
      {
        kind,
        language,
        branding,
        recipientName: sample.name,
        email: 'dana@example.com',
        link: SAMPLE_LINK,
        invitedBy: sample.inviter,
      },
      template,
    );
  } else if (kind === 'sender_digest') {
    email = renderSenderDigest(
      [
        { kind: 'completed', envelopeId: SAMPLE_ENVELOPE_ID, title: sample.title },
        {
          kind: 'declined',
          envelopeId: SAMPLE_ENVELOPE_ID,
          title: sample.title,
          recipientName: sample.decliner,
          reason: sample.reason,
        },
      ],
      senderSample(language),
      template,
    );
  } else if (isSenderNoticeKind(kind)) {
    email = renderSenderNotice(
      {
        kind: kind.slice('sender_'.length) as SenderNotice['kind'],
        envelopeId: SAMPLE_ENVELOPE_ID,
        title: sample.title,
        recipientName: sample.decliner,
        channel: 'Email',
        reason: sample.reason,
        expiresAt: new Date(Date.UTC(2027, 0, 15, 15, 30)),
      },
      senderSample(language),
      template,
    );
  } else {
    const message = sampleMessage(kind, language);
    if (rules.email) email = renderEmail(message, template);
    if (rules.short) sms = renderShortText(message, template);
  }
  return { subject: email?.subject ?? null, text: email?.text ?? null, html: email?.html ?? null, sms };
}

function isSenderNoticeKind(kind: TemplateKind): kind is SenderNoticeTemplateKind {
  return (SENDER_NOTICE_TEMPLATE_KINDS as readonly string[]).includes(kind);
}

/** The addressee of a sender notice's preview. */
function senderSample(language: TemplateLanguage) {
  const sample = SAMPLE[language];
  return {
    fullName: sample.name,
    language,
    branding: { organizationName: sample.organization },
    baseUrl: 'https://sigil.example',
  };
}

function sampleMessage(
  kind:
    | 'invitation'
    | 'reminder'
    | 'otp'
    | 'completed'
    | 'declined'
    | 'cancelled'
    | 'expiring_soon'
    | 'expired',
  language: TemplateLanguage,
): Message {
  const sample = SAMPLE[language];
  const base = {
    language,
    branding: { organizationName: sample.organization },
    recipientName: sample.name,
    envelopeTitle: sample.title,
  };
  switch (kind) {
    case 'invitation':
    case 'reminder':
      return {
        ...base,
        kind,
        action: 'sign',
        link: SAMPLE_LINK,
        expiresAt: new Date(Date.UTC(2027, 0, 15, 15, 30)),
      };
    case 'otp':
      return { ...base, kind, code: '482913', minutes: 10 };
    case 'completed':
      return { ...base, kind, link: SAMPLE_LINK };
    case 'declined':
      return {
        ...base,
        kind,
        declinedBy: sample.decliner,
        reason: sample.reason,
        envelopeId: SAMPLE_ENVELOPE_ID,
      };
    case 'cancelled':
      return { ...base, kind, reason: sample.reason, envelopeId: SAMPLE_ENVELOPE_ID };
    case 'expiring_soon':
      return {
        ...base,
        kind,
        action: 'sign',
        link: SAMPLE_LINK,
        expiresAt: new Date(Date.UTC(2027, 0, 15, 15, 30)),
        daysLeft: 3,
      };
    case 'expired':
      return { ...base, kind, envelopeId: SAMPLE_ENVELOPE_ID };
  }
}

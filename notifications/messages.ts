// Pure renderers of every notification: an email (subject, plain text, HTML) and a short text for SMS and
// WhatsApp, in the addressee's language (English or Hebrew; Hebrew HTML is `lang="he" dir="rtl"`), signed with
// the organization's sender display name and closed with its footer. Every interpolated value is escaped
// in HTML, and links must be http(s) URLs. No I/O: the worker and the API both render with these.
import {
  NOTIFICATION_MESSAGES,
  type NotificationLanguage,
  type NotificationMessageKey,
  notificationLanguage,
} from './catalog.ts';

/** What a recipient is asked to do, from their type: Signer, FormFiller, Approver, Viewer. */
export type SignerAction = 'sign' | 'fill' | 'approve' | 'view';

export function signerAction(type: string): SignerAction | null {
  if (type === 'Signer') return 'sign';
  if (type === 'FormFiller') return 'fill';
  if (type === 'Approver') return 'approve';
  if (type === 'Viewer') return 'view';
  return null;
}

/** The organization's settings that shape every message (organization settings, specification). */
export interface Branding {
  organizationName: string;
  /** Shown in From and in the text; null: the organization's name. */
  senderDisplayName?: string | null;
  /** Plain text closing every email (line breaks kept); null: a default line naming the organization. */
  emailFooter?: string | null;
}

interface MessageBase {
  /** The addressee's language; anything but `he` renders English. */
  language?: string | null;
  branding: Branding;
  /** The addressee's name, for the greeting. */
  recipientName: string;
  envelopeTitle: string;
}

export type MessageContent =
  | { kind: 'invitation' | 'reminder'; action: SignerAction; link: string; expiresAt?: Date | null }
  | { kind: 'otp'; code: string; minutes: number }
  | { kind: 'completed'; link: string }
  | { kind: 'declined'; declinedBy: string; reason: string; envelopeId: string }
  | { kind: 'cancelled'; reason?: string | null; envelopeId: string };

export type Message = MessageBase & MessageContent;

export interface RenderedEmail {
  language: NotificationLanguage;
  subject: string;
  text: string;
  html: string;
}

/** The name recipients see as the sender. */
export function senderName(branding: Branding): string {
  return oneLine(branding.senderDisplayName?.trim() || branding.organizationName);
}

/** An email in the addressee's language. */
export function renderEmail(message: Message): RenderedEmail {
  const language = notificationLanguage(message.language);
  const t = translator(language);
  const values = baseValues(message);
  return composeEmail(language, t, values, emailParts(message, t, values), message.branding);
}

/** What every email is made of: the greeting, paragraphs, one button, notes and the footer. */
function composeEmail(
  language: NotificationLanguage,
  t: Translate,
  values: Record<string, string>,
  parts: EmailParts,
  branding: Branding,
): RenderedEmail {
  const footer = branding.emailFooter?.trim() || t('email.footerDefault', values);
  const subject = oneLine(parts.subject);

  const text = [
    t('email.greeting', values),
    '',
    ...parts.paragraphs.flatMap((paragraph) => [paragraph, '']),
    ...(parts.action ? [`${parts.action.label}: ${parts.action.url}`, ''] : []),
    ...parts.notes.flatMap((note) => [note, '']),
    '--',
    footer,
  ].join('\n');

  const direction = language === 'he' ? 'rtl' : 'ltr';
  const align = direction === 'rtl' ? 'right' : 'left';
  const paragraph = (content: string, style = 'margin:0 0 16px;') => `<p style="${style}">${content}</p>`;
  const html = [
    '<!DOCTYPE html>',
    `<html lang="${language}" dir="${direction}">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(subject)}</title>`,
    '</head>',
    '<body style="margin:0;padding:0;background-color:#f4f4f5;">',
    `<div dir="${direction}" style="max-width:560px;margin:0 auto;padding:32px 24px;background-color:#ffffff;` +
      `font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:#18181b;text-align:${align};">`,
    paragraph(escapeHtml(t('email.greeting', values))),
    ...parts.paragraphs.map((text) => paragraph(escapeHtml(text))),
    ...(parts.action
      ? [
          paragraph(
            `<a href="${escapeHtml(parts.action.url)}" style="display:inline-block;padding:12px 20px;` +
              'background-color:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:bold;">' +
              `${escapeHtml(parts.action.label)}</a>`,
            'margin:24px 0;',
          ),
          paragraph(
            `${escapeHtml(t('email.linkHelp', values))}<br>` +
              `<a href="${escapeHtml(parts.action.url)}" dir="ltr" style="color:#1d4ed8;word-break:break-all;">` +
              `${escapeHtml(parts.action.url)}</a>`,
            'margin:0 0 16px;font-size:13px;color:#52525b;',
          ),
        ]
      : []),
    ...parts.notes.map((note) =>
      paragraph(escapeHtml(note), 'margin:0 0 16px;font-size:14px;color:#52525b;'),
    ),
    '<hr style="border:none;border-top:1px solid #e4e4e7;margin:24px 0;">',
    paragraph(
      footer
        .split(/\r?\n/)
        .map((line) => escapeHtml(line))
        .join('<br>'),
      'margin:0;font-size:12px;color:#71717a;',
    ),
    '</div>',
    '</body>',
    '</html>',
  ].join('\n');

  return { language, subject, text, html };
}

/** The emails of the business application's accounts (docs/accounts.md, "Emailed links"). */
export const ACCOUNT_EMAIL_KINDS = [
  'verify_email',
  'reset_password',
  'invite',
  'registration_attempt',
] as const;
export type AccountEmailKind = (typeof ACCOUNT_EMAIL_KINDS)[number];

/** An email about a user's own account: confirm the address, reset the password, join, or a notice. */
export interface AccountMessage {
  kind: AccountEmailKind;
  /** The addressee's language; anything but `he` renders English. */
  language?: string | null;
  branding: Branding;
  recipientName: string;
  /** The addressee's email address (named in the text). */
  email: string;
  /** The emailed link: an absolute http(s) URL. */
  link: string;
  /** `invite`: the name of the user who invited. */
  invitedBy?: string | null;
}

const ACCOUNT_KEYS = {
  verify_email: 'verifyEmail',
  reset_password: 'resetPassword',
  invite: 'invite',
  registration_attempt: 'registrationAttempt',
} as const;

/** An account email in the addressee's language, in the same layout as every other email. */
export function renderAccountEmail(message: AccountMessage): RenderedEmail {
  const language = notificationLanguage(message.language);
  const t = translator(language);
  const values = {
    language,
    organization: senderName(message.branding),
    name: oneLine(message.recipientName),
    email: oneLine(message.email),
    inviter: oneLine(message.invitedBy ?? ''),
  };
  const key = ACCOUNT_KEYS[message.kind];
  const notes = [t(`account.${key}.note`, values)];
  if (message.kind === 'invite' && values.inviter) notes.unshift(t('account.invite.invitedBy', values));
  return composeEmail(
    language,
    t,
    values,
    {
      subject: t(`account.${key}.subject`, values),
      paragraphs: [t(`account.${key}.intro`, values)],
      action: { label: t(`account.${key}.button`, values), url: safeUrl(message.link) },
      notes,
    },
    message.branding,
  );
}

/** The SMS or WhatsApp text: one or two sentences with the link. */
export function renderShortText(message: Message): string {
  const language = notificationLanguage(message.language);
  const t = translator(language);
  const values = { ...baseValues(message), title: shorten(oneLine(message.envelopeTitle), 60) };
  switch (message.kind) {
    case 'invitation':
    case 'reminder':
      return t(`${message.kind}.short.${message.action}`, { ...values, link: safeUrl(message.link) });
    case 'otp':
      return t('otp.short', { ...values, code: message.code, minutes: String(message.minutes) });
    case 'completed':
      return t('completed.short', { ...values, link: safeUrl(message.link) });
    case 'declined':
      return t('declined.short', {
        ...values,
        decliner: shorten(oneLine(message.declinedBy), 60),
        reason: shorten(oneLine(message.reason), 200),
      });
    case 'cancelled':
      return t('cancelled.short', values);
  }
}

interface EmailParts {
  subject: string;
  paragraphs: string[];
  action: { label: string; url: string } | null;
  notes: string[];
}

type Translate = (key: NotificationMessageKey, values: Record<string, string>) => string;

function emailParts(message: Message, t: Translate, values: Record<string, string>): EmailParts {
  switch (message.kind) {
    case 'invitation':
    case 'reminder': {
      const notes = [t('email.personalLink', values)];
      if (message.expiresAt) {
        notes.unshift(
          t('email.deadline', { ...values, date: formatDate(message.expiresAt, values.language) }),
        );
      }
      return {
        subject: t(`${message.kind}.subject.${message.action}`, values),
        paragraphs: [t(`${message.kind}.intro.${message.action}`, values)],
        action: { label: t(`button.${message.action}`, values), url: safeUrl(message.link) },
        notes,
      };
    }
    case 'otp':
      return {
        subject: t('otp.subject', values),
        paragraphs: [t('otp.short', { ...values, code: message.code, minutes: String(message.minutes) })],
        action: null,
        notes: [],
      };
    case 'completed':
      return {
        subject: t('completed.subject', values),
        paragraphs: [t('completed.intro', values)],
        action: { label: t('completed.button', values), url: safeUrl(message.link) },
        notes: [t('email.personalLink', values)],
      };
    case 'declined': {
      const withDecliner = { ...values, decliner: oneLine(message.declinedBy) };
      return {
        subject: t('declined.subject', withDecliner),
        paragraphs: [
          t('declined.intro', withDecliner),
          t('declined.reason', { ...values, reason: message.reason }),
        ],
        action: null,
        notes: [t('email.envelopeId', { ...values, id: message.envelopeId })],
      };
    }
    case 'cancelled': {
      const reason = message.reason?.trim();
      return {
        subject: t('cancelled.subject', values),
        paragraphs: [
          t('cancelled.intro', values),
          ...(reason ? [t('cancelled.reason', { ...values, reason })] : []),
        ],
        action: null,
        notes: [t('email.envelopeId', { ...values, id: message.envelopeId })],
      };
    }
  }
}

function baseValues(message: Message): Record<string, string> {
  return {
    language: notificationLanguage(message.language),
    organization: senderName(message.branding),
    name: oneLine(message.recipientName),
    title: oneLine(message.envelopeTitle),
  };
}

function translator(language: NotificationLanguage): Translate {
  const messages = NOTIFICATION_MESSAGES[language];
  return (key, values) =>
    messages[key].replace(/\{(\w+)\}/g, (whole, name: string) =>
      Object.hasOwn(values, name) ? (values[name] as string) : whole,
    );
}

/** `20 December 2026 at 15:30 (UTC)`, in the language's words. */
function formatDate(date: Date, language: string | undefined): string {
  const locale = language === 'he' ? 'he-IL' : 'en-GB';
  const formatted = new Intl.DateTimeFormat(locale, {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: 'UTC',
  });
  return `${formatted.format(date)} (UTC)`;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text as HTML text or attribute value. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] as string);
}

/** Only absolute http(s) URLs go into a message; anything else is a programming error. */
function safeUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error('a notification link must be an absolute http(s) URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error('a notification link must be an http or https URL');
  }
  return url.href;
}

/** Line breaks and runs of spaces (a title, a name) become one space: subjects and SMS stay one line. */
function oneLine(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

function shorten(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1).trimEnd()}…`;
}

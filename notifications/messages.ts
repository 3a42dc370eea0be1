// Pure renderers of every notification: an email (subject, plain text, HTML) and a short text for SMS and
// WhatsApp, in the addressee's language (English or Hebrew; Hebrew HTML is `lang="he" dir="rtl"`), signed with
// the organization's sender display name and closed with its footer. Every interpolated value is escaped
// in HTML, and links must be http(s) URLs. No I/O: the worker and the API both render with these.
import type { TemplateTexts } from '../domain/notification-templates.ts';
import { ACCOUNT_EMAIL_KINDS, type AccountEmailKind } from '../domain/vocabulary.ts';
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
  | {
      kind: 'completed';
      link: string;
      /**
       * The final PDF (organization setting `attachFinalPdfToCompletedEmail`): `attached` to the email, or
       * `tooLarge` to attach (its size, for example "12.4 MB"); absent: the setting is off.
       */
      finalPdf?: { attached: true } | { attached: false; size: string };
    }
  | { kind: 'declined'; declinedBy: string; reason: string; envelopeId: string }
  | { kind: 'cancelled'; reason?: string | null; envelopeId: string }
  /** The deadline is near: `daysLeft` whole days (at least 1), with the recipient's fresh link. */
  | { kind: 'expiring_soon'; action: SignerAction; link: string; expiresAt: Date; daysLeft: number }
  /** The deadline passed: the recipient's link no longer works (so the message carries none). */
  | { kind: 'expired'; envelopeId: string };

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

/**
 * An email in the addressee's language: the texts a platform administrator stored for its kind and language
 * (`template`, docs/backoffice.md "Notification templates") when given, else the built-in ones.
 */
export function renderEmail(message: Message, template?: TemplateTexts | null): RenderedEmail {
  const language = notificationLanguage(message.language);
  const t = translator(language);
  if (template?.subject && template.body) {
    const values = messageValues(message);
    return renderTemplateEmail(
      language,
      template,
      values,
      message.branding,
      buttonOf(message, t),
      finalPdfNotes(message, t, values),
    );
  }
  const values = baseValues(message);
  return composeEmail(language, t, values, emailParts(message, t, values), message.branding);
}

/**
 * The sentence about the final PDF of a completed email — attached, or too large to attach — that every
 * completed email carries, built-in or stored texts alike (a stored template cannot know the size).
 */
function finalPdfNotes(message: Message, t: Translate, values: Record<string, string>): string[] {
  if (message.kind !== 'completed' || !message.finalPdf) return [];
  return message.finalPdf.attached
    ? [t('completed.attached', values)]
    : [t('completed.tooLarge', { ...values, size: message.finalPdf.size })];
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

  const paragraph = (content: string, style = PARAGRAPH) => `<p style="${style}">${content}</p>`;
  const blocks = [
    paragraph(escapeHtml(t('email.greeting', values))),
    ...parts.paragraphs.map((text) => paragraph(escapeHtml(text))),
    ...(parts.action ? buttonBlocks(parts.action, t('email.linkHelp', values)) : []),
    ...parts.notes.map((note) => paragraph(escapeHtml(note), SMALL_PRINT)),
  ];
  const html = emailDocument(language, subject, blocks, footer);
  return { language, subject, text, html };
}

const PARAGRAPH = 'margin:0 0 16px;';
const SMALL_PRINT = 'margin:0 0 16px;font-size:14px;color:#52525b;';

/** The button of an email's link, and the same address written out for mail programs that hide buttons. */
function buttonBlocks(action: { label: string; url: string }, linkHelp: string): string[] {
  return [
    `<p style="margin:24px 0;"><a href="${escapeHtml(action.url)}" style="display:inline-block;padding:12px 20px;` +
      'background-color:#1d4ed8;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:bold;">' +
      `${escapeHtml(action.label)}</a></p>`,
    '<p style="margin:0 0 16px;font-size:13px;color:#52525b;">' +
      `${escapeHtml(linkHelp)}<br>` +
      `<a href="${escapeHtml(action.url)}" dir="ltr" style="color:#1d4ed8;word-break:break-all;">` +
      `${escapeHtml(action.url)}</a></p>`,
  ];
}

/** Every email's HTML page: the language's direction, the blocks given, a rule and the footer. */
function emailDocument(
  language: NotificationLanguage,
  subject: string,
  blocks: string[],
  footer: string,
): string {
  const direction = language === 'he' ? 'rtl' : 'ltr';
  const align = direction === 'rtl' ? 'right' : 'left';
  return [
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
    ...blocks,
    '<hr style="border:none;border-top:1px solid #e4e4e7;margin:24px 0;">',
    `<p style="margin:0;font-size:12px;color:#71717a;">${footer
      .split(/\r?\n/)
      .map((line) => escapeHtml(line))
      .join('<br>')}</p>`,
    '</div>',
    '</body>',
    '</html>',
  ].join('\n');
}

// The emails of the business application's accounts (docs/accounts.md, "Emailed links"): their kinds are
// the vocabulary's, so the development panel names each one.
export { ACCOUNT_EMAIL_KINDS, type AccountEmailKind };

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
  /** `invite`, `invitation_attempt`: the name of the user who invited. */
  invitedBy?: string | null;
}

const ACCOUNT_KEYS = {
  verify_email: 'verifyEmail',
  reset_password: 'resetPassword',
  invite: 'invite',
  registration_attempt: 'registrationAttempt',
  invitation_attempt: 'invitationAttempt',
  password_changed: 'passwordChanged',
  email_change: 'emailChange',
  email_change_requested: 'emailChangeRequested',
  email_changed: 'emailChanged',
  mfa_reset: 'mfaReset',
  account_unlocked: 'accountUnlocked',
} as const;

/** An account email in the addressee's language, in the same layout as every other email. */
export function renderAccountEmail(message: AccountMessage, template?: TemplateTexts | null): RenderedEmail {
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
  if (template?.subject && template.body) {
    const link = safeUrl(message.link);
    return renderTemplateEmail(language, template, { ...values, link }, message.branding, {
      label: t(`account.${key}.button`, values),
      url: link,
    });
  }
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

/** The SMS or WhatsApp text: one or two sentences with the link; the stored text of `template` when given. */
export function renderShortText(message: Message, template?: TemplateTexts | null): string {
  const language = notificationLanguage(message.language);
  const t = translator(language);
  if (template?.sms) return fillTemplate(template.sms, messageValues(message, true));
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
    case 'expiring_soon':
      return t(message.daysLeft === 1 ? 'expiringSoon.short.one' : 'expiringSoon.short', {
        ...values,
        days: String(message.daysLeft),
        link: safeUrl(message.link),
      });
    case 'expired':
      return t('expired.short', values);
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
        notes: [...finalPdfNotes(message, t, values), t('email.personalLink', values)],
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
    case 'expiring_soon': {
      const one = message.daysLeft === 1;
      const withDeadline = {
        ...values,
        days: String(message.daysLeft),
        deadline: formatDate(message.expiresAt, values.language),
      };
      return {
        subject: t(one ? 'expiringSoon.subject.one' : 'expiringSoon.subject', withDeadline),
        paragraphs: [t(one ? 'expiringSoon.intro.one' : 'expiringSoon.intro', withDeadline)],
        action: { label: t(`button.${message.action}`, values), url: safeUrl(message.link) },
        notes: [t('email.personalLink', values)],
      };
    }
    case 'expired':
      return {
        subject: t('expired.subject', values),
        paragraphs: [t('expired.intro', values)],
        action: null,
        notes: [t('email.envelopeId', { ...values, id: message.envelopeId })],
      };
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

/** The sign-in code email of a platform administrator (docs/backoffice.md, "Signing in"); it carries no link. */
export interface PlatformAdminCodeMessage {
  language?: string | null;
  recipientName: string;
  code: string;
  minutes: number;
}

/** The backoffice's own messages are signed by the platform, not by an organization. */
const PLATFORM_BRANDING: Branding = { organizationName: 'Sigil', emailFooter: 'Sigil' };

export function renderPlatformAdminCode(
  message: PlatformAdminCodeMessage,
  template?: TemplateTexts | null,
): RenderedEmail {
  const language = notificationLanguage(message.language);
  const t = translator(language);
  const values = {
    language,
    name: oneLine(message.recipientName),
    code: message.code,
    minutes: String(message.minutes),
  };
  if (template?.subject && template.body) {
    return renderTemplateEmail(language, template, values, PLATFORM_BRANDING, null);
  }
  return composeEmail(
    language,
    t,
    values,
    {
      subject: t('backoffice.code.subject', values),
      paragraphs: [t('backoffice.code.intro', values)],
      action: null,
      notes: [t('backoffice.code.note', values)],
    },
    PLATFORM_BRANDING,
  );
}

/**
 * Every variable of a message's kind (domain/notification-templates.ts, TEMPLATE_RULES) with its value. `short`:
 * the shortened title, decliner and reason of an SMS.
 */
export function messageValues(message: Message, short = false): Record<string, string> {
  const values = baseValues(message);
  const title = short ? shorten(values.title ?? '', 60) : (values.title ?? '');
  const common = { ...values, title };
  switch (message.kind) {
    case 'invitation':
    case 'reminder':
      return {
        ...common,
        link: safeUrl(message.link),
        deadline: message.expiresAt ? formatDate(message.expiresAt, values.language) : '',
      };
    case 'otp':
      return { ...common, code: message.code, minutes: String(message.minutes) };
    case 'completed':
      return { ...common, link: safeUrl(message.link) };
    case 'declined':
      return {
        ...common,
        decliner: short ? shorten(oneLine(message.declinedBy), 60) : oneLine(message.declinedBy),
        reason: short ? shorten(oneLine(message.reason), 200) : message.reason,
        envelopeId: message.envelopeId,
      };
    case 'cancelled':
      return { ...common, reason: message.reason?.trim() ?? '', envelopeId: message.envelopeId };
    case 'expiring_soon':
      return {
        ...common,
        link: safeUrl(message.link),
        deadline: formatDate(message.expiresAt, values.language),
        days: String(message.daysLeft),
      };
    case 'expired':
      return { ...common, envelopeId: message.envelopeId };
  }
}

/** The button an envelope message's link gets, labelled as the built-in email labels it. */
function buttonOf(message: Message, t: Translate): { label: string; url: string } | null {
  const values = baseValues(message);
  if (message.kind === 'invitation' || message.kind === 'reminder' || message.kind === 'expiring_soon') {
    return { label: t(`button.${message.action}`, values), url: safeUrl(message.link) };
  }
  if (message.kind === 'completed')
    return { label: t('completed.button', values), url: safeUrl(message.link) };
  return null;
}

/** A stored text with its variables filled in (values as they are: plain text, never HTML). */
export function fillTemplate(text: string, values: Record<string, string>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? (values[name] as string) : whole,
  );
}

/**
 * An email from stored texts. The body is plain text, paragraphs separated by blank lines: a paragraph that is
 * only `{link}` becomes the button (with the address written out below it) and the paragraphs after the button
 * are small print; a `{link}` inside a paragraph is a plain link. Every value is escaped in the HTML.
 */
export function renderTemplateEmail(
  language: NotificationLanguage,
  template: TemplateTexts,
  values: Record<string, string>,
  branding: Branding,
  button: { label: string; url: string } | null,
  notes: string[] = [],
): RenderedEmail {
  const t = translator(language);
  const footer = branding.emailFooter?.trim() || t('email.footerDefault', values);
  const subject = oneLine(fillTemplate(template.subject ?? '', values));
  const paragraphs = (template.body ?? '')
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');
  const text = [
    ...paragraphs.map((paragraph) => fillTemplate(paragraph, values)),
    ...notes,
    `--\n${footer}`,
  ].join('\n\n');

  let afterButton = false;
  const blocks = paragraphs.flatMap((paragraph) => {
    if (paragraph === '{link}' && button) {
      afterButton = true;
      return buttonBlocks(button, t('email.linkHelp', values));
    }
    const html = paragraph
      .split('\n')
      .map((line) => templateLineHtml(line, values))
      .join('<br>');
    return [`<p style="${afterButton ? SMALL_PRINT : PARAGRAPH}">${html}</p>`];
  });
  blocks.push(...notes.map((note) => `<p style="${SMALL_PRINT}">${escapeHtml(note)}</p>`));
  return { language, subject, text, html: emailDocument(language, subject, blocks, footer) };
}

/** One line of a stored body as HTML: its words and values escaped, `{link}` as a link. */
function templateLineHtml(line: string, values: Record<string, string>): string {
  return line
    .split(/(\{\w+\})/)
    .map((part) => {
      const name = /^\{(\w+)\}$/.exec(part)?.[1];
      if (name === undefined || !Object.hasOwn(values, name)) return escapeHtml(part);
      const value = values[name] as string;
      // A value of several lines (a reason, a digest's summary) keeps its line breaks.
      if (name !== 'link') return escapeHtml(value).replace(/\n/g, '<br>');
      return `<a href="${escapeHtml(value)}" dir="ltr" style="color:#1d4ed8;word-break:break-all;">${escapeHtml(value)}</a>`;
    })
    .join('');
}

// The texts of every message Sigil sends, as a platform administrator edits them in the backoffice
// (docs/backoffice.md, "Notification templates"): per message kind and language (English, Hebrew), an email's
// subject and body and the short text of SMS and WhatsApp, with named variables (`{title}`, `{link}`). What each
// kind may say and must say is here, in one table the server's validation, the renderer and the web page share.
import { z } from 'zod';
import { APPLICATION_DOCUMENT_ONLY, IsoDateTime, safeText } from './common.ts';
import { ACCOUNT_EMAIL_KINDS, NOTIFICATION_KINDS } from './vocabulary.ts';

/** The emails of sender notifications (docs/notifications.md, "Sender notifications"): one per kind, and the digest. */
export const SENDER_NOTICE_TEMPLATE_KINDS = [
  'sender_completed',
  'sender_declined',
  'sender_cancelled',
  'sender_expired',
  'sender_expiring_soon',
  'sender_delivery_failed',
  'sender_digest',
] as const;
export type SenderNoticeTemplateKind = (typeof SENDER_NOTICE_TEMPLATE_KINDS)[number];

export const TEMPLATE_KINDS = [
  ...NOTIFICATION_KINDS,
  ...ACCOUNT_EMAIL_KINDS,
  'platform_admin_code',
  ...SENDER_NOTICE_TEMPLATE_KINDS,
] as const;
export type TemplateKind = (typeof TEMPLATE_KINDS)[number];

export const TEMPLATE_LANGUAGES = ['en', 'he'] as const;
export type TemplateLanguage = (typeof TEMPLATE_LANGUAGES)[number];

export interface TemplateKindRules {
  /** Sent as an email: has a subject and a body. */
  email: boolean;
  /** Sent by SMS or WhatsApp: has a short text. */
  short: boolean;
  /** The variables its texts may use, without braces. */
  variables: readonly string[];
  /** Variables the body and the short text must each use (a message without its link or code is useless). */
  required: readonly string[];
}

const ENVELOPE = ['name', 'organization', 'title'] as const;
const ACCOUNT = ['name', 'organization', 'email', 'link'] as const;
/** A sender notification's email: the user's name, the organization, the envelope's title and its page. */
const SENDER = ['name', 'organization', 'title', 'link'] as const;

/** What each kind's texts may and must say. */
export const TEMPLATE_RULES: Record<TemplateKind, TemplateKindRules> = {
  invitation: { email: true, short: true, variables: [...ENVELOPE, 'link', 'deadline'], required: ['link'] },
  reminder: { email: true, short: true, variables: [...ENVELOPE, 'link', 'deadline'], required: ['link'] },
  otp: { email: false, short: true, variables: ['organization', 'code', 'minutes'], required: ['code'] },
  completed: { email: true, short: true, variables: [...ENVELOPE, 'link'], required: ['link'] },
  declined: {
    email: true,
    short: true,
    variables: [...ENVELOPE, 'decliner', 'reason', 'envelopeId'],
    required: [],
  },
  cancelled: { email: true, short: true, variables: [...ENVELOPE, 'reason', 'envelopeId'], required: [] },
  expiring_soon: {
    email: true,
    short: true,
    variables: [...ENVELOPE, 'link', 'deadline', 'days'],
    required: ['link'],
  },
  expired: { email: true, short: true, variables: [...ENVELOPE, 'envelopeId'], required: [] },
  verify_email: { email: true, short: false, variables: ACCOUNT, required: ['link'] },
  reset_password: { email: true, short: false, variables: ACCOUNT, required: ['link'] },
  invite: { email: true, short: false, variables: [...ACCOUNT, 'inviter'], required: ['link'] },
  registration_attempt: { email: true, short: false, variables: ACCOUNT, required: ['link'] },
  invitation_attempt: { email: true, short: false, variables: [...ACCOUNT, 'inviter'], required: ['link'] },
  password_changed: { email: true, short: false, variables: ACCOUNT, required: ['link'] },
  email_change: { email: true, short: false, variables: ACCOUNT, required: ['link'] },
  email_change_requested: { email: true, short: false, variables: ACCOUNT, required: ['link'] },
  email_changed: { email: true, short: false, variables: ACCOUNT, required: ['link'] },
  mfa_reset: { email: true, short: false, variables: ACCOUNT, required: ['link'] },
  account_unlocked: { email: true, short: false, variables: ACCOUNT, required: ['link'] },
  platform_admin_code: {
    email: true,
    short: false,
    variables: ['name', 'code', 'minutes'],
    required: ['code'],
  },
  sender_completed: { email: true, short: false, variables: [...SENDER, 'download'], required: ['link'] },
  sender_declined: {
    email: true,
    short: false,
    variables: [...SENDER, 'recipient', 'reason'],
    required: ['link'],
  },
  sender_cancelled: { email: true, short: false, variables: [...SENDER, 'reason'], required: ['link'] },
  sender_expired: { email: true, short: false, variables: SENDER, required: ['link'] },
  sender_expiring_soon: { email: true, short: false, variables: [...SENDER, 'deadline'], required: ['link'] },
  sender_delivery_failed: {
    email: true,
    short: false,
    variables: [...SENDER, 'recipient', 'channel', 'reason'],
    required: ['link'],
  },
  sender_digest: {
    email: true,
    short: false,
    variables: ['name', 'organization', 'link', 'count', 'summary'],
    required: ['link', 'summary'],
  },
};

/** What a required variable is, for the refusal that names it. */
const REQUIRED_MEANING: Record<string, string> = {
  link: 'the link the recipient opens',
  code: 'the one-time code',
  summary: 'the list of what happened',
};

export const TEMPLATE_LIMITS = { subject: 200, body: 5_000, short: 640 } as const;

/** The `{name}` variables a text uses, each once, in order of appearance. */
export function templateVariables(text: string): string[] {
  return [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string))];
}

export interface TemplateTexts {
  subject?: string | null | undefined;
  body?: string | null | undefined;
  sms?: string | null | undefined;
}

/**
 * Every problem of one kind's texts, each with the field it is about: a text the kind has must be given, one it
 * lacks must not; unknown variables are refused (naming the ones allowed), and the body and the short text must
 * carry the kind's link or code.
 */
export function templateProblems(
  kind: TemplateKind,
  texts: TemplateTexts,
): Array<{ field: 'subject' | 'body' | 'sms'; message: string }> {
  const rules = TEMPLATE_RULES[kind];
  const problems: Array<{ field: 'subject' | 'body' | 'sms'; message: string }> = [];
  const allowed = rules.variables.map((name) => `{${name}}`).join(', ');
  const check = (field: 'subject' | 'body' | 'sms', present: boolean, requireVariables: boolean) => {
    const text = texts[field];
    if (!present) {
      if (text !== undefined && text !== null) {
        problems.push({
          field,
          message: `${kind} messages have no ${field === 'sms' ? 'SMS or WhatsApp text' : `email ${field}`}: leave it out`,
        });
      }
      return;
    }
    if (text === undefined || text === null || text.trim() === '') {
      problems.push({ field, message: `${field} is required for ${kind} messages` });
      return;
    }
    const unknown = templateVariables(text).filter((name) => !rules.variables.includes(name));
    if (unknown.length > 0) {
      problems.push({
        field,
        message: `unknown variable ${unknown.map((name) => `{${name}}`).join(', ')}: ${kind} messages can use ${allowed}`,
      });
    }
    if (requireVariables) {
      const used = templateVariables(text);
      for (const name of rules.required) {
        if (!used.includes(name)) {
          problems.push({ field, message: `must contain {${name}}: ${REQUIRED_MEANING[name] ?? name}` });
        }
      }
    }
  };
  check('subject', rules.email, false);
  check('body', rules.email, true);
  check('sms', rules.short, true);
  return problems;
}

const subjectText = safeText()
  .max(TEMPLATE_LIMITS.subject, `subject must be at most ${TEMPLATE_LIMITS.subject} characters`)
  .nullable()
  .optional()
  .describe('The email subject, one line; for kinds sent by email only');
const bodyText = safeText('multiline')
  .max(TEMPLATE_LIMITS.body, `body must be at most ${TEMPLATE_LIMITS.body} characters`)
  .nullable()
  .optional()
  .describe(
    'The email body as plain text: paragraphs separated by a blank line. A paragraph that is only {link} ' +
      'becomes the button; paragraphs after it are small print. For kinds sent by email only',
  );
const smsText = safeText('multiline')
  .max(TEMPLATE_LIMITS.short, `sms must be at most ${TEMPLATE_LIMITS.short} characters`)
  .nullable()
  .optional()
  .describe('The SMS and WhatsApp text; for kinds sent by SMS or WhatsApp only');

const TemplateKindSchema = z.enum(TEMPLATE_KINDS, {
  message: `kind must be one of ${TEMPLATE_KINDS.join(', ')}`,
});
const TemplateLanguageSchema = z.enum(TEMPLATE_LANGUAGES, { message: 'language must be en or he' });

/** Reports each problem of `templateProblems` at `<at>.<field>`. */
function refineTexts(
  entry: { kind: TemplateKind } & TemplateTexts,
  ctx: z.RefinementCtx,
  at: (string | number)[],
): void {
  for (const problem of templateProblems(entry.kind, entry)) {
    ctx.addIssue({ code: 'custom', path: [...at, problem.field], message: problem.message });
  }
}

const TemplateUpdate = z.strictObject({
  kind: TemplateKindSchema,
  language: TemplateLanguageSchema,
  subject: subjectText,
  body: bodyText,
  sms: smsText,
  reset: z
    .boolean({ message: 'reset must be true or false' })
    .optional()
    .describe('true: forget the stored texts and use the built-in ones again (give no texts with it)'),
});

export const UpdateNotificationTemplatesRequest = z
  .strictObject({
    templates: z
      .array(TemplateUpdate)
      .min(1, 'give at least one template')
      .max(TEMPLATE_KINDS.length * TEMPLATE_LANGUAGES.length),
  })
  .superRefine((request, ctx) => {
    const seen = new Set<string>();
    request.templates.forEach((entry, index) => {
      const key = `${entry.kind}/${entry.language}`;
      if (seen.has(key)) {
        ctx.addIssue({
          code: 'custom',
          path: ['templates', index, 'kind'],
          message: `${entry.kind} in ${entry.language} is given twice`,
        });
      }
      seen.add(key);
      if (entry.reset) {
        for (const field of ['subject', 'body', 'sms'] as const) {
          if (entry[field] !== undefined) {
            ctx.addIssue({
              code: 'custom',
              path: ['templates', index, field],
              message: 'a reset takes no texts: leave them out',
            });
          }
        }
        return;
      }
      refineTexts(entry, ctx, ['templates', index]);
    });
  })
  .meta({ id: 'UpdateNotificationTemplatesRequest', ...APPLICATION_DOCUMENT_ONLY });
export type UpdateNotificationTemplatesRequest = z.infer<typeof UpdateNotificationTemplatesRequest>;

export const PreviewNotificationTemplateRequest = z
  .strictObject({
    kind: TemplateKindSchema,
    language: TemplateLanguageSchema,
    subject: subjectText,
    body: bodyText,
    sms: smsText,
  })
  .superRefine((entry, ctx) => refineTexts(entry, ctx, []))
  .meta({ id: 'PreviewNotificationTemplateRequest', ...APPLICATION_DOCUMENT_ONLY });
export type PreviewNotificationTemplateRequest = z.infer<typeof PreviewNotificationTemplateRequest>;

const Texts = z.object({
  subject: z.string().nullable(),
  body: z.string().nullable(),
  sms: z.string().nullable(),
});

export const NotificationTemplateView = z
  .object({
    kind: TemplateKindSchema,
    language: TemplateLanguageSchema,
    email: z.boolean().describe('Sent as an email (subject and body)'),
    short: z.boolean().describe('Sent by SMS or WhatsApp (sms)'),
    variables: z.array(z.string()),
    requiredVariables: z.array(z.string()),
    customized: z.boolean().describe('false: the built-in texts are used'),
    subject: z.string().nullable(),
    body: z.string().nullable(),
    sms: z.string().nullable(),
    defaults: Texts.describe('The built-in texts (what a reset goes back to)'),
    updatedAt: IsoDateTime.nullable(),
    updatedBy: z.string().nullable(),
  })
  .meta({ id: 'NotificationTemplateView', ...APPLICATION_DOCUMENT_ONLY });
export type NotificationTemplateView = z.infer<typeof NotificationTemplateView>;

export const NotificationTemplatesView = z
  .object({ templates: z.array(NotificationTemplateView) })
  .meta({ id: 'NotificationTemplatesView', ...APPLICATION_DOCUMENT_ONLY });
export type NotificationTemplatesView = z.infer<typeof NotificationTemplatesView>;

export const NotificationTemplatePreview = z
  .object({
    subject: z.string().nullable(),
    text: z.string().nullable().describe('The email as plain text'),
    html: z.string().nullable().describe('The email as HTML'),
    sms: z.string().nullable(),
  })
  .meta({ id: 'NotificationTemplatePreview', ...APPLICATION_DOCUMENT_ONLY });
export type NotificationTemplatePreview = z.infer<typeof NotificationTemplatePreview>;

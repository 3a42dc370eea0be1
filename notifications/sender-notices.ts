// The emails of sender notifications (docs/notifications.md, "Sender notifications"): one per notification, or
// one daily digest, to a user of the business app in their language, with a link to the document page (and,
// for a completed envelope, to the signed PDF's download in the app). Their built-in texts are here, in English
// and Hebrew, written as templates: a platform administrator edits them in the backoffice like every other kind
// (`sender_*`, domain/notification-templates.ts), and the stored texts replace these. Pure: no I/O.
import type {
  SenderNoticeTemplateKind,
  TemplateLanguage,
  TemplateTexts,
} from '../domain/notification-templates.ts';
import type { SenderNotificationKind } from '../domain/vocabulary.ts';
import { notificationLanguage } from './catalog.ts';
import { type Branding, type RenderedEmail, renderTemplateEmail, senderName } from './messages.ts';

export function senderNoticeTemplateKind(kind: SenderNotificationKind): SenderNoticeTemplateKind {
  return `sender_${kind}`;
}

interface Texts {
  subject: string;
  body: string;
  /** The button's label. */
  button: string;
}

const BUILT_IN: Record<TemplateLanguage, Record<SenderNoticeTemplateKind, Texts>> = {
  en: {
    sender_completed: {
      subject: 'Completed: {title}',
      body: 'Hello {name},\n\nEveryone has completed "{title}". The signed document is ready.\n\n{link}\n\nDownload the signed PDF: {download}',
      button: 'Open the document',
    },
    sender_declined: {
      subject: 'Declined: {title}',
      body: 'Hello {name},\n\n{recipient} declined "{title}".\n\nTheir reason: {reason}\n\n{link}',
      button: 'Open the document',
    },
    sender_cancelled: {
      subject: 'Cancelled: {title}',
      body: 'Hello {name},\n\n"{title}" was cancelled. {reason}\n\n{link}',
      button: 'Open the document',
    },
    sender_expired: {
      subject: 'Expired: {title}',
      body: 'Hello {name},\n\n"{title}" expired before everyone acted. You can extend its deadline from the document page.\n\n{link}',
      button: 'Open the document',
    },
    sender_expiring_soon: {
      subject: 'Expires soon: {title}',
      body: 'Hello {name},\n\n"{title}" expires on {deadline} and not everyone has acted yet.\n\n{link}',
      button: 'Open the document',
    },
    sender_delivery_failed: {
      subject: 'Not delivered: {title}',
      body: 'Hello {name},\n\nThe message of "{title}" to {recipient} ({channel}) could not be delivered: {reason}\n\nCorrect the address or hand the link over from the document page.\n\n{link}',
      button: 'Open the document',
    },
    sender_digest: {
      subject: 'Your documents today: {count} updates',
      body: 'Hello {name},\n\nWhat happened to your documents since the last summary:\n\n{summary}\n\n{link}',
      button: 'Open the documents',
    },
  },
  he: {
    sender_completed: {
      subject: 'הושלם: {title}',
      body: 'שלום {name},\n\nכל הנמענים השלימו את "{title}". המסמך החתום מוכן.\n\n{link}\n\nלהורדת ה-PDF החתום: {download}',
      button: 'לפתיחת המסמך',
    },
    sender_declined: {
      subject: 'נדחה: {title}',
      body: 'שלום {name},\n\n{recipient} דחה/תה את "{title}".\n\nהסיבה: {reason}\n\n{link}',
      button: 'לפתיחת המסמך',
    },
    sender_cancelled: {
      subject: 'בוטל: {title}',
      body: 'שלום {name},\n\n"{title}" בוטל. {reason}\n\n{link}',
      button: 'לפתיחת המסמך',
    },
    sender_expired: {
      subject: 'פג תוקף: {title}',
      body: 'שלום {name},\n\nתוקפו של "{title}" פג לפני שכל הנמענים פעלו. אפשר להאריך את המועד מדף המסמך.\n\n{link}',
      button: 'לפתיחת המסמך',
    },
    sender_expiring_soon: {
      subject: 'יפוג בקרוב: {title}',
      body: 'שלום {name},\n\nתוקפו של "{title}" יפוג ב-{deadline} ועדיין לא כל הנמענים פעלו.\n\n{link}',
      button: 'לפתיחת המסמך',
    },
    sender_delivery_failed: {
      subject: 'לא נמסר: {title}',
      body: 'שלום {name},\n\nההודעה של "{title}" אל {recipient} ({channel}) לא נמסרה: {reason}\n\nאפשר לתקן את הכתובת או למסור את הקישור ידנית מדף המסמך.\n\n{link}',
      button: 'לפתיחת המסמך',
    },
    sender_digest: {
      subject: 'המסמכים שלך היום: {count} עדכונים',
      body: 'שלום {name},\n\nמה קרה למסמכים שלך מאז הסיכום הקודם:\n\n{summary}\n\n{link}',
      button: 'לפתיחת המסמכים',
    },
  },
};

/** The built-in texts of a kind, as the backoffice's editor starts from them. */
export function senderNoticeDefaultTexts(
  kind: SenderNoticeTemplateKind,
  language: TemplateLanguage,
): { subject: string; body: string; sms: null } {
  const texts = BUILT_IN[language][kind];
  return { subject: texts.subject, body: texts.body, sms: null };
}

/** One notification as the email tells it. */
export interface SenderNotice {
  kind: SenderNotificationKind;
  envelopeId: string;
  title: string;
  /** The decliner, or the recipient a message did not reach. */
  recipientName?: string | null;
  channel?: string | null;
  reason?: string | null;
  /** expiring_soon: the deadline. */
  expiresAt?: Date | null;
}

export interface SenderNoticeAddressee {
  fullName: string;
  language?: string | null;
  branding: Branding;
  /** PUBLIC_BASE_URL: the links go to the business app there. */
  baseUrl: string;
}

const CHANNEL_WORDS: Record<TemplateLanguage, Record<string, string>> = {
  en: { Email: 'email', Sms: 'SMS', WhatsApp: 'WhatsApp' },
  he: { Email: 'דוא"ל', Sms: 'SMS', WhatsApp: 'WhatsApp' },
};

const NO_REASON: Record<TemplateLanguage, string> = { en: 'No reason was given.', he: 'לא צוינה סיבה.' };

export function documentPageUrl(baseUrl: string, envelopeId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/app/documents/${encodeURIComponent(envelopeId)}`;
}

function formatDeadline(at: Date, language: TemplateLanguage): string {
  return new Intl.DateTimeFormat(language === 'he' ? 'he-IL' : 'en-GB', {
    dateStyle: 'long',
    timeStyle: 'short',
    timeZone: 'UTC',
  }).format(at);
}

function oneLine(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}

/** The values of a notice's variables. */
function noticeValues(
  notice: SenderNotice,
  to: SenderNoticeAddressee,
  language: TemplateLanguage,
): Record<string, string> {
  const base = to.baseUrl.replace(/\/+$/, '');
  return {
    name: oneLine(to.fullName),
    organization: senderName(to.branding),
    title: oneLine(notice.title),
    link: documentPageUrl(base, notice.envelopeId),
    download: `${base}/api/documents/${encodeURIComponent(notice.envelopeId)}/files/final-pdf`,
    recipient: oneLine(notice.recipientName ?? ''),
    channel: notice.channel ? (CHANNEL_WORDS[language][notice.channel] ?? notice.channel) : '',
    reason: notice.reason?.trim()
      ? notice.reason.trim()
      : notice.kind === 'cancelled'
        ? ''
        : NO_REASON[language],
    deadline: notice.expiresAt ? formatDeadline(notice.expiresAt, language) : '',
  };
}

/** One notification's email, from the stored texts of its kind and language when given, else the built-in ones. */
export function renderSenderNotice(
  notice: SenderNotice,
  to: SenderNoticeAddressee,
  stored?: TemplateTexts | null,
): RenderedEmail {
  const language = notificationLanguage(to.language);
  const kind = senderNoticeTemplateKind(notice.kind);
  const builtIn = BUILT_IN[language][kind];
  const values = noticeValues(notice, to, language);
  const template = stored?.subject && stored.body ? stored : builtIn;
  return renderTemplateEmail(language, template, values, to.branding, {
    label: builtIn.button,
    url: values.link as string,
  });
}

/** The words a digest line starts with, per kind. */
const DIGEST_LINES: Record<TemplateLanguage, Record<SenderNotificationKind, string>> = {
  en: {
    completed: 'Completed',
    declined: 'Declined',
    cancelled: 'Cancelled',
    expired: 'Expired',
    expiring_soon: 'Expires soon',
    delivery_failed: 'Not delivered',
  },
  he: {
    completed: 'הושלם',
    declined: 'נדחה',
    cancelled: 'בוטל',
    expired: 'פג תוקף',
    expiring_soon: 'יפוג בקרוב',
    delivery_failed: 'לא נמסר',
  },
};

/** One email with every notification of a day, one line each (its kind, the title, the document page). */
export function renderSenderDigest(
  notices: readonly SenderNotice[],
  to: SenderNoticeAddressee,
  stored?: TemplateTexts | null,
): RenderedEmail {
  const language = notificationLanguage(to.language);
  const builtIn = BUILT_IN[language].sender_digest;
  const base = to.baseUrl.replace(/\/+$/, '');
  const summary = notices
    .map((notice) => {
      const detail =
        notice.kind === 'declined' || notice.kind === 'delivery_failed'
          ? ` (${[notice.recipientName, notice.reason]
              .filter(Boolean)
              .map((part) => oneLine(part as string))
              .join(': ')})`
          : '';
      return `• ${DIGEST_LINES[language][notice.kind]}: ${oneLine(notice.title)}${detail} — ${documentPageUrl(base, notice.envelopeId)}`;
    })
    .join('\n');
  const values = {
    name: oneLine(to.fullName),
    organization: senderName(to.branding),
    link: `${base}/app/documents`,
    count: String(notices.length),
    summary,
  };
  const template = stored?.subject && stored.body ? stored : builtIn;
  return renderTemplateEmail(language, template, values, to.branding, {
    label: builtIn.button,
    url: values.link,
  });
}

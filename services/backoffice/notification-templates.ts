// Notification templates in the backoffice (docs/backoffice.md, "Notification templates"): every message
// kind's texts in English and Hebrew as they are used now (stored, or built in), a platform administrator's
// change or reset of several at once (one transaction, each recorded in the backoffice audit log), and a
// preview with sample values. Messages read the stored texts when they are rendered, so a change applies to
// the next message without a restart.
import { NotificationTemplate } from '../../db/entities/index.ts';
import {
  type NotificationTemplatePreview,
  type NotificationTemplatesView,
  type PreviewNotificationTemplateRequest,
  TEMPLATE_KINDS,
  TEMPLATE_LANGUAGES,
  TEMPLATE_RULES,
  type UpdateNotificationTemplatesRequest,
} from '../../domain/notification-templates.ts';
import { defaultTexts, previewTemplate } from '../../notifications/templates.ts';
import { nowOf, type SessionClock } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import { type BackofficeActor, recordBackofficeEvent } from './audit-log.ts';

type TemplatesContext = DataContext & SessionClock;

/** Every kind in both languages, in the order of TEMPLATE_KINDS. */
export async function listNotificationTemplates(ctx: TemplatesContext): Promise<NotificationTemplatesView> {
  const rows = await ctx.em.find(NotificationTemplate, {}, { disableIdentityMap: true });
  const stored = new Map(rows.map((row) => [`${row.kind}/${row.language}`, row]));
  return {
    templates: TEMPLATE_KINDS.flatMap((kind) =>
      TEMPLATE_LANGUAGES.map((language) => {
        const rules = TEMPLATE_RULES[kind];
        const defaults = defaultTexts(kind, language);
        const row = stored.get(`${kind}/${language}`);
        return {
          kind,
          language,
          email: rules.email,
          short: rules.short,
          variables: [...rules.variables],
          requiredVariables: [...rules.required],
          customized: row !== undefined,
          subject: row ? (row.subject ?? null) : defaults.subject,
          body: row ? (row.body ?? null) : defaults.body,
          sms: row ? (row.sms ?? null) : defaults.sms,
          defaults,
          updatedAt: row ? row.updatedAt.toISOString() : null,
          updatedBy: row?.updatedByEmail ?? null,
        };
      }),
    ),
  };
}

/** Stores or resets every template of the request, all or none; the texts were checked by the schema. */
export async function updateNotificationTemplates(
  ctx: TemplatesContext,
  actor: BackofficeActor,
  input: UpdateNotificationTemplatesRequest,
): Promise<NotificationTemplatesView> {
  const now = nowOf(ctx);
  const updatedByEmail = actor.kind === 'platform_admin' ? actor.admin.email : null;
  await ctx.em.transactional(async (em) => {
    const unitOfWork = { ...ctx, em };
    for (const entry of input.templates) {
      const { kind, language } = entry;
      const row = await em.findOne(NotificationTemplate, { kind, language });
      if (entry.reset) {
        if (row) em.remove(row);
        recordBackofficeEvent(unitOfWork, actor, {
          action: 'notification_template.reset',
          details: { kind, language, wasCustomized: row !== null },
        });
        continue;
      }
      const rules = TEMPLATE_RULES[kind];
      const texts = {
        subject: rules.email ? (entry.subject ?? null) : null,
        body: rules.email ? (entry.body ?? null) : null,
        sms: rules.short ? (entry.sms ?? null) : null,
      };
      const before = row
        ? { subject: row.subject, body: row.body, sms: row.sms }
        : defaultTexts(kind, language);
      const changed = (['subject', 'body', 'sms'] as const).filter((field) => before[field] !== texts[field]);
      if (row) {
        Object.assign(row, texts, { updatedAt: now, updatedByEmail });
      } else {
        em.create(NotificationTemplate, { kind, language, ...texts, updatedAt: now, updatedByEmail });
      }
      recordBackofficeEvent(unitOfWork, actor, {
        action: 'notification_template.updated',
        details: { kind, language, changed, ...texts },
      });
    }
  });
  return listNotificationTemplates(ctx);
}

/** The texts given rendered with sample values, exactly as a message of the kind would be. */
export function previewNotificationTemplate(
  input: PreviewNotificationTemplateRequest,
): NotificationTemplatePreview {
  return previewTemplate(input.kind, input.language, input);
}

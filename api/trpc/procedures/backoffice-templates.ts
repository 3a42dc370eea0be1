// The platform backoffice's notification templates (docs/backoffice.md, "Notification templates"): the
// specification's GET and PUT /api/backoffice/notification-templates, and an additive preview. Every route
// needs a platform administrator's backoffice session; every change is recorded in the backoffice audit log.
import {
  NotificationTemplatePreview,
  NotificationTemplatesView,
  PreviewNotificationTemplateRequest,
  UpdateNotificationTemplatesRequest,
} from '../../../domain/notification-templates.ts';
import {
  listNotificationTemplates,
  previewNotificationTemplate,
  updateNotificationTemplates,
} from '../../../services/backoffice/notification-templates.ts';
import { procedure, router } from '../init.ts';
import { backofficeActorOf, backofficeRoute } from './backoffice-actor.ts';

const RULES =
  'Each message kind has an email (subject and body), a short text for SMS and WhatsApp, or both, in English ' +
  'and in Hebrew, with named variables such as {title} and {link}. A text may use only its kind’s variables ' +
  '(`variables`), and the body and short text must carry the kind’s `requiredVariables` (the link, or the ' +
  'code). Stored texts are used from the next message on; without them the built-in texts are.';

export const backofficeTemplatesRouter = router({
  list: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/notification-templates', {
        summary: 'Every message kind’s texts in English and Hebrew, as used now',
        description: `${RULES} \`customized: false\`: the built-in texts (also given as \`defaults\`).`,
      }),
    )
    .output(NotificationTemplatesView)
    .query(({ ctx }) => listNotificationTemplates(ctx.services)),

  update: procedure
    .meta(
      backofficeRoute('PUT', '/api/backoffice/notification-templates', {
        summary: 'Store or reset the texts of one or more message kinds',
        description:
          `${RULES} Each entry names a kind and a language with its texts, or \`reset: true\` to use the ` +
          'built-in texts again. All entries are stored, or none (a 400 names each refused field).',
      }),
    )
    .input(UpdateNotificationTemplatesRequest)
    .output(NotificationTemplatesView)
    .mutation(({ ctx, input }) => updateNotificationTemplates(ctx.services, backofficeActorOf(ctx), input)),

  preview: procedure
    .meta(
      backofficeRoute('POST', '/api/backoffice/notification-templates/preview', {
        summary: 'Render texts with sample values, as a message would be (additive)',
        description: `${RULES} Nothing is stored; the same checks as a PUT apply.`,
      }),
    )
    .input(PreviewNotificationTemplateRequest)
    .output(NotificationTemplatePreview)
    .mutation(({ input }) => previewNotificationTemplate(input)),
});

// A message kind's texts in one language as a platform administrator stored them (migration 0026,
// docs/backoffice.md "Notification templates"); without a row, the built-in texts are used.
import { defineEntity, p } from '@mikro-orm/core';

export const NotificationTemplateSchema = defineEntity({
  name: 'NotificationTemplate',
  tableName: 'notification_template',
  properties: {
    kind: p.string().primary(),
    language: p.string().primary(),
    subject: p.text().nullable(),
    body: p.text().nullable(),
    sms: p.text().nullable(),
    updatedAt: p.datetime(),
    updatedByEmail: p.string().nullable(),
  },
});
export class NotificationTemplate extends NotificationTemplateSchema.class {}
NotificationTemplateSchema.setClass(NotificationTemplate);

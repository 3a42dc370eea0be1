// A notification development and test captured instead of sending it (services/notifications/
// dev-capture.ts). Never written in production.
import { defineEntity, p } from '@mikro-orm/core';

export const DevNotificationSchema = defineEntity({
  name: 'DevNotification',
  tableName: 'dev_notification',
  properties: {
    id: p.uuid().primary(),
    kind: p.string(),
    channel: p.string(),
    to: p.string().fieldName('to_address'),
    subject: p.text().nullable(),
    body: p.text(),
    signingLink: p.text().nullable(),
    otpCode: p.string().nullable(),
    envelopeId: p.uuid().nullable(),
    recipientId: p.uuid().nullable(),
    organizationId: p.uuid().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export class DevNotification extends DevNotificationSchema.class {}
DevNotificationSchema.setClass(DevNotification);

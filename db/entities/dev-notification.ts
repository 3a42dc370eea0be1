// A notification development and test captured instead of sending it (services/notifications/
// dev-capture.ts). Never written in production.
import { defineEntity, p } from '@mikro-orm/core';
import { createdAtColumn, uuidKey } from './columns.ts';

export const DevNotificationSchema = defineEntity({
  name: 'DevNotification',
  tableName: 'dev_notification',
  properties: {
    ...uuidKey(),
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
    ...createdAtColumn(),
  },
});
export class DevNotification extends DevNotificationSchema.class {}
DevNotificationSchema.setClass(DevNotification);

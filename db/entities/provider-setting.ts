// A notification provider's settings as a platform administrator saved them (migration 0025,
// docs/backoffice.md "Providers"): its settings in clear, its secret encrypted; never logged.
import { defineEntity, p } from '@mikro-orm/core';

export const NotificationProviderSettingSchema = defineEntity({
  name: 'NotificationProviderSetting',
  tableName: 'notification_provider_setting',
  properties: {
    /** `smtp`, `sms` or `whatsapp`. */
    kind: p.string().primary(),
    settings: p.json<Record<string, unknown>>(),
    /** The SMTP password or the Twilio auth token, encrypted (config/secrets-encryption.ts); null: none. */
    secretEncrypted: p.text().nullable(),
    updatedAt: p.datetime(),
    updatedByEmail: p.string().nullable(),
  },
});
export class NotificationProviderSetting extends NotificationProviderSettingSchema.class {}
NotificationProviderSettingSchema.setClass(NotificationProviderSetting);

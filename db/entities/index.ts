// Every entity MikroORM maps; the schema itself comes from db/migrations.
import {
  AccountTokenSchema,
  AppUserSchema,
  LoginThrottleSchema,
  MfaBackupCodeSchema,
  PasskeySchema,
  RoleSchema,
  SecurityEventSchema,
  TeamSchema,
  UserSessionSchema,
} from './account.ts';
import {
  BackofficeAuditEventSchema,
  PlatformAdminAllowedDomainSchema,
  PlatformAdminCodeSchema,
  PlatformAdminIpAllowlistEntrySchema,
  PlatformAdminSchema,
  PlatformAdminSessionSchema,
} from './backoffice.ts';
import { ContactSchema } from './contact.ts';
import { SmsCreditGrantSchema } from './credits.ts';
import { DevNotificationSchema } from './dev-notification.ts';
import { AuditEventSchema, EnvelopeFieldValueSchema, EnvelopeSchema, RecipientSchema } from './envelope.ts';
import { NotificationSchema } from './notification.ts';
import { NotificationTemplateSchema } from './notification-template.ts';
import { OAuthAccessTokenSchema, OAuthClientSchema, OAuthClientSecretSchema } from './oauth-client.ts';
import { OrganizationSchema, PlanSchema } from './organization.ts';
import { OtpCodeSchema, SignerSessionSchema } from './otp.ts';
import { NotificationProviderSettingSchema } from './provider-setting.ts';
import { SandboxEnvelopeSchema } from './sandbox-envelope.ts';
import { SigningLinkSchema } from './signing-link.ts';
import { OrganizationSsoSchema, SsoDomainSchema, SsoSignInSchema } from './sso.ts';
import { UserStampSchema, UserStampVersionSchema } from './stamp.ts';
import { StoredFileSchema } from './stored-file.ts';
import { TemplateFieldSchema, TemplateRoleSchema, TemplateSchema } from './template.ts';
import { UserNotificationPreferenceSchema, UserNotificationSchema } from './user-notification.ts';
import { WebhookDeliveryAttemptSchema, WebhookDeliverySchema, WebhookEndpointSchema } from './webhook.ts';

export * from './account.ts';
export * from './backoffice.ts';
export * from './contact.ts';
export * from './credits.ts';
export * from './dev-notification.ts';
export * from './envelope.ts';
export * from './notification.ts';
export * from './notification-template.ts';
export * from './oauth-client.ts';
export * from './organization.ts';
export * from './otp.ts';
export * from './provider-setting.ts';
export * from './sandbox-envelope.ts';
export * from './signing-link.ts';
export * from './sso.ts';
export * from './stamp.ts';
export * from './stored-file.ts';
export * from './template.ts';
export * from './user-notification.ts';
export * from './webhook.ts';

export const entities = [
  PlanSchema,
  OrganizationSchema,
  OAuthClientSchema,
  OAuthClientSecretSchema,
  OAuthAccessTokenSchema,
  StoredFileSchema,
  TemplateSchema,
  TemplateRoleSchema,
  TemplateFieldSchema,
  EnvelopeSchema,
  RecipientSchema,
  AuditEventSchema,
  EnvelopeFieldValueSchema,
  SandboxEnvelopeSchema,
  SigningLinkSchema,
  OtpCodeSchema,
  SignerSessionSchema,
  DevNotificationSchema,
  NotificationSchema,
  WebhookEndpointSchema,
  WebhookDeliverySchema,
  WebhookDeliveryAttemptSchema,
  RoleSchema,
  TeamSchema,
  AppUserSchema,
  MfaBackupCodeSchema,
  PasskeySchema,
  UserSessionSchema,
  AccountTokenSchema,
  LoginThrottleSchema,
  SecurityEventSchema,
  ContactSchema,
  UserStampSchema,
  UserStampVersionSchema,
  PlatformAdminSchema,
  PlatformAdminSessionSchema,
  PlatformAdminCodeSchema,
  PlatformAdminAllowedDomainSchema,
  PlatformAdminIpAllowlistEntrySchema,
  BackofficeAuditEventSchema,
  SmsCreditGrantSchema,
  NotificationProviderSettingSchema,
  NotificationTemplateSchema,
  UserNotificationSchema,
  UserNotificationPreferenceSchema,
  OrganizationSsoSchema,
  SsoDomainSchema,
  SsoSignInSchema,
];

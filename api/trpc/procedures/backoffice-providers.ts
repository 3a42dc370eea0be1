// The platform backoffice's notification providers (docs/backoffice.md, "Providers"): the specification's
// /api/backoffice/smtp, /sms and /whatsapp routes with their test sends. Every route needs a platform
// administrator's backoffice session; every change and test send is recorded in the backoffice audit log
// (never a secret).
import {
  ProviderTestResult,
  SmtpSettingsView,
  TestSmsSettingsRequest,
  TestSmtpSettingsRequest,
  TestWhatsAppSettingsRequest,
  TwilioSettingsView,
  UpdateSmsSettingsRequest,
  UpdateSmtpSettingsRequest,
  UpdateWhatsAppSettingsRequest,
} from '../../../domain/backoffice-providers.ts';
import {
  smtpSettings,
  testProvider,
  twilioChannelSettings,
  updateSmtpSettings,
  updateTwilioChannelSettings,
} from '../../../services/backoffice/providers.ts';
import { procedure, router } from '../init.ts';
import { backofficeActorOf, backofficeRoute } from './backoffice-actor.ts';

const PRECEDENCE =
  'Settings saved here win over the environment variables (docs/notifications.md), which stay the bootstrap, ' +
  'and apply to the next message without a restart. `source` says which the server uses now.';
const SECRET_RULE =
  'The secret is write-only: absent keeps the stored one, null removes it, a string replaces it; it is ' +
  'stored encrypted and never answered (`…Set` says whether there is one).';
const TEST_RULE =
  'Sends one test message through what the server uses now and answers what the provider said: `sent` and ' +
  'its answer (the SMTP reply, Twilio’s status), or `sent: false` and why it refused (never a secret). In ' +
  'development and test, without a provider the message goes to the development capture.';

export const backofficeProvidersRouter = router({
  smtp: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/smtp', {
        summary: 'The SMTP server email goes through, and where its settings come from',
        description: PRECEDENCE,
      }),
    )
    .output(SmtpSettingsView)
    .query(({ ctx }) => smtpSettings(ctx.services)),

  updateSmtp: procedure
    .meta(
      backofficeRoute('PUT', '/api/backoffice/smtp', {
        summary: 'Set the SMTP server',
        description: `${PRECEDENCE} ${SECRET_RULE}`,
      }),
    )
    .input(UpdateSmtpSettingsRequest)
    .output(SmtpSettingsView)
    .mutation(({ ctx, input }) => updateSmtpSettings(ctx.services, backofficeActorOf(ctx), input)),

  testSmtp: procedure
    .meta(
      backofficeRoute('POST', '/api/backoffice/smtp/test', {
        summary: 'Send a test email',
        description: TEST_RULE,
      }),
    )
    .input(TestSmtpSettingsRequest)
    .output(ProviderTestResult)
    .mutation(({ ctx, input }) => testProvider(ctx.services, backofficeActorOf(ctx), 'smtp', input.to)),

  sms: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/sms', {
        summary: 'The Twilio account and sender SMS go through, and where they come from',
        description: PRECEDENCE,
      }),
    )
    .output(TwilioSettingsView)
    .query(({ ctx }) => twilioChannelSettings(ctx.services, 'sms')),

  updateSms: procedure
    .meta(
      backofficeRoute('PUT', '/api/backoffice/sms', {
        summary: 'Set the SMS provider (Twilio)',
        description: `${PRECEDENCE} ${SECRET_RULE}`,
      }),
    )
    .input(UpdateSmsSettingsRequest)
    .output(TwilioSettingsView)
    .mutation(({ ctx, input }) =>
      updateTwilioChannelSettings(ctx.services, backofficeActorOf(ctx), 'sms', input),
    ),

  testSms: procedure
    .meta(
      backofficeRoute('POST', '/api/backoffice/sms/test', {
        summary: 'Send a test SMS',
        description: `${TEST_RULE} A test SMS uses no organization’s credits.`,
      }),
    )
    .input(TestSmsSettingsRequest)
    .output(ProviderTestResult)
    .mutation(({ ctx, input }) => testProvider(ctx.services, backofficeActorOf(ctx), 'sms', input.to)),

  whatsapp: procedure
    .meta(
      backofficeRoute('GET', '/api/backoffice/whatsapp', {
        summary: 'The Twilio account and sender WhatsApp messages go through, and where they come from',
        description: PRECEDENCE,
      }),
    )
    .output(TwilioSettingsView)
    .query(({ ctx }) => twilioChannelSettings(ctx.services, 'whatsapp')),

  updateWhatsapp: procedure
    .meta(
      backofficeRoute('PUT', '/api/backoffice/whatsapp', {
        summary: 'Set the WhatsApp provider (Twilio)',
        description: `${PRECEDENCE} ${SECRET_RULE}`,
      }),
    )
    .input(UpdateWhatsAppSettingsRequest)
    .output(TwilioSettingsView)
    .mutation(({ ctx, input }) =>
      updateTwilioChannelSettings(ctx.services, backofficeActorOf(ctx), 'whatsapp', input),
    ),

  testWhatsapp: procedure
    .meta(
      backofficeRoute('POST', '/api/backoffice/whatsapp/test', {
        summary: 'Send a test WhatsApp message',
        description: `${TEST_RULE} A test message uses no organization’s credits.`,
      }),
    )
    .input(TestWhatsAppSettingsRequest)
    .output(ProviderTestResult)
    .mutation(({ ctx, input }) => testProvider(ctx.services, backofficeActorOf(ctx), 'whatsapp', input.to)),
});

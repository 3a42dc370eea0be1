// The backoffice's notification templates (docs/backoffice.md, "Notification templates"): every kind in English
// and Hebrew with its built-in texts, refusals of bad texts that name the field and store nothing, a preview
// with sample values, stored texts used by the next invitation (email through a real SMTP server, SMS through
// a Twilio stand-in) in both languages, by account emails and by the backoffice's own code email, a reset, and
// the audit log. On a database of its own: stored templates apply to every message of the platform, and the
// other files run next to this one.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNotificationActivities } from '../../activities/notifications.ts';
import { BackofficeAuditEvent, NotificationTemplate } from '../../db/entities/index.ts';
import { TEMPLATE_KINDS } from '../../domain/notification-templates.ts';
import { createPlatformAdmin } from '../../services/backoffice/platform-admins.ts';
import { asUser, callAs } from '../support/app-requests.ts';
import { type SignedInAdmin, signedInAdmin } from '../support/backoffice.ts';
import { draftTwoSignerEnvelope, TEST_ENCRYPTION_KEY, testConfig } from '../support/context.ts';
import { openIsolatedHarness } from '../support/isolated-database.ts';
import { signedInUser } from '../support/signed-in-user.ts';
import { type SmtpSink, startSmtpSink } from '../support/smtp-sink.ts';
import { startTwilioStandIn, type TwilioStandIn } from '../support/twilio-stand-in.ts';

const SMTP = { user: 'templates-user', password: 'templates-Secret-pa55' };
const ACCOUNT_SID = `AC${'0123456789abcdef'.repeat(2)}`;
const URL = '/api/backoffice/notification-templates';

let harness: Awaited<ReturnType<typeof openIsolatedHarness>>;
let admin: SignedInAdmin;
let smtp: SmtpSink;
let twilio: TwilioStandIn;

beforeAll(async () => {
  [smtp, twilio] = await Promise.all([startSmtpSink(SMTP), startTwilioStandIn()]);
  harness = await openIsolatedHarness(testConfig());
  admin = await signedInAdmin(harness, 'templates');
  // Stored providers: the worker's activity and the API's own emails both use them (backoffice-providers).
  const email = await asUser(harness.app, admin, 'PUT', '/api/backoffice/smtp', {
    host: '127.0.0.1',
    port: smtp.port,
    secure: false,
    user: SMTP.user,
    password: SMTP.password,
    from: 'sigil@sigil.example',
  });
  expect(email.statusCode, email.body).toBe(200);
  const sms = await asUser(harness.app, admin, 'PUT', '/api/backoffice/sms', {
    accountSid: ACCOUNT_SID,
    authToken: 'twilio-auth-token-templates',
    from: '+15005550006',
    apiBaseUrl: twilio.baseUrl,
  });
  expect(sms.statusCode, sms.body).toBe(200);
});
afterAll(async () => {
  await harness?.close();
  await Promise.all([smtp?.close(), twilio?.close()]);
});

interface TemplateView {
  kind: string;
  language: string;
  email: boolean;
  short: boolean;
  variables: string[];
  requiredVariables: string[];
  customized: boolean;
  subject: string | null;
  body: string | null;
  sms: string | null;
  defaults: { subject: string | null; body: string | null; sms: string | null };
  updatedBy: string | null;
}

const list = async () =>
  (await callAs<{ templates: TemplateView[] }>(harness.app, admin, 'GET', URL)).templates;
const storedRows = () => harness.ctx.orm.em.fork().find(NotificationTemplate, {});
const auditActions = async () =>
  (
    await harness.ctx.orm.em
      .fork()
      .find(BackofficeAuditEvent, { action: { $like: 'notification_template.%' } })
  ).length;

/** The invitation's texts a test stores: every variable of the kind, in the language's words. */
const INVITATION = {
  en: {
    subject: 'Please sign {title} for {organization}',
    body: 'Dear {name},\n\n{organization} needs your signature on {title}.\n\n{link}\n\nCustom small print.',
    sms: 'Custom SMS: sign {title} at {link}',
  },
  he: {
    subject: 'בקשה לחתום על {title} עבור {organization}',
    body: '{name} היקר/ה,\n\n{organization} זקוקים לחתימתך על {title}.\n\n{link}\n\nאותיות קטנות מותאמות.',
    sms: 'הודעה מותאמת: לחתימה על {title} בכתובת {link}',
  },
} as const;

describe('notification templates in the backoffice', () => {
  it('lists every kind in English and Hebrew with its built-in texts and variables', async () => {
    const templates = await list();
    expect(templates).toHaveLength(TEMPLATE_KINDS.length * 2);
    for (const kind of TEMPLATE_KINDS) {
      for (const language of ['en', 'he']) {
        const template = templates.find((entry) => entry.kind === kind && entry.language === language);
        expect(template, `${kind}/${language}`).toBeDefined();
        expect(template?.customized).toBe(false);
        expect({ subject: template?.subject, body: template?.body, sms: template?.sms }).toEqual(
          template?.defaults,
        );
        if (template?.email) expect(template.body).toMatch(/\S/);
        else expect(template?.body).toBeNull();
        if (template?.short) expect(template.sms).toMatch(/\S/);
        else expect(template?.sms).toBeNull();
        // The built-in texts satisfy the rules a stored one must.
        for (const required of template?.requiredVariables ?? []) {
          if (template?.email) expect(template.body).toContain(`{${required}}`);
          if (template?.short) expect(template.sms).toContain(`{${required}}`);
        }
      }
    }
    const invitation = templates.find((entry) => entry.kind === 'invitation' && entry.language === 'he');
    expect(invitation?.subject).toBe('{organization} שלחו לך את "{title}" לחתימה');
    expect(invitation?.variables).toEqual(['name', 'organization', 'title', 'link', 'deadline']);
    expect(invitation?.requiredVariables).toEqual(['link']);
  });

  it('refuses bad texts naming each field, and stores nothing', async () => {
    const cases: Array<{ entry: Record<string, unknown>; field: string; message: RegExp }> = [
      {
        entry: { kind: 'invitation', language: 'en', ...INVITATION.en, body: 'Hi {name}, sign {title}' },
        field: 'body.templates.0.body',
        message: /must contain \{link\}/,
      },
      {
        entry: { kind: 'invitation', language: 'en', ...INVITATION.en, sms: 'Sign {title}' },
        field: 'body.templates.0.sms',
        message: /must contain \{link\}/,
      },
      {
        entry: { kind: 'invitation', language: 'he', ...INVITATION.he, subject: 'שלום {nickname}' },
        field: 'body.templates.0.subject',
        message: /unknown variable \{nickname\}: invitation messages can use \{name\}/,
      },
      {
        entry: { kind: 'otp', language: 'en', sms: 'Your code is {code}', subject: 'Code' },
        field: 'body.templates.0.subject',
        message: /otp messages have no email subject/,
      },
      {
        entry: { kind: 'otp', language: 'en', sms: 'Your code expires in {minutes} minutes' },
        field: 'body.templates.0.sms',
        message: /must contain \{code\}/,
      },
      {
        entry: { kind: 'reset_password', language: 'en', subject: 'Reset' },
        field: 'body.templates.0.body',
        message: /body is required/,
      },
      {
        entry: { kind: 'completed', language: 'en', reset: true, subject: 'x' },
        field: 'body.templates.0.subject',
        message: /a reset takes no texts/,
      },
      {
        entry: { kind: 'invitation', language: 'en', ...INVITATION.en, subject: 'Sign\u0000 {title}' },
        field: 'body.templates.0.subject',
        message: /NUL/,
      },
      {
        entry: { kind: 'invitation', language: 'en', ...INVITATION.en, subject: 'Two\nlines' },
        field: 'body.templates.0.subject',
        message: /line break/,
      },
      {
        entry: { kind: 'invitation', language: 'fr', ...INVITATION.en },
        field: 'body.templates.0.language',
        message: /en or he/,
      },
      {
        entry: { kind: 'welcome', language: 'en', ...INVITATION.en },
        field: 'body.templates.0.kind',
        message: /kind must be one of/,
      },
    ];
    for (const { entry, field, message } of cases) {
      // A valid entry first: the refusal of the second stores neither.
      const refused = await asUser(harness.app, admin, 'PUT', URL, {
        templates: [
          { kind: 'cancelled', language: 'en', subject: 'Cancelled', body: 'Gone.', sms: 'Gone.' },
          entry,
        ],
      });
      expect(refused.statusCode, JSON.stringify(entry)).toBe(400);
      const { error } = refused.json() as {
        error: { code: string; details: Array<{ field: string; message: string }> };
      };
      expect(error.code).toBe('invalid_request');
      const detail = error.details.find((item) => item.field === field.replace('.0.', '.1.'));
      expect(detail?.message, JSON.stringify(error.details)).toMatch(message);
    }
    const twice = await asUser(harness.app, admin, 'PUT', URL, {
      templates: [
        { kind: 'otp', language: 'en', sms: '{code}' },
        { kind: 'otp', language: 'en', sms: 'Code {code}' },
      ],
    });
    expect(twice.statusCode).toBe(400);
    expect(JSON.stringify(twice.json())).toContain('body.templates.1.kind');
    expect(await storedRows()).toEqual([]);
    expect((await list()).every((template) => !template.customized)).toBe(true);
  });

  it('previews texts with sample values as a message would be, escaping HTML, without storing them', async () => {
    const preview = await callAs<{ subject: string; text: string; html: string; sms: string }>(
      harness.app,
      admin,
      'POST',
      `${URL}/preview`,
      {
        kind: 'invitation',
        language: 'he',
        subject: INVITATION.he.subject,
        body: `${INVITATION.he.body}\n\n<b>not bold</b> {deadline}`,
        sms: INVITATION.he.sms,
      },
    );
    expect(preview.subject).toBe('בקשה לחתום על הסכם שירותים 2027 עבור דוגמה בע"מ');
    expect(preview.text).toContain('דנה לוי היקר/ה,');
    expect(preview.text).toContain('https://sigil.example/sign/');
    expect(preview.html).toContain('<html lang="he" dir="rtl">');
    // The paragraph that is only {link} is the button, labelled as the built-in invitation's.
    expect(preview.html).toMatch(
      /<a href="https:\/\/sigil\.example\/sign\/[^"]+" style="display:inline-block/,
    );
    expect(preview.html).toContain('לעיון ולחתימה');
    expect(preview.html).toContain('&lt;b&gt;not bold&lt;/b&gt;');
    expect(preview.html).not.toContain('<b>');
    expect(preview.html).toContain('2027');
    expect(preview.sms).toBe(
      'הודעה מותאמת: לחתימה על הסכם שירותים 2027 בכתובת https://sigil.example/sign/sample-link-for-the-preview',
    );

    const otp = await callAs<Record<string, unknown>>(harness.app, admin, 'POST', `${URL}/preview`, {
      kind: 'otp',
      language: 'en',
      sms: 'Code {code}, {minutes} min',
    });
    expect(otp).toEqual({ subject: null, text: null, html: null, sms: 'Code 482913, 10 min' });

    const refused = await asUser(harness.app, admin, 'POST', `${URL}/preview`, {
      kind: 'otp',
      language: 'en',
      sms: 'No code {title}',
    });
    expect(refused.statusCode).toBe(400);
    expect(JSON.stringify(refused.json())).toMatch(/unknown variable \{title\}.*must contain \{code\}/);
    expect(await storedRows()).toEqual([]);
  });

  it('uses stored texts for the next invitation in each language, by email and SMS, until they are reset', async () => {
    const saved = await callAs<{ templates: TemplateView[] }>(harness.app, admin, 'PUT', URL, {
      templates: [
        { kind: 'invitation', language: 'en', ...INVITATION.en },
        { kind: 'invitation', language: 'he', ...INVITATION.he },
      ],
    });
    const english = saved.templates.find((entry) => entry.kind === 'invitation' && entry.language === 'en');
    expect(english).toMatchObject({ customized: true, ...INVITATION.en, updatedBy: admin.admin.email });

    const draft = await draftTwoSignerEnvelope(harness.ctx, {
      title: 'Lease 7',
      recipients: [
        { roleName: 'Client', fullName: 'Sam Cohen', email: 'sam@client.example', language: 'en' },
        {
          roleName: 'Provider',
          fullName: 'נועה בר',
          email: 'noa@provider.example',
          phone: '+972501234567',
          language: 'he',
        },
      ],
    });
    const { sendNotification } = createNotificationActivities({
      orm: harness.ctx.orm,
      config: {
        env: 'test',
        publicBaseUrl: 'https://sign.sigil.example',
        secretsEncryptionKey: TEST_ENCRYPTION_KEY,
      },
    });
    const invite = (recipientId: string, channel?: 'Email' | 'Sms') =>
      sendNotification({
        notificationId: randomUUID(),
        organizationId: draft.organizationId,
        envelopeId: draft.envelopeId,
        kind: 'invitation',
        recipientId,
        ...(channel ? { channel } : {}),
      });

    const before = smtp.received.length;
    expect(await invite(draft.first.id)).toMatchObject({ status: 'sent', provider: 'smtp' });
    expect(await invite(draft.second.id, 'Email')).toMatchObject({ status: 'sent', provider: 'smtp' });
    const [en, he] = (await smtp.waitFor(before + 2)).slice(before);
    expect(en?.parsed.subject).toMatch(/^Please sign Lease 7 for /);
    expect(en?.parsed.text).toContain('Dear Sam Cohen,');
    expect(en?.parsed.text).toMatch(/https:\/\/sign\.sigil\.example\/sign\/\S+/);
    expect(en?.parsed.text).toContain('Custom small print.');
    expect(en?.parsed.html).toContain('lang="en" dir="ltr"');
    expect(he?.parsed.subject).toMatch(/^בקשה לחתום על Lease 7 עבור /);
    expect(he?.parsed.text).toContain('נועה בר היקר/ה,');
    expect(he?.parsed.text).toMatch(/https:\/\/sign\.sigil\.example\/sign\/\S+/);
    expect(he?.parsed.html).toContain('lang="he" dir="rtl"');

    const smsBefore = twilio.requests.length;
    expect(await invite(draft.second.id, 'Sms')).toMatchObject({ status: 'sent', provider: 'twilio' });
    const [sms] = twilio.requests.slice(smsBefore);
    expect(sms?.form.Body).toMatch(
      /^הודעה מותאמת: לחתימה על Lease 7 בכתובת https:\/\/sign\.sigil\.example\/sign\/\S+$/,
    );

    // Reset the English one: the next English invitation is the built-in one; the Hebrew one stays.
    const reset = await callAs<{ templates: TemplateView[] }>(harness.app, admin, 'PUT', URL, {
      templates: [{ kind: 'invitation', language: 'en', reset: true }],
    });
    expect(
      reset.templates.find((entry) => entry.kind === 'invitation' && entry.language === 'en'),
    ).toMatchObject({ customized: false, subject: '{organization} sent you "{title}" to sign' });
    expect(
      reset.templates.find((entry) => entry.kind === 'invitation' && entry.language === 'he')?.customized,
    ).toBe(true);
    const afterReset = smtp.received.length;
    await invite(draft.first.id);
    const [builtIn] = (await smtp.waitFor(afterReset + 1)).slice(afterReset);
    expect(builtIn?.parsed.subject).toMatch(/ sent you "Lease 7" to sign$/);
    await asUser(harness.app, admin, 'PUT', URL, {
      templates: [{ kind: 'invitation', language: 'he', reset: true }],
    });
  });

  it('uses stored texts for account emails and for the backoffice’s own sign-in code', async () => {
    await callAs(harness.app, admin, 'PUT', URL, {
      templates: [
        {
          kind: 'reset_password',
          language: 'en',
          subject: 'New password for {email}',
          body: 'Hi {name},\n\nChoose a new password here: {link}\n\n{organization}',
        },
        {
          kind: 'platform_admin_code',
          language: 'he',
          subject: 'קוד: {code}',
          body: 'שלום {name},\n\nהקוד שלך הוא {code} ל-{minutes} דקות.',
        },
      ],
    });
    const user = await signedInUser(harness, { role: 'owner' });
    const before = smtp.received.length;
    const forgot = await harness.app.inject({
      method: 'POST',
      url: '/api/auth/forgot-password',
      headers: { origin: 'http://localhost:3000' },
      payload: { email: user.email },
    });
    expect(forgot.statusCode, forgot.body).toBe(200);
    const [reset] = (await smtp.waitFor(before + 1)).slice(before);
    expect(reset?.parsed.subject).toBe(`New password for ${user.email}`);
    expect(reset?.parsed.text).toMatch(
      /Choose a new password here: http:\/\/localhost:3000\/app\/reset-password\?token=\S+/,
    );
    // A link inside a paragraph is a link in the HTML.
    expect(reset?.parsed.html).toMatch(
      /<a href="http:\/\/localhost:3000\/app\/reset-password\?token=[^"]+" dir="ltr"/,
    );

    const { password } = await createPlatformAdmin(
      { em: harness.ctx.orm.em.fork() },
      { kind: 'operator_cli' },
      { email: `he-admin@${admin.admin.email.split('@')[1]}`, fullName: 'מנהלת עברית' },
    );
    const codeBefore = smtp.received.length;
    const otp = await harness.app.inject({
      method: 'POST',
      url: '/api/backoffice/platform-admins/otp',
      headers: { origin: 'http://localhost:3000' },
      payload: { email: `he-admin@${admin.admin.email.split('@')[1]}`, password, language: 'he' },
    });
    expect(otp.statusCode, otp.body).toBe(200);
    const [code] = (await smtp.waitFor(codeBefore + 1)).slice(codeBefore);
    expect(code?.parsed.subject).toMatch(/^קוד: \d{6}$/);
    expect(code?.parsed.text).toMatch(/^שלום מנהלת עברית,\n\nהקוד שלך הוא \d{6} ל-10 דקות\./);
    expect(code?.parsed.html).toContain('dir="rtl"');

    // English, built in, when the page asks for English.
    const englishBefore = smtp.received.length;
    const english = await harness.app.inject({
      method: 'POST',
      url: '/api/backoffice/platform-admins/otp',
      headers: { origin: 'http://localhost:3000' },
      payload: { email: `he-admin@${admin.admin.email.split('@')[1]}`, password },
    });
    expect(english.statusCode, english.body).toBe(200);
    const [builtIn] = (await smtp.waitFor(englishBefore + 1)).slice(englishBefore);
    expect(builtIn?.parsed.subject).toBe('Your Sigil backoffice sign-in code');
    expect(builtIn?.parsed.text).toMatch(
      /Your code to sign in to the Sigil backoffice is \d{6}\. It works once, for 10 minutes\./,
    );
  });

  it('records every change and reset in the audit log with what changed', async () => {
    const before = await auditActions();
    await callAs(harness.app, admin, 'PUT', URL, {
      templates: [
        {
          kind: 'declined',
          language: 'en',
          subject: '{decliner} said no',
          body: 'Reason: {reason}',
          sms: 'No: {reason}',
        },
      ],
    });
    await callAs(harness.app, admin, 'PUT', URL, {
      templates: [{ kind: 'declined', language: 'en', reset: true }],
    });
    const events = await harness.ctx.orm.em
      .fork()
      .find(
        BackofficeAuditEvent,
        { action: { $like: 'notification_template.%' } },
        { orderBy: { occurredAt: 'desc' }, limit: 2 },
      );
    expect(await auditActions()).toBe(before + 2);
    const [resetEvent, updated] = events;
    expect(resetEvent).toMatchObject({
      action: 'notification_template.reset',
      actorEmail: admin.admin.email,
      details: { kind: 'declined', language: 'en', wasCustomized: true },
    });
    expect(updated).toMatchObject({
      action: 'notification_template.updated',
      details: { kind: 'declined', language: 'en', changed: ['subject', 'body', 'sms'] },
    });
  });
});

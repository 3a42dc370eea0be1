// SMS credits: the plan's monthly SMS/WhatsApp messages, counted from the notification records and the credits
// held for messages not sent yet. A send that needs more than what is left is refused with nothing started; the
// usage summary shows what is left. (Simultaneous requests: limits-under-concurrency.test.ts.)
import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDemoPdf, DEMO_TEMPLATE_DEFINITION } from '../../scripts/demo/demo-pdf.ts';
import { createEnvelope } from '../../services/envelopes/create-envelope.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { AppError } from '../../services/errors.ts';
import { createOrganization } from '../../services/organizations/create-organization.ts';
import { createTemplate } from '../../services/templates/create-template.ts';
import { textMessagesNeeded } from '../../services/usage/sms-credits.ts';
import { usageSummary } from '../../services/usage/usage-summary.ts';
import { envelopeWorkflowId } from '../../workflows/contracts.ts';
import { openTestContext, type TestContext } from '../support/context.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await openTestContext();
});
afterAll(() => ctx.close());

/** A Professional organization (100 SMS credits a month) with `used` text messages already sent at `at`. */
async function professional(used: number, at = new Date()) {
  const organization = await createOrganization(ctx, {
    name: 'SMS org',
    plan: 'Professional',
    apiEnabled: true,
  });
  const template = await createTemplate(ctx, {
    organizationId: organization.id,
    pdf: await buildDemoPdf(),
    filename: 'demo.pdf',
    definition: DEMO_TEMPLATE_DEFINITION as never,
    publish: true,
  });
  await ctx.orm.em.fork().execute(
    `insert into notification (id, organization_id, kind, channel, to_address, language, provider, status, attempts,
                               created_at, last_attempt_at, sent_at)
     select gen_random_uuid(), ?, 'invitation', case when i % 2 = 0 then 'Sms' else 'WhatsApp' end, '+972501234567',
            'en', 'twilio', 'sent', 1, ?, ?, ?
       from generate_series(1, ?) as i`,
    [organization.id, at, at, at, used],
  );
  return { organizationId: organization.id, templateId: template.id };
}

async function smsDraft(org: { organizationId: string; templateId: string }) {
  return createEnvelope(ctx, {
    organizationId: org.organizationId,
    templateId: org.templateId,
    title: 'Texted agreement',
    recipients: [
      {
        roleName: 'Client',
        fullName: 'Dana Levi',
        phone: '+972501234567',
        deliveryChannel: 'Sms',
        authenticationMethod: 'OtpSms',
      },
      {
        roleName: 'Provider',
        fullName: 'Sam Cohen',
        email: 'sam@example.com',
        deliveryChannel: 'ManualLink',
      },
    ],
  });
}

describe('SMS credits', () => {
  it('counts one message per text invitation and per one-time-code recipient, none for Cc', () => {
    expect(
      textMessagesNeeded([
        { type: 'Signer', deliveryChannel: 'Sms', authenticationMethod: 'OtpSms' },
        { type: 'Signer', deliveryChannel: 'Email', authenticationMethod: 'OtpWhatsApp' },
        { type: 'Viewer', deliveryChannel: 'WhatsApp', authenticationMethod: 'SecureLink' },
        { type: 'Cc', deliveryChannel: 'Sms', authenticationMethod: 'SecureLink' },
        { type: 'Signer', deliveryChannel: 'ManualLink', authenticationMethod: 'SecureLink' },
      ]),
    ).toBe(4);
  });

  it('refuses a send that needs more credits than are left, starting nothing', async () => {
    const org = await professional(99);
    const usage = await usageSummary(ctx, org.organizationId);
    expect(usage).toMatchObject({
      smsCreditsIncluded: 100,
      smsCreditsUsedThisPeriod: 99,
      remainingSmsCredits: 1,
    });

    const envelope = await smsDraft(org);
    const error = await sendEnvelope(ctx, org.organizationId, envelope.id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ status: 409, code: 'sms_credits_exhausted' });
    expect((error as Error).message).toMatch(
      /needs 2 SMS\/WhatsApp messages and the organization has 1 of its 100/,
    );
    expect((await findEnvelope(ctx, org.organizationId, envelope.id)).envelope.status).toBe('Draft');
    await expect(
      ctx.temporal.workflow.getHandle(envelopeWorkflowId(envelope.id)).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('sends when enough are left; last month’s messages do not count', async () => {
    const lastMonth = new Date();
    lastMonth.setUTCDate(1);
    lastMonth.setUTCMonth(lastMonth.getUTCMonth() - 1);
    const org = await professional(100, lastMonth);
    expect((await usageSummary(ctx, org.organizationId)).remainingSmsCredits).toBe(100);
    const envelope = await smsDraft(org);
    const state = await sendEnvelope(ctx, org.organizationId, envelope.id);
    expect(state.status).toBe('Sent');
    // The send holds a credit for the SMS invitation and one for the first code: 98 left at once.
    expect(await usageSummary(ctx, org.organizationId)).toMatchObject({ remainingSmsCredits: 98 });
    // The invitation by SMS (captured in test) spends its held credit once it is sent; the code's stays held.
    const deadline = Date.now() + 20_000;
    while ((await usageSummary(ctx, org.organizationId)).smsCreditsUsedThisPeriod !== 1) {
      if (Date.now() > deadline) throw new Error('the SMS invitation never used a credit');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await usageSummary(ctx, org.organizationId)).toMatchObject({
      smsCreditsUsedThisPeriod: 1,
      smsCreditsHeld: 1,
      remainingSmsCredits: 98,
    });
  });
});

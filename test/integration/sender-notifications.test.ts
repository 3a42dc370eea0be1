// Sender notifications (issue 33, docs/notifications.md "Sender notifications") on real PostgreSQL and the
// Temporal test environment's workflows: an envelope completed, declined, cancelled by someone else or expired
// tells the user who sent it exactly once (and the team's or the organization's administrators by the
// organization's setting; never a user of another organization); the sender's own cancel tells no one;
// `envelope.expiring_soon` and `recipient.delivery_failed`, projected directly, are recorded with their details,
// once under a retried projection and not at all when the projection's transaction rolls back. The outbox sweep
// emails them in the user's language (captured), respects the preferences, and sends one daily digest, tested
// with an injected clock. The routes: the list and unread count, mark read, mark all read, preferences and the
// organization's setting, with authentication, tenant isolation and refused input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProjectionActivities } from '../../activities/projection.ts';
import { AppUser, DevNotification, UserNotification } from '../../db/entities/index.ts';
import { completeRecipient } from '../../services/envelopes/complete-recipient.ts';
import { createEnvelope, type EnvelopeSender } from '../../services/envelopes/create-envelope.ts';
import { declineRecipient } from '../../services/envelopes/decline-recipient.ts';
import { findEnvelope } from '../../services/envelopes/find-envelope.ts';
import { sendEnvelope } from '../../services/envelopes/send-envelope.ts';
import { sendSenderNotificationEmails } from '../../services/notifications/send-sender-notification-emails.ts';
import { type EnvelopeTransition, envelopeWorkflowId } from '../../workflows/contracts.ts';
import { type ApiHarness, openApiHarness } from '../support/api.ts';
import { asUser, callAs, expectError, expectJson } from '../support/app-requests.ts';
import { createOrganizationWithTemplate, TWO_SIGNERS } from '../support/context.ts';
import { type SignedInUser, signedInUser } from '../support/signed-in-user.ts';

let harness: ApiHarness;
let organizationId: string;
let templateId: string;
let owner: SignedInUser;
let administrator: SignedInUser;
let hebrewSender: SignedInUser;
let englishSender: SignedInUser;
let stranger: SignedInUser;
let strangerTemplate: string;
let sales: string;

const senderOf = (user: SignedInUser, teamId: string | null): EnvelopeSender => ({
  userId: user.user.id,
  teamId,
});

async function draft(
  sender: EnvelopeSender,
  options: { title: string; expiresAt?: string; organization?: string; template?: string },
) {
  const envelope = await createEnvelope(
    harness.ctx,
    {
      organizationId: options.organization ?? organizationId,
      templateId: options.template ?? templateId,
      title: options.title,
      recipients: TWO_SIGNERS,
      ...(options.expiresAt ? { expiresAt: options.expiresAt } : {}),
    },
    sender,
  );
  return envelope.id;
}

async function sent(sender: EnvelopeSender, options: Parameters<typeof draft>[1]): Promise<string> {
  const id = await draft(sender, options);
  await sendEnvelope(harness.ctx, options.organization ?? organizationId, id);
  return id;
}

async function recipientsOf(envelopeId: string, organization = organizationId) {
  return (await findEnvelope(harness.ctx, organization, envelopeId)).recipients;
}

async function completed(
  sender: EnvelopeSender,
  title: string,
  organization = organizationId,
  template = templateId,
) {
  const id = await sent(sender, { title, organization, template });
  for (const recipient of await recipientsOf(id, organization)) {
    await completeRecipient(harness.ctx, organization, id, recipient.id);
  }
  await harness.ctx.temporal.workflow.getHandle(envelopeWorkflowId(id)).result();
  return id;
}

/** Waits until the envelope's status is projected (an Expired envelope's workflow stays open for its grace). */
async function reaches(id: string, status: string) {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    if ((await findEnvelope(harness.ctx, organizationId, id)).envelope.status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`envelope ${id} did not become ${status}`);
}

/** The notifications of an envelope as `user:kind`, sorted. */
async function toldOf(envelopeId: string): Promise<string[]> {
  const rows = await harness.ctx.orm.em.fork().find(UserNotification, { envelopeId });
  return rows.map((row) => `${row.userId}:${row.kind}`).sort();
}

const told = (user: SignedInUser, kind: string) => `${user.user.id}:${kind}`;

async function setNotifyAdministrators(value: string) {
  expectJson(
    await asUser(harness.app, owner, 'PUT', '/api/organization/notification-settings', {
      notifyAdministrators: value,
    }),
  );
}

async function capturedTo(email: string) {
  return harness.ctx.orm.em
    .fork()
    .find(DevNotification, { to: email, kind: 'sender_notification' }, { orderBy: { createdAt: 'asc' } });
}

beforeAll(async () => {
  harness = await openApiHarness();
  const made = await createOrganizationWithTemplate(harness.ctx);
  organizationId = made.organization.id;
  templateId = made.template.id;
  owner = await signedInUser(harness, { role: 'owner', organizationId, fullName: 'Olivia Owner' });
  sales = (await callAs<{ id: string }>(harness.app, owner, 'POST', '/api/teams', { name: 'Sales' })).id;
  const user = async (role: string, fullName: string, language: 'en' | 'he') => {
    const made = await signedInUser(harness, { role, organizationId, fullName });
    await harness.ctx.orm.em.fork().nativeUpdate(AppUser, { id: made.user.id }, { teamId: sales, language });
    return made;
  };
  administrator = await user('administrator', 'Adi Administrator', 'en');
  hebrewSender = await user('sender', 'חנה שולחת', 'he');
  englishSender = await user('sender', 'Ethan Sender', 'en');
  const other = await createOrganizationWithTemplate(harness.ctx);
  stranger = await signedInUser(harness, { role: 'owner', organizationId: other.organization.id });
  strangerTemplate = other.template.id;
});
afterAll(() => harness?.close());

describe('who is told', () => {
  it('tells the sender once of completed, declined, cancelled by someone else and expired; never of their own cancel', async () => {
    const A = senderOf(hebrewSender, sales);
    const B = senderOf(englishSender, sales);
    const done = await completed(A, 'Completed lease');

    const declined = await sent(B, { title: 'Declined quote' });
    const [decliner] = await recipientsOf(declined);
    await declineRecipient(harness.ctx, organizationId, declined, decliner?.id as string, {
      reason: 'The price is wrong',
    });
    await reaches(declined, 'Declined');

    const cancelledByOwner = await sent(A, { title: 'Cancelled by the owner' });
    expectJson(
      await asUser(harness.app, owner, 'POST', `/api/documents/${cancelledByOwner}/cancel`, {
        reason: 'Replaced',
      }),
    );
    await reaches(cancelledByOwner, 'Cancelled');

    const cancelledBySender = await sent(B, { title: 'Cancelled by its sender' });
    expectJson(
      await asUser(harness.app, englishSender, 'POST', `/api/documents/${cancelledBySender}/cancel`, {}),
    );
    await reaches(cancelledBySender, 'Cancelled');

    const expired = await sent(B, {
      title: 'Short deadline',
      expiresAt: new Date(Date.now() + 3000).toISOString(),
    });
    await reaches(expired, 'Expired');

    expect(await toldOf(done)).toEqual([told(hebrewSender, 'completed')]);
    expect(await toldOf(declined)).toEqual([told(englishSender, 'declined')]);
    expect(await toldOf(cancelledByOwner)).toEqual([told(hebrewSender, 'cancelled')]);
    expect(await toldOf(cancelledBySender)).toEqual([]);
    expect(await toldOf(expired)).toEqual([told(englishSender, 'expired')]);

    const [decline] = await harness.ctx.orm.em.fork().find(UserNotification, { envelopeId: declined });
    expect(decline?.details).toMatchObject({
      reason: 'The price is wrong',
      recipient_name: decliner?.fullName,
    });
    const [cancel] = await harness.ctx.orm.em.fork().find(UserNotification, { envelopeId: cancelledByOwner });
    expect(cancel?.details).toMatchObject({ reason: 'Replaced' });
  });

  it('tells the team’s or the organization’s administrators by the organization’s setting, and no other organization', async () => {
    const A = senderOf(hebrewSender, sales);
    await setNotifyAdministrators('team');
    const teamOnly = await completed(A, 'Team administrators');
    expect(await toldOf(teamOnly)).toEqual(
      [told(hebrewSender, 'completed'), told(administrator, 'completed')].sort(),
    );

    await setNotifyAdministrators('organization');
    const everyone = await completed(A, 'Organization administrators');
    expect(await toldOf(everyone)).toEqual(
      [told(hebrewSender, 'completed'), told(administrator, 'completed'), told(owner, 'completed')].sort(),
    );

    // The other organization's owner, an administrator there, hears of their own organization's envelopes only.
    const theirs = await completed(
      senderOf(stranger, null),
      'Theirs',
      stranger.organization.id,
      strangerTemplate,
    );
    expect(await toldOf(theirs)).toEqual([told(stranger, 'completed')]);
    const strangers = await harness.ctx.orm.em.fork().find(UserNotification, { userId: stranger.user.id });
    expect(strangers.map((row) => row.envelopeId)).toEqual([theirs]);
    await setNotifyAdministrators('none');
  });
});

describe('events projected directly (expiring soon, delivery failed)', () => {
  function transition(
    base: { envelopeId: string; ids: string[] },
    sequence: number,
    type: string,
    recipientId: string | null,
    data: Record<string, unknown>,
  ): EnvelopeTransition {
    return {
      envelopeId: base.envelopeId,
      organizationId,
      sequence,
      envelopeStatus: 'Sent',
      recipients: base.ids.map((id) => ({ id, status: 'InvitationSent' })),
      event: { type, recipientId, data },
      occurredAt: new Date().toISOString(),
    };
  }

  it('records them with their details, once under a retried projection', async () => {
    const { projectEnvelopeTransitions } = createProjectionActivities({ orm: harness.ctx.orm });
    const envelopeId = await draft(senderOf(englishSender, sales), { title: 'Projected directly' });
    const ids = (await recipientsOf(envelopeId)).map((recipient) => recipient.id);
    const base = { envelopeId, ids };
    const batch = [
      transition(base, 1, 'envelope.sent', null, {}),
      transition(base, 2, 'recipient.delivery_failed', ids[0] as string, {
        kind: 'invitation',
        failure_type: 'ProviderRejected',
        message: '550 mailbox unavailable',
      }),
      transition(base, 3, 'envelope.delivery_failed', null, { recipient_ids: [ids[0]] }),
      transition(base, 4, 'envelope.expiring_soon', null, { expires_at: '2027-01-15T15:30:00.000Z' }),
    ];
    await projectEnvelopeTransitions(batch);
    await projectEnvelopeTransitions(batch);

    const rows = await harness.ctx.orm.em
      .fork()
      .find(UserNotification, { envelopeId }, { orderBy: { kind: 'asc' } });
    expect(rows.map((row) => [row.userId, row.kind])).toEqual([
      [englishSender.user.id, 'delivery_failed'],
      [englishSender.user.id, 'expiring_soon'],
    ]);
    expect(rows[0]?.details).toEqual({
      recipient_id: ids[0],
      recipient_name: TWO_SIGNERS[0]?.fullName,
      channel: 'ManualLink',
      reason: '550 mailbox unavailable',
      failure_type: 'ProviderRejected',
    });
    expect(rows[1]?.details).toMatchObject({ expires_at: '2027-01-15T15:30:00.000Z' });
  });

  it('records nothing when the projection’s transaction rolls back', async () => {
    const { projectEnvelopeTransitions } = createProjectionActivities({ orm: harness.ctx.orm });
    const envelopeId = await draft(senderOf(englishSender, sales), { title: 'Rolled back' });
    const ids = (await recipientsOf(envelopeId)).map((recipient) => recipient.id);
    const base = { envelopeId, ids };
    const batch = [
      transition(base, 1, 'recipient.delivery_failed', ids[0] as string, { message: 'bounced' }),
      // A NUL PostgreSQL refuses: the whole batch, the notification of the first with it, is rolled back.
      transition(base, 2, 'envelope.expiring_soon', null, { expires_at: 'x\u0000' }),
    ];
    await expect(projectEnvelopeTransitions(batch)).rejects.toThrow(/SQLSTATE/);
    expect(await toldOf(envelopeId)).toEqual([]);
  });
});

describe('emails', () => {
  it('emails each notification in the user’s language with the document page, once, and not a kind switched off', async () => {
    const sweep = { em: harness.ctx.orm.em, config: harness.ctx.config };
    // What the tests before left waiting goes out first, so what follows counts this test's emails only.
    await sendSenderNotificationEmails(sweep);
    expectJson(
      await asUser(harness.app, englishSender, 'PUT', '/api/me/notification-preferences', {
        email: { declined: false },
      }),
    );
    const hebrew = await completed(senderOf(hebrewSender, sales), 'חוזה שכירות');
    const declined = await sent(senderOf(englishSender, sales), { title: 'Not wanted by email' });
    const [decliner] = await recipientsOf(declined);
    await declineRecipient(harness.ctx, organizationId, declined, decliner?.id as string, { reason: 'No' });
    await reaches(declined, 'Declined');
    const english = await completed(senderOf(englishSender, sales), 'English NDA');
    const before = {
      he: (await capturedTo(hebrewSender.email)).length,
      en: (await capturedTo(englishSender.email)).length,
    };

    await sendSenderNotificationEmails(sweep);
    await sendSenderNotificationEmails(sweep);

    const toHebrew = (await capturedTo(hebrewSender.email)).slice(before.he);
    expect(toHebrew.map((row) => row.subject)).toEqual(['הושלם: חוזה שכירות']);
    expect(toHebrew[0]?.body).toContain(`http://localhost:3000/app/documents/${hebrew}`);
    expect(toHebrew[0]?.body).toContain(`http://localhost:3000/api/documents/${hebrew}/files/final-pdf`);
    const toEnglish = (await capturedTo(englishSender.email)).slice(before.en);
    expect(toEnglish.map((row) => row.subject)).toEqual(['Completed: English NDA']);
    expect(toEnglish[0]?.body).toContain(`http://localhost:3000/app/documents/${english}`);

    const [off] = await harness.ctx.orm.em.fork().find(UserNotification, { envelopeId: declined });
    expect(off?.emailState).toBe('off');
    // Switched off for email, still listed in the app.
    const list = expectJson<{ notifications: { envelope: { id: string } }[] }>(
      await asUser(harness.app, englishSender, 'GET', '/api/me/notifications'),
    );
    expect(list.notifications.map((item) => item.envelope.id)).toContain(declined);
    expectJson(
      await asUser(harness.app, englishSender, 'PUT', '/api/me/notification-preferences', {
        email: { declined: true },
      }),
    );
  });

  it('sends one daily digest instead, once 24 hours have passed', async () => {
    const digestUser = await signedInUser(harness, {
      role: 'sender',
      organizationId,
      fullName: 'Dora Digest',
    });
    expect(
      expectJson(
        await asUser(harness.app, digestUser, 'PUT', '/api/me/notification-preferences', {
          dailyDigest: true,
        }),
      ),
    ).toMatchObject({ dailyDigest: true, email: { completed: true, declined: true } });
    const first = await completed(senderOf(digestUser, null), 'Digest one');
    const second = await completed(senderOf(digestUser, null), 'Digest two');
    const sweep = (hours: number) =>
      sendSenderNotificationEmails({
        em: harness.ctx.orm.em,
        config: harness.ctx.config,
        clock: () => new Date(Date.now() + hours * 3_600_000),
      });

    await sweep(1);
    expect(await capturedTo(digestUser.email)).toEqual([]);
    await sweep(25);
    await sweep(26);
    const emails = await capturedTo(digestUser.email);
    expect(emails.map((row) => row.subject)).toEqual(['Your documents today: 2 updates']);
    expect(emails[0]?.body).toContain('Completed: Digest one');
    expect(emails[0]?.body).toContain(`http://localhost:3000/app/documents/${second}`);
    expect(emails[0]?.body).toContain(`http://localhost:3000/app/documents/${first}`);
    const rows = await harness.ctx.orm.em.fork().find(UserNotification, { userId: digestUser.user.id });
    expect(rows.map((row) => row.emailState)).toEqual(['sent', 'sent']);
  });
});

describe('the routes', () => {
  it('list with the unread count, mark one read, mark all read', async () => {
    const user = await signedInUser(harness, { role: 'sender', organizationId, fullName: 'Rina Reader' });
    const one = await completed(senderOf(user, null), 'Read me');
    const two = await completed(senderOf(user, null), 'Read me too');
    const list = expectJson<{
      notifications: { id: string; kind: string; envelope: { id: string; title: string }; read: boolean }[];
      unreadCount: number;
    }>(await asUser(harness.app, user, 'GET', '/api/me/notifications'));
    expect(list.unreadCount).toBe(2);
    expect(list.notifications.map((item) => [item.envelope.id, item.kind, item.read])).toEqual([
      [two, 'completed', false],
      [one, 'completed', false],
    ]);
    const first = list.notifications[1]?.id as string;
    expect(
      expectJson(await asUser(harness.app, user, 'POST', `/api/me/notifications/${first}/read`)),
    ).toEqual({
      unreadCount: 1,
    });
    expect(
      expectJson(await asUser(harness.app, user, 'POST', `/api/me/notifications/${first}/read`)),
    ).toEqual({
      unreadCount: 1,
    });
    expect(expectJson(await asUser(harness.app, user, 'POST', '/api/me/notifications/read-all'))).toEqual({
      unreadCount: 0,
    });
    const after = expectJson<{ notifications: { read: boolean }[]; unreadCount: number }>(
      await asUser(harness.app, user, 'GET', '/api/me/notifications?limit=1'),
    );
    expect(after).toMatchObject({ unreadCount: 0, notifications: [{ read: true }] });
  });

  it('keeps every notification its user’s own: another user’s and another organization’s are not found', async () => {
    const user = await signedInUser(harness, { role: 'sender', organizationId, fullName: 'Noa Own' });
    await completed(senderOf(user, null), 'Only mine');
    const [mine] = await harness.ctx.orm.em.fork().find(UserNotification, { userId: user.user.id });
    const id = mine?.id as string;
    expectError(
      await asUser(harness.app, englishSender, 'POST', `/api/me/notifications/${id}/read`),
      404,
      'not_found',
    );
    expectError(
      await asUser(harness.app, stranger, 'POST', `/api/me/notifications/${id}/read`),
      404,
      'not_found',
    );
    expectJson(await asUser(harness.app, stranger, 'POST', '/api/me/notifications/read-all'));
    const theirs = expectJson<{ notifications: { id: string }[] }>(
      await asUser(harness.app, stranger, 'GET', '/api/me/notifications'),
    );
    expect(theirs.notifications.map((item) => item.id)).not.toContain(id);
    const still = await harness.ctx.orm.em.fork().findOneOrFail(UserNotification, { id });
    expect(still.readAt).toBeNull();
    expectError(await asUser(harness.app, null, 'GET', '/api/me/notifications'), 401, 'unauthorized');
    expectError(
      await asUser(harness.app, null, 'POST', `/api/me/notifications/${id}/read`),
      401,
      'unauthorized',
    );
  });

  it('refuse bad preferences and settings with 400 and change nothing; the setting needs settings:manage', async () => {
    const before = expectJson(
      await asUser(harness.app, englishSender, 'GET', '/api/me/notification-preferences'),
    );
    for (const body of [
      { email: { invitation: false } },
      { dailyDigest: 'yes' },
      { email: { completed: 1 } },
    ]) {
      expectError(
        await asUser(harness.app, englishSender, 'PUT', '/api/me/notification-preferences', body),
        400,
        'invalid_request',
      );
    }
    expect(
      expectJson(await asUser(harness.app, englishSender, 'GET', '/api/me/notification-preferences')),
    ).toEqual(before);
    expectError(
      await asUser(harness.app, owner, 'PUT', '/api/organization/notification-settings', {
        notifyAdministrators: 'everyone',
      }),
      400,
      'invalid_request',
    );
    expectError(
      await asUser(harness.app, englishSender, 'PUT', '/api/organization/notification-settings', {
        notifyAdministrators: 'organization',
      }),
      403,
      'forbidden',
    );
    expect(
      expectJson(await asUser(harness.app, owner, 'GET', '/api/organization/notification-settings')),
    ).toEqual({ notifyAdministrators: 'none' });
  });
});

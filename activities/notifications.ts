import type { EntityManager } from '@mikro-orm/postgresql';
import { ApplicationFailure } from '@temporalio/common';
import type { BouncesConfig, NotificationsConfig, SigilEnv } from '../config/config.ts';
import { lazySecretsKey } from '../config/encryption-key.ts';
import { Envelope, Notification, Organization, Recipient, StoredFile } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import { prepared, runPrepared } from '../db/prepared.ts';
import { insertSigningLinkIfAddressed } from '../db/signing-links.ts';
import { releaseMessageCredit, takeTextCredit } from '../db/usage-reservations.ts';
import { COMPLETED_EMAIL_ATTACHMENT_MAX_BYTES } from '../domain/account.ts';
import type { MessageChannel } from '../domain/vocabulary.ts';
import { bounceAddress } from '../notifications/bounce-address.ts';
import { notificationLanguage } from '../notifications/catalog.ts';
import { channelName, deliver, deliveryContext, recordAttempt, routeFor } from '../notifications/deliver.ts';
import { NotificationError, redactedMessage } from '../notifications/errors.ts';
import {
  type Branding,
  type Message,
  type MessageContent,
  renderEmail,
  renderShortText,
  senderName,
  signerAction,
} from '../notifications/messages.ts';
import type { EmailAttachment, OutgoingMessage, SentMessage } from '../notifications/providers.ts';
import { twilioStatusCallbackUrl } from '../notifications/status-callback.ts';
import { type StoredTexts, storedTemplate } from '../notifications/templates.ts';
import { documentFilename } from '../services/documents/download-document-file.ts';
import { createFileObjects } from '../storage/create-object-store.ts';
import type { FileObjects } from '../storage/file-objects.ts';
import type { SendNotificationRequest, SendNotificationResult } from '../workflows/notification-contracts.ts';
import { whileHeartbeating } from './projection.ts';

export interface NotificationActivityConfig {
  env: SigilEnv;
  /** Signing links are `{publicBaseUrl}/sign/<token>`. */
  publicBaseUrl: string;
  /**
   * The environment's providers; absent or null entries: none (captured in development and test). Providers a
   * platform administrator saved in the backoffice win over them (notifications/stored-providers.ts).
   */
  notifications?: NotificationsConfig;
  /** Opens the stored providers' secrets: SECRETS_ENCRYPTION_KEY, or the development key under DATA_DIR. */
  secretsEncryptionKey?: string | null;
  dataDir?: string;
  /** BOUNCE_DOMAIN: emails to recipients carry a VERP return path on it (notifications/bounce-address.ts). */
  bounces?: Pick<BouncesConfig, 'domain'>;
}

interface Addressee {
  recipient: Recipient | null;
  name: string;
  email: string | null;
  phone: string | null;
  language: string;
  /** The channel messages go by unless the request names one; null: none (ManualLink, Api). */
  channel: MessageChannel | null;
  channelLabel: string;
}

export function createNotificationActivities(deps: {
  orm: Orm;
  config: NotificationActivityConfig;
  /** Stored files' bytes: the final PDF a `completed` email attaches; omitted: the PostgreSQL store only. */
  files?: FileObjects;
}) {
  const files = deps.files ?? createFileObjects({ kind: 'postgres' }, deps.orm.em);
  const secretsKey = lazySecretsKey({
    env: deps.config.env,
    dataDir: deps.config.dataDir ?? '.data',
    secretsEncryptionKey: deps.config.secretsEncryptionKey ?? null,
  });
  const base = deps.config.publicBaseUrl.replace(/\/+$/, '');

  const activities = {
    async sendNotification(request: SendNotificationRequest): Promise<SendNotificationResult> {
      const em = deps.orm.em.fork();
      // The notification (if an earlier attempt recorded it), the envelope, its organization and the recipient
      // in one statement, as managed entities of `em` (issue 19: one read where there were five).
      const [rows] = await runPrepared<MessageRows>(em, MESSAGE_ROWS, [
        request.notificationId,
        request.envelopeId,
        request.organizationId,
        request.recipientId ?? null,
      ]);
      const earlier = rows?.notification ? em.map(Notification, rows.notification as never) : null;
      if (earlier?.status === 'sent') {
        return {
          status: 'sent',
          notificationId: earlier.id,
          channel: earlier.channel as MessageChannel,
          provider: earlier.provider,
          providerMessageId: earlier.providerMessageId ?? null,
          attempts: earlier.attempts,
          alreadySent: true,
        };
      }
      if (!rows?.envelope || !rows.organization) {
        throw invalid(
          `Envelope ${request.envelopeId} does not exist in organization ${request.organizationId}.`,
        );
      }
      const envelope = em.map(Envelope, rows.envelope as never);
      const organization = em.map(Organization, rows.organization as never);
      const recipient = rows.recipient ? em.map(Recipient, rows.recipient as never) : null;
      const addressee = addresseeOf(request, envelope, organization, recipient);
      const channel = request.channel ?? addressee.channel;
      if (!channel) {
        return {
          status: 'skipped',
          notificationId: request.notificationId,
          reason: `${addressee.name}'s delivery channel is ${addressee.channelLabel}: no message is sent.`,
        };
      }
      const to = channel === 'Email' ? addressee.email : addressee.phone;
      const language = notificationLanguage(addressee.language);
      let provider = 'none';
      const record = (outcome: Parameters<typeof recordAttempt>[1]['outcome']) =>
        recordAttempt(em, {
          id: request.notificationId,
          organizationId: envelope.organizationId,
          envelopeId: envelope.id,
          recipientId: addressee.recipient?.id ?? null,
          kind: request.kind,
          channel,
          to,
          language,
          provider,
          outcome,
        });

      let sent: SentMessage;
      let secrets: string[] = [];
      try {
        if (!to) {
          throw new NotificationError(
            'NoAddress',
            `${addressee.name} has no ${channel === 'Email' ? 'email address' : 'phone number'}: the ${channelName(channel)} message cannot be sent.`,
            false,
          );
        }
        const delivery = await deliveryContext(em, { ...deps.config, secretsKey });
        secrets = delivery.secrets;
        const route = routeFor(delivery, channel);
        provider = route.type === 'capture' ? 'dev-capture' : route.provider.name;
        // A text message takes an SMS credit first: the one its envelope holds for it, or one of the month's.
        if (channel !== 'Email') {
          const took = await takeTextCredit(em, {
            organizationId: envelope.organizationId,
            envelopeId: envelope.id,
            recipientId: addressee.recipient?.id ?? null,
            purpose: request.kind === 'invitation' ? 'invitation' : 'message',
            notificationId: request.notificationId,
          });
          if (!took) {
            throw new NotificationError(
              'NoCredits',
              `The organization has no SMS credits left this month: the ${channelName(channel)} ${request.kind} to ${addressee.name} was not sent.`,
              false,
            );
          }
        }
        const branding: Branding = {
          organizationName: organization.name,
          senderDisplayName: organization.senderDisplayName ?? null,
          emailFooter: organization.emailFooter ?? null,
        };
        const address = { kind: channel === 'Email' ? 'email' : 'phone', to } as const;
        const { content, link } = await contentOf(em, request, envelope, addressee, base, address);
        // The organization may have the `completed` email carry the final PDF (docs/administration.md).
        const finalPdf =
          content.kind === 'completed' && channel === 'Email' && organization.attachFinalPdfToCompletedEmail
            ? await finalPdfAttachment(em, files, envelope)
            : null;
        if (content.kind === 'completed' && finalPdf) content.finalPdf = finalPdf.note;
        const message = {
          language,
          branding,
          recipientName: addressee.name,
          envelopeTitle: envelope.title,
          ...content,
        } as Message;
        const template = await storedTemplate(em, message.kind, language);
        const outgoing = outgoingMessage(
          message,
          template,
          channel,
          to,
          branding,
          organization.replyToEmail ?? null,
        );
        if (outgoing.email && finalPdf?.attachment) outgoing.email.attachments = [finalPdf.attachment];
        // Twilio reports what becomes of a text message to the API (api/routes/twilio-status.ts).
        if (channel !== 'Email' && route.type === 'provider') {
          outgoing.statusCallback = twilioStatusCallbackUrl(base, request.notificationId);
        }
        // A recipient's email bounces to its own VERP address, so the bounce names this message.
        const bounceDomain = deps.config.bounces?.domain;
        if (outgoing.email && addressee.recipient && bounceDomain) {
          outgoing.email.returnPath = bounceAddress(request.notificationId, bounceDomain);
        }
        sent = await deliver(em, route, outgoing, {
          kind: request.kind,
          signingLink: link,
          envelopeId: envelope.id,
          recipientId: addressee.recipient?.id ?? null,
          organizationId: envelope.organizationId,
        });
      } catch (error) {
        if (error instanceof AddressChanged) {
          // Corrected or delegated since this message was asked for: it is not sent, and it fails nobody (the
          // new address gets its own invitation). Its credit goes back.
          await record({ status: 'failed', error: error.message });
          if (channel !== 'Email') await releaseMessageCredit(em, request.notificationId);
          return { status: 'skipped', notificationId: request.notificationId, reason: error.message };
        }
        const failure = error instanceof NotificationError ? error : null;
        await record({
          status: 'failed',
          error: failure ? failure.message : redactedMessage(error, secrets),
        });
        // A message that failed for good gives its credit back; one that will be tried again keeps it.
        if (failure && !failure.retryable && channel !== 'Email') {
          await releaseMessageCredit(em, request.notificationId);
        }
        if (!failure) throw error;
        throw ApplicationFailure.create({
          type: failure.type,
          message: failure.message,
          nonRetryable: !failure.retryable,
        });
      }
      // Should this record fail, the activity fails and its retry sends again: at least once, never lost.
      const row = await record({ status: 'sent', providerMessageId: sent.providerMessageId });
      return {
        status: 'sent',
        notificationId: row.id,
        channel,
        provider: sent.provider,
        providerMessageId: sent.providerMessageId,
        attempts: row.attempts,
        alreadySent: false,
      };
    },
  };
  return {
    // Heartbeats every second while it works: with the heartbeat timeout the workflow sets, a message whose
    // worker died is retried within seconds, not after the start-to-close timeout (notification-contracts.ts).
    sendNotification: (request: SendNotificationRequest): Promise<SendNotificationResult> =>
      whileHeartbeating(() => activities.sendNotification(request)),
  };
}

export type NotificationActivities = ReturnType<typeof createNotificationActivities>;

/**
 * The notification, the envelope (of the request's organization), the organization and the request's recipient,
 * each as `row_to_json` gives it (null when there is none).
 */
const MESSAGE_ROWS = prepared(
  'notification_message_rows',
  `select (select row_to_json(n) from notification n where n.id = request.notification_id) as notification,
          row_to_json(e) as envelope,
          row_to_json(o) as organization,
          (select row_to_json(r) from recipient r
            where r.id = request.recipient_id and r.envelope_id = e.id) as recipient
     from (select ?::uuid as notification_id, ?::uuid as envelope_id, ?::uuid as organization_id,
                  ?::uuid as recipient_id) request
     left join organization o on o.id = request.organization_id
     left join envelope e on e.id = request.envelope_id and e.organization_id = request.organization_id`,
);

interface MessageRows {
  notification: Record<string, unknown> | null;
  envelope: Record<string, unknown> | null;
  organization: Record<string, unknown> | null;
  recipient: Record<string, unknown> | null;
}

function addresseeOf(
  request: SendNotificationRequest,
  envelope: Envelope,
  organization: Organization,
  recipient: Recipient | null,
): Addressee {
  if (request.kind === 'declined' || request.kind === 'cancelled') {
    const sender = request.sender ?? {};
    const email = sender.email?.trim() || organization.replyToEmail || null;
    return {
      recipient: null,
      name:
        sender.fullName?.trim() ||
        senderName({
          organizationName: organization.name,
          senderDisplayName: organization.senderDisplayName,
        }),
      email,
      phone: null,
      language: sender.language || organization.defaultLanguage,
      // No address of the sender's and no reply-to address: nobody to tell, so the notice is skipped (an
      // organization that wants these notices sets its reply-to address).
      channel: email ? 'Email' : null,
      channelLabel: email ? 'Email' : 'none (no sender address and no reply-to address)',
    };
  }
  if (!request.recipientId) throw invalid(`A ${request.kind} message needs a recipientId.`);
  if (!recipient)
    throw invalid(`Recipient ${request.recipientId} is not a recipient of envelope ${envelope.id}.`);
  const channel = recipient.deliveryChannel;
  return {
    recipient,
    name: recipient.fullName,
    email: recipient.email ?? null,
    phone: recipient.phone ?? null,
    language: recipient.language ?? organization.defaultLanguage,
    channel: channel === 'Email' || channel === 'Sms' || channel === 'WhatsApp' ? channel : null,
    channelLabel: channel,
  };
}

async function contentOf(
  em: EntityManager,
  request: SendNotificationRequest,
  envelope: Envelope,
  addressee: Addressee,
  base: string,
  address: LinkAddress,
): Promise<{ content: MessageContent; link: string | null }> {
  const recipient = addressee.recipient;
  const issueSigningLink = (to: Recipient, of: Envelope, at: string) =>
    issueAddressedLink(em, to, of, at, address, addressee.name);
  switch (request.kind) {
    case 'invitation':
    case 'reminder': {
      const action = recipient ? signerAction(recipient.type) : null;
      if (!recipient || !action) {
        throw new NotificationError(
          'InvalidNotification',
          `A ${recipient?.type ?? 'sender'} is not asked to act: no ${request.kind} is sent to ${addressee.name}.`,
          false,
        );
      }
      const link = await issueSigningLink(recipient, envelope, base);
      return {
        content: { kind: request.kind, action, link, expiresAt: envelope.expiresAt ?? null },
        link,
      };
    }
    case 'completed': {
      if (!recipient) throw new NotificationError('InvalidNotification', 'No recipient to notify.', false);
      const link = request.documentsUrl ?? (await issueSigningLink(recipient, envelope, base));
      return { content: { kind: 'completed', link }, link };
    }
    case 'declined': {
      const decliner = request.declinedByRecipientId
        ? await em.findOne(Recipient, { id: request.declinedByRecipientId, envelopeId: envelope.id })
        : null;
      if (!decliner) {
        throw new NotificationError(
          'InvalidNotification',
          'A decline notice needs declinedByRecipientId: a recipient of the envelope.',
          false,
        );
      }
      return {
        content: {
          kind: 'declined',
          declinedBy: decliner.fullName,
          reason: request.reason?.trim() || '-',
          envelopeId: envelope.id,
        },
        link: null,
      };
    }
    case 'cancelled':
      return {
        content: { kind: 'cancelled', reason: request.reason ?? null, envelopeId: envelope.id },
        link: null,
      };
    case 'expiring_soon': {
      const action = recipient ? signerAction(recipient.type) : null;
      if (!recipient || !action || !envelope.expiresAt) {
        throw new NotificationError(
          'InvalidNotification',
          `No deadline warning applies to ${addressee.name}: ${envelope.expiresAt ? 'they are not asked to act' : 'the envelope has no deadline'}.`,
          false,
        );
      }
      const link = await issueSigningLink(recipient, envelope, base);
      const daysLeft = Math.max(1, Math.trunc(request.daysLeft ?? 1));
      return {
        content: { kind: 'expiring_soon', action, link, expiresAt: envelope.expiresAt, daysLeft },
        link,
      };
    }
    case 'expired':
      if (!recipient) throw new NotificationError('InvalidNotification', 'No recipient to notify.', false);
      return { content: { kind: 'expired', envelopeId: envelope.id }, link: null };
  }
}

/**
 * The final PDF for a `completed` email: the file while it is at most COMPLETED_EMAIL_ATTACHMENT_MAX_BYTES
 * (10 MB), else only its size for the email to say why it is not attached; null when the envelope has no final
 * PDF or its bytes were purged. The size is read first, so a large file's bytes are never loaded.
 */
async function finalPdfAttachment(
  em: EntityManager,
  files: FileObjects,
  envelope: Envelope,
): Promise<{
  note: { attached: true } | { attached: false; size: string };
  attachment?: EmailAttachment;
} | null> {
  if (!envelope.finalPdfFileId) return null;
  const where = { id: envelope.finalPdfFileId, organizationId: envelope.organizationId };
  const file = await em.findOne(StoredFile, where);
  if (!file || file.purgedAt) return null;
  if (file.sizeBytes > COMPLETED_EMAIL_ATTACHMENT_MAX_BYTES) {
    return { note: { attached: false, size: megabytes(file.sizeBytes) } };
  }
  const content = await files.readAll(file.sha256);
  return {
    note: { attached: true },
    attachment: {
      filename: documentFilename(envelope.title, 'final-pdf'),
      contentType: 'application/pdf',
      content,
    },
  };
}

/** A size in MB with one decimal ("12.4 MB"), as both languages write it. */
function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function outgoingMessage(
  message: Message,
  template: StoredTexts | null,
  channel: MessageChannel,
  to: string,
  branding: Branding,
  replyTo: string | null,
): OutgoingMessage {
  if (channel !== 'Email') return { channel, to, text: renderShortText(message, template) };
  const email = renderEmail(message, template);
  return {
    channel,
    to,
    text: email.text,
    email: {
      subject: email.subject,
      html: email.html,
      fromName: senderName(branding),
      replyTo,
      language: email.language,
    },
  };
}

/** Where the message goes: the recipient's email or phone, as it was read for this message. */
type LinkAddress = { kind: 'email' | 'phone'; to: string | null };

/** The recipient's address changed between reading it and issuing the message's link. */
class AddressChanged extends Error {}

/**
 * A new signing link for the recipient (db/signing-links.ts), stored by one statement before the message that
 * carries it goes out, and only while the recipient's address is still the one the message goes to: a message
 * asked for before a correction or delegation changed it issues no link for the old address (the change ends
 * the links it finds in the same transaction, and this statement waits for it). Earlier links stay valid.
 */
async function issueAddressedLink(
  em: EntityManager,
  recipient: Recipient,
  envelope: Envelope,
  base: string,
  address: LinkAddress,
  name: string,
): Promise<string> {
  const link = await insertSigningLinkIfAddressed(
    em,
    { recipientId: recipient.id, envelopeId: envelope.id, organizationId: envelope.organizationId },
    address,
    base,
  );
  if (link === null) {
    throw new AddressChanged(
      `Not sent: ${name}'s ${address.kind === 'email' ? 'email address' : 'phone number'} changed before this message went out (the new one gets a message of its own).`,
    );
  }
  return link;
}

function invalid(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'InvalidNotification', message, nonRetryable: true });
}

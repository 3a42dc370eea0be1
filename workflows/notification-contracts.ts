// The `sendNotification` activity's public surface: what a workflow asks for, what it gets back, the failure
// types it can meet and the activity options to call it with. Pure data, safe to import from workflow code;
// the activity is activities/notifications.ts and the whole design is docs/notifications.md.
import type { ActivityOptions } from '@temporalio/workflow';
import type { MessageChannel, NotificationKind } from '../domain/vocabulary.ts';

export interface SendNotificationRequest {
  /**
   * The message's id, chosen by the caller (in a workflow: `uuid4()`), the same on every retry. The activity
   * records each attempt under it and never sends again once an attempt succeeded.
   */
  notificationId: string;
  organizationId: string;
  envelopeId: string;
  kind: Exclude<NotificationKind, 'otp'>;
  /**
   * The addressee of `invitation`, `reminder`, `expiring_soon`, `expired` and `completed` (any recipient, `Cc`
   * included for `completed`). `invitation`, `reminder` and `expiring_soon` carry a fresh signing link of this
   * recipient.
   */
  recipientId?: string;
  /**
   * The addressee of `declined` and `cancelled`: the envelope's sender. Each part falls back to the
   * organization: its reply-to address, its sender display name, its default language.
   */
  sender?: { email?: string | null; fullName?: string | null; language?: string | null };
  /** Overrides the recipient's delivery channel (for example `Email` for a `ManualLink` recipient). */
  channel?: MessageChannel;
  /**
   * `completed`: where the recipient gets the completed documents. Default: a fresh signing link of the
   * recipient, which opens the signer page in its `completed` state.
   */
  documentsUrl?: string;
  /** `declined`: the recipient who declined and their reason. */
  declinedByRecipientId?: string;
  /** `declined` and `cancelled`: the reason given, if any. */
  reason?: string | null;
  /** `expiring_soon`: whole days left until the deadline (at least 1), as the workflow counted them. */
  daysLeft?: number;
}

export type SendNotificationResult =
  | {
      status: 'sent';
      notificationId: string;
      channel: MessageChannel;
      /** `smtp`, `twilio` or `dev-capture` (development and test without a provider). */
      provider: string;
      providerMessageId: string | null;
      /** Attempts it took, this one included; `alreadySent` when an earlier attempt had succeeded. */
      attempts: number;
      alreadySent: boolean;
    }
  | {
      /** The addressee's channel carries no message (`ManualLink`, `Api`): nothing was sent or recorded. */
      status: 'skipped';
      notificationId: string;
      reason: string;
    };

/**
 * `ApplicationFailure` types the activity throws. Retryable: `ProviderUnavailable` (the provider failed or
 * could not be reached; Temporal retries). Non-retryable, can never succeed as asked: `NoProvider`
 * (production without a provider for the channel), `NoAddress` (no email or phone for the channel),
 * `ProviderRejected` (the provider refused the address or the message for good), `InvalidNotification`
 * (the request names no such envelope or recipient, or a message that does not apply to them), `NoCredits` (an
 * SMS or WhatsApp message and the organization has no SMS credit left; thrown as non-retryable).
 */
export const NOTIFICATION_FAILURE_TYPES = [
  'ProviderUnavailable',
  'NoProvider',
  'NoAddress',
  'ProviderRejected',
  'InvalidNotification',
  'NoCredits',
] as const;
export type NotificationFailureType = (typeof NOTIFICATION_FAILURE_TYPES)[number];

/**
 * How a workflow should call `sendNotification`: 8 attempts 15 s, 30 s, 1 min, 2 min, 4 min, 8 min and
 * 10 min apart (about 26 minutes), each bounded by the SMTP and Twilio timeouts. When the last attempt fails
 * (or a non-retryable one does at once) the recipient is `DeliveryFailed` (docs/notifications.md).
 */
export const NOTIFICATION_ACTIVITY_OPTIONS = {
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '15 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    maximumAttempts: 8,
    nonRetryableErrorTypes: ['NoProvider', 'NoAddress', 'ProviderRejected', 'InvalidNotification'],
  },
} satisfies ActivityOptions;

/**
 * The same with a heartbeat timeout: the activity heartbeats every second while it works, so a worker that dies
 * in the middle of a message is noticed within 5 s and the message is retried 15 s later, instead of only
 * after the 2-minute start-to-close timeout (which also kept a finished envelope's workflow open that long).
 * Runs reach it behind `patched('notification-heartbeat')` (workflows/envelope-run.ts).
 */
export const NOTIFICATION_ACTIVITY_OPTIONS_WITH_HEARTBEAT = {
  ...NOTIFICATION_ACTIVITY_OPTIONS,
  heartbeatTimeout: '5 seconds',
} satisfies ActivityOptions;

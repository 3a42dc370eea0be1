// Why a notification was not sent, and whether trying again can help. Providers turn their libraries'
// errors into these; the activity turns them into Temporal failures and the signer API into HTTP errors.
// Messages are redacted: never a password, token or authorization header, and bounded in length.
import type { NotificationFailureType } from '../workflows/notification-contracts.ts';

export class NotificationError extends Error {
  readonly type: NotificationFailureType;
  /** True when a later attempt may succeed (the provider failed or could not be reached). */
  readonly retryable: boolean;

  constructor(type: NotificationFailureType, message: string, retryable: boolean) {
    super(message);
    this.name = 'NotificationError';
    this.type = type;
    this.retryable = retryable;
  }
}

/** The longest error text kept in `notification.last_error` and in failure messages. */
export const MAX_ERROR_LENGTH = 500;

/**
 * An error's message with every given secret (and its `user:secret` Basic form) and the credentials of any
 * URL replaced, on one line and at most MAX_ERROR_LENGTH characters. Only the message is used: library error
 * objects may carry whole requests, headers included.
 */
export function redactedMessage(error: unknown, secrets: readonly string[] = []): string {
  let text = error instanceof Error ? error.message : String(error);
  const hidden = secrets.filter((secret) => secret.length >= 4);
  for (const secret of hidden) {
    text = text.split(secret).join('[redacted]');
    text = text.split(encodeURIComponent(secret)).join('[redacted]');
  }
  text = text
    .replace(/\b(Basic|Bearer)\s+[A-Za-z0-9+/=._-]+/gi, '$1 [redacted]')
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1[redacted]@')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH - 1)}…` : text;
}

// VERP (variable envelope return path): every email to a recipient leaves with the SMTP envelope sender
// `bounce+<notification id>@<BOUNCE_DOMAIN>`, so a bounce names the message it is about. Written by the
// sendNotification activity, read by the API process's bounce receiver (api/bounces/bounce-receiver.ts).

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const BOUNCE_ADDRESS = new RegExp(`^bounce\\+(${UUID})@([^@\\s]+)$`, 'i');

/** The VERP return path of a message. */
export function bounceAddress(notificationId: string, domain: string): string {
  return `bounce+${notificationId}@${domain}`;
}

/** The notification id a VERP address names, or null when the address is not one of this domain's. */
export function notificationIdOfBounceAddress(address: string, domain: string): string | null {
  const match = BOUNCE_ADDRESS.exec(address.trim());
  if (!match?.[1] || match[2]?.toLowerCase() !== domain.toLowerCase()) return null;
  return match[1].toLowerCase();
}

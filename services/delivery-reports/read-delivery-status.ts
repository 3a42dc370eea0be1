// Reads an RFC 3464 delivery status notification: a `multipart/report; report-type=delivery-status` message
// whose `message/delivery-status` part holds one block of per-message fields and a block per recipient
// (`Final-Recipient`, `Action`, `Status`, `Diagnostic-Code`). Parsed with mailparser (keepDeliveryStatus, so the
// part stays a part of its own instead of being appended to the text). Only `Action: failed` counts: `delayed`,
// `delivered`, `relayed` and `expanded` say the message may still arrive.
import { simpleParser } from 'mailparser';

export interface DeliveryStatusReport {
  /** The recipient the report is about (`Final-Recipient`, without its `rfc822;` type). */
  finalRecipient: string | null;
  /** The RFC 3463 status code, for example `5.1.1`. */
  status: string;
  /** The remote server's answer (`Diagnostic-Code`, without its `smtp;` type), when the report has one. */
  diagnostic: string | null;
}

/**
 * The failed recipient a DSN reports, or null when the message is not a DSN (an auto-reply to the return path)
 * or reports no failure.
 */
export async function readDeliveryStatus(raw: Buffer): Promise<DeliveryStatusReport | null> {
  const parsed = await simpleParser(raw, { keepDeliveryStatus: true, skipHtmlToText: true });
  const part = parsed.attachments.find(
    (attachment) =>
      attachment.contentType === 'message/delivery-status' ||
      attachment.contentType === 'message/global-delivery-status',
  );
  if (!part) return null;
  for (const fields of statusBlocks(part.content.toString('utf8')).slice(1)) {
    if (fields.get('action')?.toLowerCase() !== 'failed') continue;
    const status = fields.get('status') ?? '';
    if (!/^[45]\.\d{1,3}\.\d{1,3}$/.test(status)) continue;
    return {
      finalRecipient: withoutType(fields.get('final-recipient')),
      status,
      diagnostic: withoutType(fields.get('diagnostic-code')),
    };
  }
  return null;
}

/** The detail a failure is recorded with: "5.1.1 550 5.1.1 <x@y>: Recipient address rejected: User unknown". */
export function deliveryStatusDetail(report: DeliveryStatusReport): string {
  return report.diagnostic ? `${report.status} ${report.diagnostic}` : report.status;
}

/** The blocks of a delivery-status body (separated by blank lines), each as its fields, names in lower case. */
function statusBlocks(body: string): Map<string, string>[] {
  const blocks: Map<string, string>[] = [];
  for (const block of body.replace(/\r\n/g, '\n').split(/\n[ \t]*\n/)) {
    // Folded lines (RFC 5322) continue the field before them.
    const lines = block.replace(/\n[ \t]+/g, ' ').split('\n');
    const fields = new Map<string, string>();
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon <= 0) continue;
      const name = line.slice(0, colon).trim().toLowerCase();
      if (!fields.has(name)) fields.set(name, line.slice(colon + 1).trim());
    }
    if (fields.size > 0) blocks.push(fields);
  }
  return blocks;
}

/** `rfc822; a@b` → `a@b`; `smtp; 550 …` → `550 …`. */
function withoutType(value: string | undefined): string | null {
  if (!value) return null;
  const semicolon = value.indexOf(';');
  return (semicolon >= 0 ? value.slice(semicolon + 1) : value).trim() || null;
}

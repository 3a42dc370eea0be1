// A mail relay for tests that bounces, as a real one does: an SMTP server (`smtp-server`) that accepts every
// message for any address (a relay takes mail for later delivery), then, for each recipient whose mailbox it does
// not know, sends an RFC 3464 delivery status notification (multipart/report; report-type=delivery-status) to
// the message's return path (its MAIL FROM) by SMTP (nodemailer), with the null sender `<>`, to the server
// `bounceServer()` names — in the tests, Sigil's bounce receiver.
import { randomUUID } from 'node:crypto';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';

export interface RelayedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  raw: string;
}

export interface SentDsn {
  returnPath: string;
  finalRecipient: string;
  raw: string;
  /** The bounce server's answer to the DSN (its reply line), or its refusal. */
  outcome: Promise<
    { accepted: true; response: string } | { accepted: false; responseCode: number | undefined }
  >;
}

export interface BounceRelay {
  port: number;
  received: RelayedMail[];
  dsns: SentDsn[];
  /** Sends a DSN (again) to a return path, as the relay did: what the bounce server answered. */
  sendDsn(returnPath: string, raw: string): SentDsn['outcome'];
  close(): Promise<void>;
}

export const RELAY_DOMAIN = 'relay.sigil.test';

export async function startBounceRelay(options: {
  /** Mailboxes that exist; mail to any other address bounces. */
  knownMailboxes: string[];
  bounceServer: () => { host: string; port: number };
}): Promise<BounceRelay> {
  const received: RelayedMail[] = [];
  const dsns: SentDsn[] = [];
  const known = new Set(options.knownMailboxes.map((address) => address.toLowerCase()));

  const sendDsn = async (returnPath: string, raw: string): SentDsn['outcome'] => {
    const { host, port } = options.bounceServer();
    const transport = nodemailer.createTransport({ host, port, secure: false, ignoreTLS: true });
    try {
      const info = await transport.sendMail({ envelope: { from: '', to: [returnPath] }, raw });
      return { accepted: true, response: String(info.response) };
    } catch (error) {
      return { accepted: false, responseCode: (error as { responseCode?: number }).responseCode };
    } finally {
      transport.close();
    }
  };

  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        const envelopeTo = session.envelope.rcptTo.map((rcpt) => rcpt.address);
        received.push({ envelopeFrom, envelopeTo, raw });
        // Accepted now; the bounce follows, as from a relay that tried the next hop later.
        callback();
        if (!envelopeFrom) return;
        for (const to of envelopeTo.filter((address) => !known.has(address.toLowerCase()))) {
          const dsn = deliveryStatusNotification(envelopeFrom, to, raw);
          dsns.push({
            returnPath: envelopeFrom,
            finalRecipient: to,
            raw: dsn,
            outcome: sendDsn(envelopeFrom, dsn),
          });
        }
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : 0,
    received,
    dsns,
    sendDsn,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An RFC 3464 report that `to`'s mailbox is unknown, returning the original message's headers (RFC 6522). */
export function deliveryStatusNotification(returnPath: string, to: string, original: string): string {
  const boundary = `dsn-${randomUUID()}`;
  const headers = original.split(/\r?\n\r?\n/)[0] ?? '';
  const diagnostic = `550 5.1.1 <${to}>: Recipient address rejected: User unknown in virtual mailbox table`;
  return [
    `From: Mail Delivery System <MAILER-DAEMON@${RELAY_DOMAIN}>`,
    `To: <${returnPath}>`,
    'Subject: Undelivered Mail Returned to Sender',
    `Date: ${new Date().toUTCString()}`,
    `Message-ID: <${randomUUID()}@${RELAY_DOMAIN}>`,
    'Auto-Submitted: auto-replied',
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${boundary}"`,
    '',
    `--${boundary}`,
    'Content-Type: text/plain; charset=us-ascii',
    '',
    'Your message could not be delivered to one or more recipients.',
    '',
    `<${to}>: host mx.unknown.example said: ${diagnostic}`,
    '',
    `--${boundary}`,
    'Content-Type: message/delivery-status',
    '',
    `Reporting-MTA: dns; ${RELAY_DOMAIN}`,
    `Arrival-Date: ${new Date().toUTCString()}`,
    '',
    `Final-Recipient: rfc822; ${to}`,
    `Original-Recipient: rfc822; ${to}`,
    'Action: failed',
    'Status: 5.1.1',
    'Remote-MTA: dns; mx.unknown.example',
    // Folded, as relays write long diagnostics.
    `Diagnostic-Code: smtp; 550 5.1.1 <${to}>: Recipient address rejected:`,
    '    User unknown in virtual mailbox table',
    '',
    `--${boundary}`,
    'Content-Type: text/rfc822-headers',
    '',
    headers,
    '',
    `--${boundary}--`,
    '',
  ].join('\r\n');
}

// Sigil's own inbound SMTP server for bounces (docs/notifications.md "Bounces and carrier failures"): every
// email to a recipient leaves with the return path `bounce+<notification id>@<BOUNCE_DOMAIN>` (VERP), so a
// delivery status notification (RFC 3464) that a mail server sends back names the message it is about. This
// server accepts mail only for such an address whose message exists (anything else: 550), bounded in size
// (SIZE advertised; over it: 552), reads the DSN and hands a failure to recordDeliveryReport, which tells the
// envelope's workflow once. When the workflow cannot be reached the message is answered 451, so the sending
// server tries again later. Run by the API process when BOUNCE_SMTP_PORT is set (docs/architecture.md).
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';
import { Notification } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import { notificationIdOfBounceAddress } from '../../notifications/bounce-address.ts';
import type { ServiceConfig } from '../../services/context.ts';
import {
  deliveryStatusDetail,
  readDeliveryStatus,
} from '../../services/delivery-reports/read-delivery-status.ts';
import { recordDeliveryReport } from '../../services/delivery-reports/record-delivery-report.ts';

export interface BounceReceiverOptions {
  host: string;
  /** 0: a free port (tests). */
  port: number;
  /** The domain of the VERP addresses (BOUNCE_DOMAIN). */
  domain: string;
  /** The largest message taken (BOUNCE_MAX_MESSAGE_BYTES). */
  maxMessageBytes: number;
  orm: Orm;
  temporal: Client;
  config: ServiceConfig;
  logger: Logger;
}

export interface BounceReceiver {
  port: number;
  close(): Promise<void>;
}

/** Connections taken at once; more are refused with 421 until one closes. */
const MAX_CLIENTS = 100;

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

export async function startBounceReceiver(options: BounceReceiverOptions): Promise<BounceReceiver> {
  const { orm, logger } = options;
  const server = new SMTPServer({
    name: options.domain,
    banner: 'Sigil bounce receiver',
    // Mail servers deliver bounces without authentication; there is no certificate to offer STARTTLS with.
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: options.maxMessageBytes,
    // A bound on open connections too: bounces arrive a few at a time.
    maxClients: MAX_CLIENTS,
    logger: false,
    onRcptTo(address, _session, callback) {
      const id = notificationIdOfBounceAddress(address.address, options.domain);
      if (!id) {
        callback(smtpError(550, '5.1.1 No such mailbox: this server takes bounces of Sigil messages only'));
        return;
      }
      orm.em
        .fork()
        .count(Notification, { id })
        .then((count) => {
          callback(count > 0 ? undefined : smtpError(550, '5.1.1 No such mailbox: unknown message'));
        })
        .catch((error: unknown) => {
          logger.error({ err: error }, 'bounce receiver: the message could not be looked up');
          callback(smtpError(451, '4.3.0 Try again later'));
        });
    },
    onData(stream, session, callback) {
      const ids = session.envelope.rcptTo
        .map((rcpt) => notificationIdOfBounceAddress(rcpt.address, options.domain))
        .filter((id): id is string => id !== null);
      receive(stream, ids, options)
        .then(() => callback())
        .catch((error: Error) => callback(error));
    },
  });
  server.on('error', (error) => logger.warn({ err: error }, 'bounce receiver: connection error'));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  logger.info({ host: options.host, port, domain: options.domain }, 'bounce receiver listening');
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Reads one message (within the bound) and reports the failure it notifies for each of its addresses. */
async function receive(
  stream: SMTPServerDataStream,
  notificationIds: string[],
  options: BounceReceiverOptions,
): Promise<void> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Past the bound the rest is read and dropped (the client must finish its DATA), then refused.
    if (size <= options.maxMessageBytes) chunks.push(chunk);
  }
  if (stream.sizeExceeded || size > options.maxMessageBytes) {
    throw smtpError(552, `5.3.4 Message too big: at most ${options.maxMessageBytes} bytes`);
  }
  const report = await readDeliveryStatus(Buffer.concat(chunks));
  if (!report) {
    // An auto-reply or a delay notice to the return path: nothing failed.
    options.logger.info({ notificationIds }, 'bounce receiver: a message without a failure, ignored');
    return;
  }
  for (const notificationId of notificationIds) {
    try {
      const result = await recordDeliveryReport(
        { em: options.orm.em.fork(), temporal: options.temporal, config: options.config },
        { notificationId, outcome: 'failed', failureType: 'Bounced', detail: deliveryStatusDetail(report) },
      );
      options.logger.info({ notificationId, status: report.status, result }, 'bounce received');
    } catch (error) {
      options.logger.warn(
        { notificationId, err: error },
        'bounce receiver: the failure could not be reported yet; the sender is asked to try again',
      );
      throw smtpError(451, '4.3.0 Try again later');
    }
  }
}

// The chaos run's webhook endpoint: an HTTP server on 127.0.0.1 in the chaos process (it is never killed)
// that checks every delivery's signature with the endpoint secret and records it. It misbehaves on purpose,
// as real receivers do, so the retries are exercised: the first attempt of a few deliveries is refused
// (503), and for a few others the request is read and the connection dropped without an answer, the
// acknowledgement Sigil never sees, so the same delivery arrives again.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Random } from './random.ts';

export type ReceiptAnswer = 'acknowledged' | 'refused' | 'dropped';

export interface Receipt {
  deliveryId: string;
  /** The payload's `id`: the event. */
  eventId: string;
  type: string;
  envelopeId: string | null;
  data: Record<string, unknown>;
  receivedAt: number;
  signatureValid: boolean;
  answer: ReceiptAnswer;
}

export interface ReceiverOptions {
  random: Random;
  /** Share of deliveries whose first attempt is answered 503. */
  refuseShare: number;
  /** Share of deliveries whose first attempt is read and then dropped without an answer. */
  dropShare: number;
  /**
   * Self-check: acknowledge the n-th acknowledged delivery (1-based) but forget it, as a receiver that lost
   * an event would; the run's checks must then fail.
   */
  forgetAcknowledged?: number;
}

export interface ChaosReceiver {
  url: string;
  receipts: Receipt[];
  /** The endpoint's secret, known once the endpoint exists. */
  setSecret(secret: string): void;
  close(): Promise<void>;
}

function header(headers: IncomingHttpHeaders, name: string): string {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/** The receiver's own check of the documented rule: sha256= HMAC-SHA256 of `<timestamp>.<raw body>`. */
export function signatureValid(
  secret: string,
  timestamp: string,
  rawBody: Buffer,
  signature: string,
): boolean {
  const hex = /^sha256=([0-9a-f]{64})$/.exec(signature)?.[1];
  if (!hex || !/^\d+$/.test(timestamp)) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'));
}

export async function startChaosReceiver(options: ReceiverOptions): Promise<ChaosReceiver> {
  const receipts: Receipt[] = [];
  const seen = new Set<string>();
  let secret = '';
  let acknowledged = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      const deliveryId = header(req.headers, 'x-service-delivery');
      let payload: { id?: unknown; type?: unknown; data?: Record<string, unknown> } = {};
      try {
        payload = JSON.parse(rawBody.toString('utf8')) as typeof payload;
      } catch {
        // Recorded with what is known; the checks name it.
      }
      const data = payload.data && typeof payload.data === 'object' ? payload.data : {};
      const first = !seen.has(deliveryId);
      seen.add(deliveryId);
      let answer: ReceiptAnswer = 'acknowledged';
      if (first) {
        const draw = options.random();
        if (draw < options.refuseShare) answer = 'refused';
        else if (draw < options.refuseShare + options.dropShare) answer = 'dropped';
      }
      const receipt: Receipt = {
        deliveryId,
        eventId: typeof payload.id === 'string' ? payload.id : '',
        type: typeof payload.type === 'string' ? payload.type : header(req.headers, 'x-service-event'),
        envelopeId: typeof data.envelope_id === 'string' ? data.envelope_id : null,
        data,
        receivedAt: Date.now(),
        signatureValid: signatureValid(
          secret,
          header(req.headers, 'x-service-timestamp'),
          rawBody,
          header(req.headers, 'x-service-signature'),
        ),
        answer,
      };
      if (answer === 'acknowledged') {
        acknowledged += 1;
        if (acknowledged !== options.forgetAcknowledged) receipts.push(receipt);
      } else {
        receipts.push(receipt);
      }
      if (answer === 'dropped') {
        req.socket.destroy();
        return;
      }
      res.writeHead(answer === 'refused' ? 503 : 204, { 'content-type': 'text/plain' });
      res.end(answer === 'refused' ? 'chaos receiver: refused on purpose' : undefined);
    });
  });
  // Deliveries keep their connections open between requests; the server must not time them out first.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/sigil/events`,
    receipts,
    setSecret: (value) => {
      secret = value;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// A webhook receiver for tests: an HTTP server on 127.0.0.1 that records every request (raw body, headers,
// arrival time) and answers as the test tells it. Signatures are checked here with the test's own HMAC code,
// written from the specification's signature rule, not with Sigil's.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';

export interface ReceivedRequest {
  /** 0-based, in arrival order. */
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  rawBody: string;
  receivedAt: number;
  /** When the answer went out (unset while it is delayed or hanging). */
  answeredAt?: number;
}

/**
 * What to answer: a status (with an optional body, after an optional delay), or `hang` to never answer (a
 * timeout).
 */
export type ReceiverAnswer = { status: number; body?: string; delayMs?: number } | 'hang';

export interface WebhookReceiver {
  /** Base URL, e.g. http://127.0.0.1:43210 */
  url: string;
  received: ReceivedRequest[];
  /** Sets how the next requests are answered (default: 200). */
  answer(handler: (request: ReceivedRequest) => ReceiverAnswer): void;
  /** Resolves once `count` requests matching `filter` have arrived; rejects after `timeoutMs`. */
  waitFor(
    count: number,
    filter?: (request: ReceivedRequest) => boolean,
    timeoutMs?: number,
  ): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The receiver's side of the signature rule: `sha256=` + lowercase hex HMAC-SHA256 over
 * `<X-Service-Timestamp>.<raw body>`, keyed with the endpoint secret, compared in constant time.
 */
export function signatureMatches(
  secret: string,
  timestamp: string | undefined,
  rawBody: string,
  signature: string | undefined,
): boolean {
  if (!timestamp || !signature) return false;
  const match = /^sha256=([0-9a-f]{64})$/.exec(signature);
  if (!match?.[1]) return false;
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(timestamp, 'utf8');
  mac.update('.', 'utf8');
  mac.update(rawBody, 'utf8');
  return timingSafeEqual(mac.digest(), Buffer.from(match[1], 'hex'));
}

/** Whether the request's X-Service-Signature (or, with `previous`, X-Service-Signature-Previous) verifies. */
export function verifies(request: ReceivedRequest, secret: string, previous = false): boolean {
  return signatureMatches(
    secret,
    header(request.headers, 'x-service-timestamp'),
    request.rawBody,
    header(request.headers, previous ? 'x-service-signature-previous' : 'x-service-signature'),
  );
}

export function deliveryIdOf(request: ReceivedRequest): string | undefined {
  return header(request.headers, 'x-service-delivery');
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  let handler: (request: ReceivedRequest) => ReceiverAnswer = () => ({ status: 200 });
  const hanging = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        index: received.length,
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      received.push(request);
      const answer = handler(request);
      if (answer === 'hang') {
        const end = () => res.destroy();
        hanging.add(end);
        res.on('close', () => hanging.delete(end));
        return;
      }
      const respond = () => {
        request.answeredAt = Date.now();
        res.writeHead(answer.status, { 'content-type': 'text/plain' });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(respond, answer.delayMs);
      else respond();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer: (next) => {
      handler = next;
    },
    waitFor: async (count, filter = () => true, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const matching = received.filter(filter);
        if (matching.length >= count) return matching;
        if (Date.now() > deadline) {
          throw new Error(`receiver: ${matching.length} of ${count} expected requests after ${timeoutMs} ms`);
        }
        await delay(25);
      }
    },
    close: async () => {
      for (const end of hanging) end();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// A TCP proxy in front of the test PostgreSQL that injects faults at exact points of the conversation, for
// the outage and crash tests. It reads the PostgreSQL wire protocol just enough to see each statement a client
// sends (a simple Query or the Parse of an extended query) and each ReadyForQuery the server answers with, so
// a test can say "right after this transaction commits, PostgreSQL goes away" or "freeze everything before
// this statement reaches the server" without any hook in the code under test.
//
//   stop()   closes every connection and the listening socket: new connections are refused (ECONNREFUSED),
//            as with PostgreSQL stopped; start() listens again on the same port.
//   arm()    one fault on the next statement whose SQL matches: `before` (the statement is never delivered)
//            or `after` (delivered, and its answer up to ReadyForQuery reaches the client), with the effect `stop`
//            (as above) or `freeze` (nothing more is forwarded either way on any connection, as with a
//            process hung on the network; unfreeze() drops the frozen connections and forwards again).
//
// Only unencrypted connections (no SSLRequest), as the test cluster uses.
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

export interface PgFault {
  /** Matched against the SQL text of each statement a client sends. */
  match: RegExp;
  /** Only a statement on a connection that has already sent a statement matching this one counts. */
  following?: RegExp;
  at: 'before' | 'after';
  effect: 'stop' | 'freeze';
}

export interface PgFaultProxy {
  /** `databaseUrl` with the proxy's host and port. */
  url: string;
  port: number;
  /** Arms one fault; resolves with the matched SQL once it has been injected. */
  arm(fault: PgFault): Promise<string>;
  stop(): Promise<void>;
  start(): Promise<void>;
  unfreeze(): void;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  server: Socket;
}

const SSL_REQUEST = 80_877_103;
const READY_FOR_QUERY = 0x5a; // 'Z'
const QUERY = 0x51; // 'Q'
const PARSE = 0x50; // 'P'

/** Splits a stream into protocol messages; `untyped` counts leading messages without a type byte. */
class MessageReader {
  private buffer: Buffer = Buffer.alloc(0);
  private untyped: number;
  constructor(untyped: number) {
    this.untyped = untyped;
  }

  push(chunk: Buffer): Buffer[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const messages: Buffer[] = [];
    for (;;) {
      const typed = this.untyped === 0;
      const header = typed ? 5 : 4;
      if (this.buffer.length < header) break;
      const length = this.buffer.readInt32BE(typed ? 1 : 0) + (typed ? 1 : 0);
      if (this.buffer.length < length) break;
      const message = this.buffer.subarray(0, length);
      if (!typed) {
        if (message.length >= 8 && message.readInt32BE(4) === SSL_REQUEST) {
          throw new Error('pg-fault-proxy: SSL connections are not supported');
        }
        this.untyped--;
      }
      messages.push(message);
      this.buffer = this.buffer.subarray(length);
    }
    return messages;
  }
}

/** The SQL a client message carries (simple Query or Parse), if any. */
function sqlOf(message: Buffer): string | undefined {
  const type = message[0];
  const body = message.subarray(5);
  if (type === QUERY) return body.toString('utf8', 0, Math.max(0, body.indexOf(0)));
  if (type === PARSE) {
    const nameEnd = body.indexOf(0);
    const rest = body.subarray(nameEnd + 1);
    return rest.toString('utf8', 0, Math.max(0, rest.indexOf(0)));
  }
  return undefined;
}

export async function startPgFaultProxy(databaseUrl: string): Promise<PgFaultProxy> {
  const target = new URL(databaseUrl);
  const upstream = { host: target.hostname, port: Number(target.port || 5432) };
  const pairs = new Set<Pair>();
  // `seen`: the connections that sent the fault's `following` statement since it was armed.
  let fault: (PgFault & { fired: (sql: string) => void; seen: Set<Pair> }) | undefined;
  let frozen = false;
  let server: Server | undefined;
  let port = 0;

  const dropAll = () => {
    for (const pair of pairs) {
      pair.client.destroy();
      pair.server.destroy();
    }
    pairs.clear();
  };

  const stop = async () => {
    const listening = server;
    server = undefined;
    dropAll();
    if (listening) await new Promise<void>((resolve) => listening.close(() => resolve()));
  };

  const inject = (which: 'stop' | 'freeze') => {
    if (which === 'freeze') frozen = true;
    else void stop();
  };

  const accept = (client: Socket) => {
    if (frozen) {
      client.destroy();
      return;
    }
    const toServer = tcpConnect(upstream);
    const pair: Pair = { client, server: toServer };
    pairs.add(pair);
    const fromClient = new MessageReader(1);
    const fromServer = new MessageReader(0);
    // Set when a statement matched an `after` fault: inject once its ReadyForQuery has been forwarded.
    let afterReady: (() => void) | undefined;
    const close = () => {
      client.destroy();
      toServer.destroy();
      pairs.delete(pair);
    };
    client.on('error', close);
    toServer.on('error', close);
    client.on('close', close);
    toServer.on('close', close);

    client.on('data', (chunk: Buffer) => {
      if (frozen || !pairs.has(pair)) return;
      let messages: Buffer[];
      try {
        messages = fromClient.push(chunk);
      } catch {
        return close();
      }
      for (const message of messages) {
        const sql = sqlOf(message);
        const armed = fault;
        const ready = !armed?.following || armed.seen.has(pair);
        if (sql !== undefined && armed?.following?.test(sql)) armed.seen.add(pair);
        if (sql !== undefined && armed && ready && armed.match.test(sql)) {
          fault = undefined;
          if (armed.at === 'before') {
            inject(armed.effect);
            armed.fired(sql);
            return;
          }
          afterReady = () => {
            inject(armed.effect);
            armed.fired(sql);
          };
        }
        toServer.write(message);
      }
    });
    toServer.on('data', (chunk: Buffer) => {
      if (frozen || !pairs.has(pair)) return;
      for (const message of fromServer.push(chunk)) {
        if (message[0] === READY_FOR_QUERY && afterReady) {
          const injectNow = afterReady;
          afterReady = undefined;
          // The answer reaches the client before the fault.
          client.write(message, () => injectNow());
          return;
        }
        client.write(message);
      }
    });
  };

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const listening = createServer(accept);
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => {
        const address = listening.address();
        if (address && typeof address === 'object') port = address.port;
        server = listening;
        resolve();
      });
    });

  await start();
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    port,
    arm: (armed) =>
      new Promise<string>((resolve) => {
        fault = { ...armed, fired: resolve, seen: new Set() };
      }),
    stop,
    start,
    unfreeze() {
      frozen = false;
      dropAll();
    },
    close: async () => {
      fault = undefined;
      await stop();
    },
  };
}

// A plain TCP proxy a test can take down and bring back: stop() closes every connection and the listening socket
// (new connections are refused, as with the process behind it stopped), start() listens again on the same port.
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { hostAndPort } from '../../temporal/breaker.ts';

export interface TcpProxy {
  /** `127.0.0.1:<port>` of the proxy. */
  address: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const { host, port: targetPort } = hostAndPort(target);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async () => {
    const listening = createServer((client) => {
      const upstream = tcpConnect({ host, port: targetPort });
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      listening.once('error', reject);
      listening.listen(port, '127.0.0.1', () => resolve());
    });
    const bound = listening.address();
    if (bound && typeof bound === 'object') port = bound.port;
    server = listening;
  };
  const stop = async () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    const closing = server;
    server = undefined;
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  await listen();
  return {
    address: `127.0.0.1:${port}`,
    stop,
    start: listen,
    close: stop,
  };
}

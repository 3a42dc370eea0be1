// A real RFC 3161 timestamp authority for tests: the `openssl` command line makes a root CA and a timestamping
// certificate it issues (in a temporary directory, per authority), and a node:http server on 127.0.0.1 answers
// each `application/timestamp-query` POST with the reply of `openssl ts -reply` — nothing here encodes ASN.1,
// so the tokens are OpenSSL's, not Sigil's or its signing library's. The test can take it down in three ways
// (connection refused, 503, never answering) and bring it back on the same URL.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** An OID under 2.999, the arc ITU-T X.660 sets aside for examples: no real policy has it. */
export const TEST_TSA_POLICY_OID = '2.999.3161.1';

/** Bigger bodies are refused: a timestamp query is a hash and a few small fields. */
const MAX_QUERY_BYTES = 64 * 1024;
const OPENSSL_TIMEOUT_MS = 30_000;

/**
 * How the authority is down: `refuse` closes the listening socket (connection refused), `error503` answers
 * 503, `hang` accepts requests and never answers them (those stay open until the authority is closed, even once
 * it is back up).
 */
export type TimestampAuthorityDownMode = 'refuse' | 'error503' | 'hang';

export interface TestTimestampAuthorityOptions {
  /** The TSA policy OID of every token (default TEST_TSA_POLICY_OID). */
  policyOid?: string;
  /** Subject common names of the two certificates. */
  caCommonName?: string;
  tsaCommonName?: string;
  /** The openssl executable (default `openssl` on PATH). */
  openssl?: string;
}

export interface TestTimestampAuthority {
  /** Where to POST timestamp queries, e.g. http://127.0.0.1:43210/tsa */
  url: string;
  policyOid: string;
  /** The root CA that issued the TSA certificate: a trust root for validators. */
  caCertificatePem: string;
  caCertificatePath: string;
  tsaCertificatePem: string;
  tsaCertificatePath: string;
  /** Timestamp requests answered with a token (200). */
  requests(): number;
  /** HTTP requests that arrived, answered or not. */
  received(): number;
  /**
   * Takes the authority down in one of the three ways, or (false) brings it back up on the same port. Resolves
   * once the change holds: for `refuse`, the socket is closed and every open connection dropped.
   */
  setDown(mode: false | TimestampAuthorityDownMode): Promise<void>;
  /** Stops everything: the listener, every connection (hanging ones too), and removes the directory. */
  close(): Promise<void>;
}

export async function startTestTimestampAuthority(
  options: TestTimestampAuthorityOptions = {},
): Promise<TestTimestampAuthority> {
  const openssl = options.openssl ?? 'openssl';
  const policyOid = options.policyOid ?? TEST_TSA_POLICY_OID;
  const dir = await mkdtemp(join(tmpdir(), 'sigil-tsa-'));
  const paths = {
    caKey: join(dir, 'ca.key'),
    caCertificate: join(dir, 'ca.crt'),
    tsaKey: join(dir, 'tsa.key'),
    tsaRequest: join(dir, 'tsa.csr'),
    tsaCertificate: join(dir, 'tsa.crt'),
    extensions: join(dir, 'tsa-extensions.cnf'),
    config: join(dir, 'tsa.cnf'),
    serial: join(dir, 'serial'),
  };
  const openSsl = async (args: string[]): Promise<void> => {
    try {
      await run(openssl, args, { cwd: dir, timeout: OPENSSL_TIMEOUT_MS });
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr?.trim();
      throw new Error(
        `test timestamp authority: \`${openssl} ${args.join(' ')}\` failed: ${(error as Error).message}` +
          `${stderr ? `\n${stderr}` : ''}${(error as NodeJS.ErrnoException).code === 'ENOENT' ? '\nInstall OpenSSL (Debian: apt-get install openssl).' : ''}`,
      );
    }
  };

  try {
    await openSsl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-sha256',
      '-days',
      '3650',
      '-subj',
      `/CN=${options.caCommonName ?? 'Sigil Test Timestamping Root CA'}/O=Sigil (tests)`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-keyout',
      paths.caKey,
      '-out',
      paths.caCertificate,
    ]);
    await openSsl([
      'req',
      '-new',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      `/CN=${options.tsaCommonName ?? 'Sigil Test Timestamp Authority'}/O=Sigil (tests)`,
      '-keyout',
      paths.tsaKey,
      '-out',
      paths.tsaRequest,
    ]);
    await writeFile(
      paths.extensions,
      [
        '[ tsa_certificate ]',
        'basicConstraints = critical, CA:FALSE',
        'keyUsage = critical, digitalSignature, nonRepudiation',
        'extendedKeyUsage = critical, timeStamping',
        'subjectKeyIdentifier = hash',
        'authorityKeyIdentifier = keyid:always',
        '',
      ].join('\n'),
    );
    await openSsl([
      'x509',
      '-req',
      '-sha256',
      '-days',
      '3650',
      '-set_serial',
      `0x${randomBytes(16).toString('hex')}`,
      '-in',
      paths.tsaRequest,
      '-CA',
      paths.caCertificate,
      '-CAkey',
      paths.caKey,
      '-extfile',
      paths.extensions,
      '-extensions',
      'tsa_certificate',
      '-out',
      paths.tsaCertificate,
    ]);
    await writeFile(paths.serial, '01\n');
    await writeFile(
      paths.config,
      [
        '[ tsa ]',
        'default_tsa = test_tsa',
        '',
        '[ test_tsa ]',
        `serial = ${paths.serial}`,
        'crypto_device = builtin',
        `signer_cert = ${paths.tsaCertificate}`,
        `certs = ${paths.caCertificate}`,
        `signer_key = ${paths.tsaKey}`,
        'signer_digest = sha256',
        `default_policy = ${policyOid}`,
        'digests = sha256, sha384, sha512',
        'accuracy = secs:1',
        'ordering = no',
        'tsa_name = yes',
        // The ESS signing-certificate-v2 attribute names the TSA certificate by its SHA-256.
        'ess_cert_id_chain = no',
        'ess_cert_id_alg = sha256',
        '',
      ].join('\n'),
    );
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const caCertificatePem = await readFile(paths.caCertificate, 'utf8');
  const tsaCertificatePem = await readFile(paths.tsaCertificate, 'utf8');

  let down: false | TimestampAuthorityDownMode = false;
  let closed = false;
  let answered = 0;
  let arrived = 0;
  let replies = 0;
  // openssl rewrites the serial file on every reply: one run at a time.
  let opensslQueue: Promise<unknown> = Promise.resolve();
  const inFlight = new Set<Promise<void>>();
  const sockets = new Set<Socket>();

  const reply = async (query: Buffer): Promise<Buffer> => {
    const name = `query-${++replies}`;
    const queryFile = join(dir, `${name}.tsq`);
    const replyFile = join(dir, `${name}.tsr`);
    await writeFile(queryFile, query);
    const turn = opensslQueue.then(() =>
      openSsl([
        'ts',
        '-reply',
        '-config',
        paths.config,
        '-queryfile',
        queryFile,
        '-signer',
        paths.tsaCertificate,
        '-inkey',
        paths.tsaKey,
        '-chain',
        paths.caCertificate,
        '-out',
        replyFile,
      ]),
    );
    opensslQueue = turn.catch(() => undefined);
    try {
      await turn;
      return await readFile(replyFile);
    } finally {
      await Promise.all([rm(queryFile, { force: true }), rm(replyFile, { force: true })]);
    }
  };

  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // The client may be gone by the time the reply is ready; that is no error of the test's.
    res.on('error', () => undefined);
    const send = (status: number, contentType: string, body: string | Buffer) => {
      if (res.destroyed || res.writableEnded) return;
      res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (down === 'hang') return; // the socket stays open until the authority is closed
    if (down === 'error503') {
      send(503, 'text/plain', 'test timestamp authority: down (503)\n');
      return;
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      send(405, 'text/plain', 'POST a timestamp query\n');
      return;
    }
    const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (contentType !== 'application/timestamp-query') {
      send(415, 'text/plain', 'expected content-type application/timestamp-query\n');
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_QUERY_BYTES) {
        send(413, 'text/plain', 'timestamp query too large\n');
        return;
      }
      chunks.push(chunk);
    }
    let token: Buffer;
    try {
      token = await reply(Buffer.concat(chunks));
    } catch (error) {
      send(500, 'text/plain', `${(error as Error).message}\n`);
      return;
    }
    if (closed || res.destroyed) return;
    answered++;
    send(200, 'application/timestamp-reply', token);
  };

  const listen = async (port: number): Promise<{ server: Server; port: number }> => {
    const server = createServer((req, res) => {
      arrived++;
      const handling = answer(req, res).catch(() => {
        // A body that never finished arriving (the client went away): nothing to answer.
        res.destroy();
      });
      inFlight.add(handling);
      void handling.finally(() => inFlight.delete(handling));
    });
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    return { server, port: (server.address() as AddressInfo).port };
  };

  const stopListening = async (server: Server): Promise<void> => {
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await stopped;
  };

  let listening: Server | undefined;
  let port: number;
  try {
    const first = await listen(0);
    listening = first.server;
    port = first.port;
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }

  return {
    url: `http://127.0.0.1:${port}/tsa`,
    policyOid,
    caCertificatePem,
    caCertificatePath: paths.caCertificate,
    tsaCertificatePem,
    tsaCertificatePath: paths.tsaCertificate,
    requests: () => answered,
    received: () => arrived,
    async setDown(mode) {
      if (closed) throw new Error('test timestamp authority: already closed');
      down = mode;
      if (mode === 'refuse') {
        const server = listening;
        listening = undefined;
        if (server) await stopListening(server);
        // Clients in this process (fetch's keep-alive pool) see their connections closed on their next turn of
        // the event loop; before that, a request could still go out on one and fail with "other side closed"
        // instead of being refused.
        await delay(25);
      } else if (!listening) {
        listening = (await listen(port)).server;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      const server = listening;
      listening = undefined;
      for (const socket of sockets) socket.destroy();
      if (server) await stopListening(server);
      await Promise.allSettled([...inFlight]);
      await opensslQueue;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

// Oversized request bodies are refused after reading about the limit, never in full: an authenticated
// 200 MB upload to POST /api/v1/files/upload (streamed without a length, and announced with one) and a
// 200 MB save of signer field values. Each request is written by hand on a TCP socket to the app listening
// on a port, and the server's own socket says how many bytes it read.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../services/security/secrets.ts';
import {
  type ApiHarness,
  type Integrator,
  listenLocally,
  newIntegrator,
  openApiHarness,
} from '../support/api.ts';
import { testConfig } from '../support/context.ts';

const MEBIBYTE = 1024 * 1024;
const UPLOAD_MAX_BYTES = 25 * MEBIBYTE; // the default
const SIGNER_BODY_LIMIT = 10 * MEBIBYTE;
const ATTEMPT_BYTES = 200 * MEBIBYTE;
/**
 * What may be read past a limit: socket and stream buffers between the parser and the kernel, and what a
 * loopback connection carries before the refusal is out. Far below the 175 MB an unbounded read would add.
 */
const SLACK_BYTES = 8 * MEBIBYTE;

let harness: ApiHarness;
let integrator: Integrator;
let port: number;
const serverSockets: Socket[] = [];

beforeAll(async () => {
  const config = testConfig();
  harness = await openApiHarness({ ...config, api: { ...config.api, uploadMaxBytes: UPLOAD_MAX_BYTES } });
  integrator = await newIntegrator(harness);
  harness.app.server.on('connection', (socket: Socket) => serverSockets.push(socket));
  port = Number(new URL(await listenLocally(harness.app)).port);
});
afterAll(() => harness?.close());

interface Outcome {
  status: number | undefined;
  body: string;
  headers: string;
  /** Bytes of the request the server's socket read. */
  serverRead: number;
  /** Bytes the client handed to its socket before the server closed the connection. */
  clientWrote: number;
}

/**
 * Sends `head` and then `total` bytes of `filler` (chunked unless `contentLength` is given), writing only as
 * fast as the server reads. Like a careless or hostile client, it goes on sending after the answer came and
 * stops only when all is sent or the server closes the connection; the answer is collected meanwhile.
 */
async function send(request: {
  method: string;
  path: string;
  headers: Record<string, string>;
  head: Buffer;
  filler: Buffer;
  total: number;
  contentLength?: number;
}): Promise<Outcome> {
  const before = serverSockets.length;
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = Buffer.alloc(0);
  let clientWrote = 0;
  let closed = false;
  const closing = new Promise<void>((resolve) => {
    const done = () => {
      if (!closed) clientWrote = socket.bytesWritten;
      closed = true;
      resolve();
    };
    socket.on('close', done);
    socket.on('error', done);
  });
  socket.on('data', (data: Buffer) => {
    received = Buffer.concat([received, data]);
  });
  const framing =
    request.contentLength === undefined
      ? { 'transfer-encoding': 'chunked' }
      : { 'content-length': String(request.contentLength) };
  const lines = [
    `${request.method} ${request.path} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    ...Object.entries({ ...request.headers, ...framing }).map(([name, value]) => `${name}: ${value}`),
  ];
  const chunked = request.contentLength === undefined;
  const frame = (data: Buffer) =>
    chunked
      ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')])
      : data;
  const write = async (data: Buffer) => {
    if (closed) return;
    if (!socket.write(data)) await Promise.race([once(socket, 'drain'), closing]);
  };
  await write(Buffer.from(`${lines.join('\r\n')}\r\n\r\n`));
  await write(frame(request.head));
  for (let sent = 0; sent < request.total && !closed; sent += request.filler.length) {
    await write(frame(request.filler));
  }
  await Promise.race([closing, delay(30_000)]);
  if (!closed) clientWrote = socket.bytesWritten;
  socket.destroy();
  const server = serverSockets[before];
  if (server && !server.destroyed) await Promise.race([once(server, 'close'), delay(5000)]);
  const text = received.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]) || undefined,
    headers: split === -1 ? text : text.slice(0, split),
    body: split === -1 ? '' : text.slice(split + 4),
    serverRead: server?.bytesRead ?? Number.NaN,
    clientWrote,
  };
}

function delay(ms: number) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function multipartHead(boundary: string): Buffer {
  return Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="huge.pdf"\r\n` +
      'Content-Type: application/pdf\r\n\r\n%PDF-1.7\n',
  );
}

describe('oversized uploads', () => {
  it('refuses a 200 MB streamed upload after reading about the 25 MB limit', async () => {
    const boundary = `sigil-${randomUUID()}`;
    const started = performance.now();
    const outcome = await send({
      method: 'POST',
      path: '/api/v1/files/upload',
      headers: {
        ...(await integrator.auth(['files.write'])),
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      head: multipartHead(boundary),
      filler: Buffer.alloc(256 * 1024, 0x20),
      total: ATTEMPT_BYTES,
    });
    const seconds = (performance.now() - started) / 1000;
    console.info(
      `200 MB upload refused after the server read ${(outcome.serverRead / MEBIBYTE).toFixed(1)} MB ` +
        `(client handed over ${(outcome.clientWrote / MEBIBYTE).toFixed(1)} MB) in ${seconds.toFixed(2)} s`,
    );
    expect(outcome.status, outcome.headers).toBe(400);
    expect(JSON.parse(outcome.body).error).toMatchObject({
      code: 'file_too_large',
      message: 'The file is larger than the upload limit of 25 MB.',
      details: [{ field: 'file', message: 'larger than 25 MB' }],
    });
    expect(outcome.headers).toMatch(/\r\nconnection: close/i);
    expect(outcome.serverRead).toBeGreaterThan(UPLOAD_MAX_BYTES);
    expect(outcome.serverRead).toBeLessThan(UPLOAD_MAX_BYTES + SLACK_BYTES);
  });

  it('refuses an upload whose Content-Length is over the limit without reading its body', async () => {
    const boundary = `sigil-${randomUUID()}`;
    const outcome = await send({
      method: 'POST',
      path: '/api/v1/files/upload',
      headers: {
        ...(await integrator.auth(['files.write'])),
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      head: multipartHead(boundary),
      filler: Buffer.alloc(256 * 1024, 0x20),
      total: ATTEMPT_BYTES,
      contentLength: ATTEMPT_BYTES,
    });
    expect(outcome.status, outcome.headers).toBe(400);
    expect(JSON.parse(outcome.body).error.code).toBe('file_too_large');
    // Headers and whatever arrived with them: nothing like the file.
    expect(outcome.serverRead).toBeLessThan(SLACK_BYTES);
  });

  it('answers an unauthenticated 200 MB upload with 401 without reading its body', async () => {
    const boundary = `sigil-${randomUUID()}`;
    const outcome = await send({
      method: 'POST',
      path: '/api/v1/files/upload',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      head: multipartHead(boundary),
      filler: Buffer.alloc(256 * 1024, 0x20),
      total: ATTEMPT_BYTES,
    });
    expect(outcome.status, outcome.headers).toBe(401);
    expect(JSON.parse(outcome.body).error.code).toBe('unauthorized');
    expect(outcome.serverRead).toBeLessThan(SLACK_BYTES);
    expect(outcome.headers).toMatch(/\r\nconnection: close/i);
  });

  it('refuses a 200 MB save of signer field values after reading about its 10 MB body limit', async () => {
    const outcome = await send({
      method: 'PUT',
      path: `/api/signing/${randomToken()}/fields`,
      headers: { 'content-type': 'application/json' },
      head: Buffer.from('{"values":[{"fieldDefinitionId":"x","value":{"fileBase64":"'),
      filler: Buffer.alloc(256 * 1024, 0x41),
      total: ATTEMPT_BYTES,
    });
    expect(outcome.status, outcome.headers).toBe(413);
    expect(JSON.parse(outcome.body).error).toMatchObject({
      code: 'payload_too_large',
      message: 'The request body is larger than 10 MB, the most one save of field values may send.',
    });
    expect(outcome.headers).toMatch(/\r\nconnection: close/i);
    expect(outcome.serverRead).toBeGreaterThan(SIGNER_BODY_LIMIT);
    expect(outcome.serverRead).toBeLessThan(SIGNER_BODY_LIMIT + SLACK_BYTES);
  });
});

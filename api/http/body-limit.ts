// Refusing a request body that is too large without reading the rest of it. `limitBody` is a route's body
// limit with a refusal that names the limit: 413 `payload_too_large` "The request body is larger than
// 10 MB, …" instead of Fastify's bare "Request body is too large". A Content-Length over the limit is refused
// before any of the body is read; a body without one is counted as it arrives and refused the moment it
// passes the limit. `closeWithoutReading` then ends the connection after the answer while reading no more
// of the body: the request stream stops flowing, so the client's writes stall while it reads the answer.
import type { Socket } from 'node:net';
import { Transform } from 'node:stream';
import type { FastifyReply, FastifyRequest, preParsingAsyncHookHandler } from 'fastify';
import { AppError } from '../../services/errors.ts';

const MEBIBYTE = 1024 * 1024;

/** The preParsing hook for a route whose body may be at most `maxBytes`; `purpose` ends the message. */
export function limitBody(maxBytes: number, purpose: string): preParsingAsyncHookHandler {
  const tooLarge = () => {
    const megabytes = maxBytes / MEBIBYTE;
    const limit = Number.isInteger(megabytes) ? `${megabytes} MB` : `${maxBytes} bytes`;
    return new AppError(413, 'payload_too_large', `The request body is larger than ${limit}, ${purpose}.`, [
      { message: `larger than ${limit}` },
    ]);
  };
  return async function bodyLimit(request: FastifyRequest, reply: FastifyReply, payload) {
    const declared = Number(request.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      closeWithoutReading(request, reply);
      throw tooLarge();
    }
    let received = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        received += chunk.length;
        if (received > maxBytes) {
          closeWithoutReading(request, reply);
          callback(tooLarge());
          return;
        }
        callback(null, chunk);
      },
    });
    // On the error, pipe() detaches the request, which then stops flowing.
    return payload.pipe(counted);
  };
}

/** How long a refused request's connection stays open, unread, after the answer went out. */
const CLOSE_GRACE_MS = 2000;

/**
 * Ends a request whose body will not be read: the request stops flowing (whatever was piped from it is
 * detached), the answer says `Connection: close`, and the connection closes after it. Node would destroy
 * the socket the moment the answer is written; with the client still sending, the unread bytes turn that
 * close into a reset that can reach the client before it has read the answer. So the socket's
 * `destroySoon` (what Node's HTTP server calls for `Connection: close`) is replaced for this socket: our
 * side of the connection ends at once, and the socket is destroyed after a short grace, still unread.
 */
export function closeWithoutReading(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('connection', 'close');
  const raw = request.raw;
  if (!raw.readableEnded) {
    raw.unpipe();
    raw.pause();
  }
  const socket: Socket | null = raw.socket;
  if (!socket) return;
  socket.destroySoon = () => {
    if (socket.writable) socket.end();
    setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
  };
}

// One pino logger per process. Secrets are redacted wherever they could appear in a logged object.
import { type Logger, pino } from 'pino';
import type { Config } from './config.ts';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'password',
  'client_secret',
  'clientSecret',
  'secret',
  'access_token',
  'accessToken',
  'token',
  '*.password',
  '*.client_secret',
  '*.clientSecret',
  '*.secret',
  '*.access_token',
  '*.token',
  'databaseUrl',
  '*.databaseUrl',
  // The signer API's one-time codes and signer sessions. Request bodies and headers are not logged (see
  // serializeRequest); these cover a body or a result logged by hand. A bare `*.code` would also hide
  // every error's `err.code`, so only the places a one-time code lives are named.
  'req.headers["x-signing-session"]',
  'headers["x-signing-session"]',
  'sessionToken',
  '*.sessionToken',
  'otpCode',
  '*.otpCode',
  'body.code',
  '*.body.code',
];

export function createLogger(
  config: Pick<Config, 'logLevel'>,
  name: string,
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      name,
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { req: serializeRequest },
    },
    destination,
  );
}

/**
 * Signing-link tokens travel in URL paths (`/api/signing/<token>`, `/<token>/document`, the signer page
 * `/sign/<token>`): never log them.
 */
export function redactTokensInPath(url: string): string {
  return url
    .replace(/^\/api\/signing\/[^/?#]+/, '/api/signing/[token]')
    .replace(/^\/sign\/[^/?#]+/, '/sign/[token]')
    .replace(/^\/[^/?#]+\/document(?=$|[?#])/, '/[token]/document');
}

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** What a request log line says about the request (Fastify's default, with tokens taken out of the URL). */
function serializeRequest(request: LoggedRequest) {
  return {
    method: request.method,
    url: redactTokensInPath(request.url ?? ''),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

/** A connection URL safe to print: the password is replaced. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '[unparseable URL]';
  }
}

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
];

export function createLogger(config: Pick<Config, 'logLevel'>, name: string): Logger {
  return pino({
    name,
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  });
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

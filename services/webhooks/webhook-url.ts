// The rules for an endpoint's target URL. Everywhere: an absolute http(s) URL of at most 2,048 characters,
// without user name, password or fragment. Outside development and test additionally: https only, and the
// host — a literal IP, or every address a host name resolves to — must be a public address (no loopback,
// private, link-local, unique-local or other special-purpose range), so an endpoint cannot point Sigil at its
// own network.
import { isIP } from 'node:net';
import type { SigilEnv } from '../../config/config.ts';
import {
  type HostResolver,
  privateTargetsAllowed,
  resolveHost,
  specialAddressReason,
} from '../../config/outbound-targets.ts';
import { WEBHOOK_URL_MAX_LENGTH } from '../../domain/webhook.ts';
import { InvalidRequest } from '../errors.ts';

function refuse(message: string): never {
  throw new InvalidRequest(`Invalid webhook URL: ${message}`, [{ field: 'url', message }]);
}

/** The normalized URL, or InvalidRequest (400) naming what is wrong. */
export async function validateWebhookUrl(
  raw: string,
  env: SigilEnv,
  resolve: HostResolver = resolveHost,
): Promise<string> {
  const text = raw.trim();
  if (text.length === 0) refuse('the URL is required');
  if (text.length > WEBHOOK_URL_MAX_LENGTH) refuse(`at most ${WEBHOOK_URL_MAX_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    refuse(`"${text.slice(0, 100)}" is not an absolute URL`);
  }
  const development = privateTargetsAllowed(env);
  if (url.protocol !== 'https:' && !(development && url.protocol === 'http:')) {
    refuse(
      development
        ? 'the URL must start with https:// (or http:// in development)'
        : 'the URL must start with https://',
    );
  }
  if (url.username || url.password) {
    refuse('user name and password are not allowed in the URL; authenticate deliveries by their signature');
  }
  if (url.hash) refuse('the URL must not have a fragment (#…)');
  if (development) return url.href;

  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const reason = specialAddressReason(host);
    if (reason) refuse(`${reason}; outside development Sigil delivers only to public addresses`);
    return url.href;
  }
  const name = host.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) {
    refuse(`${host} is a loopback host; outside development Sigil delivers only to public addresses`);
  }
  let addresses: string[];
  try {
    addresses = await resolve(name);
  } catch {
    refuse(`the host ${host} cannot be resolved`);
  }
  if (addresses.length === 0) refuse(`the host ${host} cannot be resolved`);
  for (const address of addresses) {
    const reason = specialAddressReason(address);
    if (reason) {
      refuse(`${host} resolves to ${reason}; outside development Sigil delivers only to public addresses`);
    }
  }
  return url.href;
}

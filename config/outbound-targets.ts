// Where Sigil may send its own HTTP requests (webhook deliveries). In production an endpoint URL must not
// point Sigil at its own network: loopback, private, link-local, unique-local and other special-purpose
// addresses are refused, whether written as a literal IP or reached through a host name. The API checks
// when an endpoint is saved; the worker checks again at connect time (DNS answers can change).
import { lookup as dnsLookup } from 'node:dns';
import { lookup as dnsLookupAsync } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { SigilEnv } from './config.ts';

interface SpecialRange {
  cidr: string;
  kind: string;
}

/** Ranges no production delivery may reach (RFC 6890 special-purpose registries, the relevant part). */
const SPECIAL_RANGES: readonly SpecialRange[] = [
  { cidr: '0.0.0.0/8', kind: 'an unspecified ("this network")' },
  { cidr: '10.0.0.0/8', kind: 'a private' },
  { cidr: '100.64.0.0/10', kind: 'a shared (carrier-grade NAT)' },
  { cidr: '127.0.0.0/8', kind: 'a loopback' },
  { cidr: '169.254.0.0/16', kind: 'a link-local' },
  { cidr: '172.16.0.0/12', kind: 'a private' },
  { cidr: '192.0.0.0/24', kind: 'an IETF protocol' },
  { cidr: '192.168.0.0/16', kind: 'a private' },
  { cidr: '198.18.0.0/15', kind: 'a benchmarking' },
  { cidr: '224.0.0.0/4', kind: 'a multicast' },
  { cidr: '240.0.0.0/4', kind: 'a reserved' },
  { cidr: '::/127', kind: 'an unspecified or loopback' },
  { cidr: '::/96', kind: 'an IPv4-compatible (deprecated)' },
  { cidr: 'fc00::/7', kind: 'a unique-local' },
  { cidr: 'fe80::/10', kind: 'a link-local' },
  { cidr: 'ff00::/8', kind: 'a multicast' },
];

const MATCHERS = SPECIAL_RANGES.map((range) => {
  const [address = '', prefix = ''] = range.cidr.split('/');
  const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  const list = new BlockList();
  list.addSubnet(address, Number(prefix), type);
  return { ...range, list };
});

/** `::ffff:10.1.2.3` (and its hexadecimal form) is the IPv4 address it maps. */
function unmapped(address: string): string {
  const text = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  if (text) return text;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex?.[1] && hex[2]) {
    const high = Number.parseInt(hex[1], 16);
    const low = Number.parseInt(hex[2], 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return address;
}

/** Why `address` may not be a production delivery target, or undefined when it is a public address. */
export function specialAddressReason(address: string): string | undefined {
  const plain = unmapped(address.replace(/^\[|\]$/g, '').replace(/%.*$/, ''));
  const family = isIP(plain);
  if (family === 0) return `${address} is not an IP address`;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  const match = MATCHERS.find((matcher) => matcher.list.check(plain, type));
  return match ? `${plain} is ${match.kind} address (${match.cidr})` : undefined;
}

/** Whether deliveries may reach loopback and private networks: only in development and test. */
export function privateTargetsAllowed(env: SigilEnv): boolean {
  return env !== 'production';
}

/** Raised when a delivery target is refused; `code` lets callers tell it from network errors. */
export class RefusedTargetError extends Error {
  readonly code = 'ERR_SIGIL_REFUSED_TARGET';
  constructor(message: string) {
    super(message);
    this.name = 'RefusedTargetError';
  }
}

export type HostResolver = (hostname: string) => Promise<string[]>;

/** Every address a host name resolves to (the system resolver, as connections use). */
export const resolveHost: HostResolver = async (hostname) =>
  (await dnsLookupAsync(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * A `lookup` for node:http(s) and node:net that resolves like the system resolver but refuses the
 * connection when any address of the host is special-purpose. Connecting to what was checked (rather than
 * checking first and resolving again) leaves no window for a DNS answer to change in between.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    for (const entry of addresses) {
      const reason = specialAddressReason(entry.address);
      if (reason) {
        callback(new RefusedTargetError(`${hostname} resolves to ${reason}`), '', 0);
        return;
      }
    }
    const first = addresses[0];
    if (options.all) (callback as unknown as (e: null, all: typeof addresses) => void)(null, addresses);
    else if (first) callback(null, first.address, first.family);
    else callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
  });
};

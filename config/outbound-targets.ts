// Where Sigil may send its own HTTP requests (webhook deliveries). In production an endpoint URL must not
// point Sigil at its own network: every address of the IANA special-purpose registries (loopback, private,
// link-local, unique-local, site-local, tunnels such as 6to4 and Teredo, documentation, …) is refused, and
// an address that embeds an IPv4 address (IPv4-mapped, IPv4-translated, the NAT64 prefix 64:ff9b::/96) is
// judged by that IPv4 address, whether written as a literal IP or reached through a host name. The API checks
// when an endpoint is saved; the worker checks again at connect time (DNS answers can change).
import { lookup as dnsLookup } from 'node:dns';
import { lookup as dnsLookupAsync } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { SigilEnv } from './config.ts';

/**
 * What each special-purpose range of the IANA registries is called in a refusal. The ranges themselves come
 * from ipaddr.js (`range()`), which follows the IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890
 * and their updates); everything it does not call `unicast` is refused.
 */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified ("this network")',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a shared (carrier-grade NAT)',
  private: 'a private',
  reserved: 'a reserved (IETF protocol, documentation or future use)',
  benchmarking: 'a benchmarking',
  amt: 'an AMT relay',
  as112: 'an AS112 DNS',
  as112v6: 'an AS112 DNS',
  uniqueLocal: 'a unique-local',
  deprecatedSiteLocal: 'a site-local (deprecated)',
  discard: 'a discard-only',
  '6to4': 'a 6to4 tunnel',
  teredo: 'a Teredo tunnel',
  rfc6052: 'a local-use IPv4/IPv6 translation',
  deprecatedOrchid: 'an ORCHID',
  orchid2: 'an ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'a drone remote ID',
  segmentRouting: 'a segment-routing',
};

/** Translation ranges whose address embeds an IPv4 address in its last 32 bits; that address decides. */
const EMBEDDING_RANGES = new Set(['ipv4Mapped', 'rfc6145']);

/** The well-known NAT64 prefix 64:ff9b::/96 (RFC 6052): a public IPv4 address through any NAT64 gateway. */
function isWellKnownNat64(address: ipaddr.IPv6): boolean {
  const [a, b, c, d, e, f] = address.parts;
  return a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0;
}

type Subnet = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** ipaddr.js's own tables of special ranges (its typings leave them out). */
function specialRanges(kind: 'ipv4' | 'ipv6'): Record<string, Subnet | Subnet[]> {
  const prototype = (kind === 'ipv4' ? ipaddr.IPv4.prototype : ipaddr.IPv6.prototype) as unknown as {
    SpecialRanges: Record<string, Subnet | Subnet[]>;
  };
  return prototype.SpecialRanges;
}

/** The subnet of a special range that holds `address`, as CIDR text (for the refusal message). */
function subnetOf(address: ipaddr.IPv4 | ipaddr.IPv6, range: string): string | undefined {
  const entry = specialRanges(address.kind())[range];
  if (!entry) return undefined;
  const subnets: Subnet[] = Array.isArray(entry[0]) ? (entry as Subnet[]) : [entry as Subnet];
  const match = subnets.find(
    ([network, bits]) => address.kind() === network.kind() && address.match(network, bits),
  );
  return match ? `${match[0].toString()}/${match[1]}` : undefined;
}

/** The last 32 bits of an IPv6 address as the IPv4 address they carry. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const high = address.parts[6] ?? 0;
  const low = address.parts[7] ?? 0;
  return new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
}

/** Why `address` may not be a production delivery target, or undefined when it is a public address. */
export function specialAddressReason(address: string): string | undefined {
  const plain = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIP(plain) === 0) return `${address} is not an IP address`;
  const parsed = ipaddr.parse(plain);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const range = v6.range();
    // An IPv4 address written in IPv6 form is judged as that IPv4 address; so is a NAT64 one.
    if (EMBEDDING_RANGES.has(range) || (range === 'rfc6052' && isWellKnownNat64(v6))) {
      const inner = embeddedIPv4(v6).toString();
      const reason = specialAddressReason(inner);
      return reason ? `${plain} reaches IPv4 ${inner}, and ${reason}` : undefined;
    }
    // The deprecated IPv4-compatible form ::a.b.c.d (RFC 4291) routes nowhere today.
    if (range === 'unicast' && v6.parts.slice(0, 6).every((part) => part === 0)) {
      return `${plain} is an IPv4-compatible address (deprecated, ::/96)`;
    }
  }
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  const subnet = subnetOf(parsed, range);
  const name = RANGE_NAMES[range] ?? `a special-purpose (${range})`;
  return `${plain} is ${name} address${subnet ? ` (${subnet})` : ''}`;
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

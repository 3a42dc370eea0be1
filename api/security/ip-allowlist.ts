// IP allowlists of OAuth clients: one IPv4/IPv6 address or CIDR range per entry; empty = any source.
import { BlockList, isIP } from 'node:net';

/** Normalizes one entry, or returns an error message saying what is wrong with it. */
export function parseAllowlistEntry(raw: string): { entry: string } | { error: string } {
  const value = raw.trim();
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return { error: `"${value}" is not an IP address or CIDR range` };
  if (prefix === undefined) return { entry: address };
  const bits = Number(prefix);
  const maxBits = family === 4 ? 32 : 128;
  if (!/^\d+$/.test(prefix) || bits > maxBits) {
    return { error: `"${value}" has an invalid prefix length (0-${maxBits} for IPv${family})` };
  }
  return { entry: `${address}/${bits}` };
}

/** Builds a matcher for a validated allowlist; an empty list allows every address. */
export function allowlistMatcher(entries: readonly string[]): (address: string) => boolean {
  if (entries.length === 0) return () => true;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return (address) => {
    const family = isIP(address);
    if (family === 0) return false;
    return list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}

/** An IPv4 client seen through a dual-stack socket (`::ffff:10.1.2.3`) is matched as IPv4. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1];
  return mapped && isIP(mapped) === 4 ? mapped : address;
}

/** Refusal message when `address` is not on a client's allowlist, or undefined when it is allowed. */
export function allowlistRefusal(
  allowlist: readonly string[],
  address: string,
  clientId: string,
): string | undefined {
  const normalized = normalizeAddress(address);
  if (allowlistMatcher(allowlist)(normalized)) return undefined;
  return `Requests from ${normalized} are not allowed for OAuth client ${clientId}: the address is not on its IP allowlist.`;
}

// IP allowlists of OAuth clients: one IPv4/IPv6 address or CIDR range per entry; empty = any source.
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { safeText } from '../../domain/common.ts';

/** The most entries (lines) one allowlist may have. */
export const MAX_ALLOWLIST_ENTRIES = 500;

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

/**
 * Whether a normalized entry covers every address of its family (`0.0.0.0/0`, `127.0.0.1/0`, `::/0`): on a list
 * that exists to keep addresses out, such an entry keeps none of that family out.
 */
export function coversWholeFamily(entry: string): { family: 'IPv4' | 'IPv6' } | null {
  const [address = '', prefix] = entry.split('/');
  if (prefix === undefined || Number(prefix) !== 0) return null;
  return { family: isIP(address) === 6 ? 'IPv6' : 'IPv4' };
}

/**
 * An allowlist as a caller sends it (the operator CLI's `--allowlist`, the lines of the Integrations page's
 * field): a blank entry is ignored, any other must be an address or a CIDR range. Each refused entry is an
 * issue at its own index saying why (`ipAllowlist.3`; through an application route `body.ipAllowlist.3`), so
 * a page can show every bad line beside the field. The result is the entries normalized, without repeats.
 */
export const IpAllowlist = z
  .array(safeText().max(100))
  .max(MAX_ALLOWLIST_ENTRIES, `at most ${MAX_ALLOWLIST_ENTRIES} entries`)
  .superRefine((entries, ctx) => {
    entries.forEach((raw, index) => {
      if (raw.trim() === '') return;
      const parsed = parseAllowlistEntry(raw);
      if ('error' in parsed) ctx.addIssue({ code: 'custom', path: [index], message: parsed.error });
    });
  })
  .transform((entries) => [
    ...new Set(
      entries.flatMap((raw) => {
        const parsed = raw.trim() === '' ? undefined : parseAllowlistEntry(raw);
        return parsed && 'entry' in parsed ? [parsed.entry] : [];
      }),
    ),
  ]);

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

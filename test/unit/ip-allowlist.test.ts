// OAuth client IP allowlists: which entries are accepted, how they are stored, and who gets through.
import { describe, expect, it } from 'vitest';
import {
  allowlistMatcher,
  coversWholeFamily,
  IpAllowlist,
  parseAllowlistEntry,
} from '../../services/security/ip-allowlist.ts';

describe('parseAllowlistEntry', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['2001:db8::1', '2001:db8::1'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['2001:db8::/32', '2001:db8::/32'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['::/128', '::/128'],
  ])('accepts %s', (raw, entry) => {
    expect(parseAllowlistEntry(raw)).toEqual({ entry });
  });

  it('trims surrounding whitespace', () => {
    expect(parseAllowlistEntry('  192.168.1.0/24 \n')).toEqual({ entry: '192.168.1.0/24' });
    expect(parseAllowlistEntry('\t2001:db8::1 ')).toEqual({ entry: '2001:db8::1' });
  });

  it('normalizes the prefix length to a plain number', () => {
    expect(parseAllowlistEntry('10.0.0.0/024')).toEqual({ entry: '10.0.0.0/24' });
    expect(parseAllowlistEntry('2001:db8::/0064')).toEqual({ entry: '2001:db8::/64' });
  });

  it.each(['not-an-ip', '', '999.1.1.1', '1.2.3', 'example.com', '2001:db8:::1', '1.2.3.4/8/1'])(
    'rejects %j as not an address or range',
    (raw) => {
      const result = parseAllowlistEntry(raw);
      expect(result).toEqual({ error: expect.stringContaining('is not an IP address or CIDR range') });
    },
  );

  it.each([
    ['10.0.0.0/33', 'IPv4', '0-32'],
    ['2001:db8::/129', 'IPv6', '0-128'],
    ['10.0.0.0/', 'IPv4', '0-32'],
    ['10.0.0.0/-1', 'IPv4', '0-32'],
    ['10.0.0.0/8.5', 'IPv4', '0-32'],
    ['10.0.0.0/abc', 'IPv4', '0-32'],
  ])('rejects the bad prefix in %s', (raw, family, range) => {
    const result = parseAllowlistEntry(raw);
    expect('error' in result).toBe(true);
    if (!('error' in result)) return;
    expect(result.error).toContain('invalid prefix length');
    expect(result.error).toContain(`(${range} for ${family})`);
    expect(result.error).toContain(raw.trim());
  });

  it('accepts the largest prefix of each family', () => {
    expect(parseAllowlistEntry('10.1.2.3/32')).toEqual({ entry: '10.1.2.3/32' });
    expect(parseAllowlistEntry('2001:db8::1/128')).toEqual({ entry: '2001:db8::1/128' });
  });
});

describe('coversWholeFamily', () => {
  it('names the family of a /0 entry, whatever its address', () => {
    expect(coversWholeFamily('127.0.0.1/0')).toEqual({ family: 'IPv4' });
    expect(coversWholeFamily('0.0.0.0/0')).toEqual({ family: 'IPv4' });
    expect(coversWholeFamily('::/0')).toEqual({ family: 'IPv6' });
    // What such an entry lets through: any address of the family.
    expect(allowlistMatcher(['127.0.0.1/0'])('203.0.113.7')).toBe(true);
  });

  it.each(['127.0.0.1', '127.0.0.1/32', '10.0.0.0/8', '0.0.0.0/1', '::/1', '2001:db8::/32'])(
    'leaves %s alone',
    (entry) => {
      expect(coversWholeFamily(entry)).toBeNull();
    },
  );
});

describe('allowlistMatcher', () => {
  it('an empty list allows every address', () => {
    const allows = allowlistMatcher([]);
    expect(allows('203.0.113.7')).toBe(true);
    expect(allows('2001:db8::1')).toBe(true);
  });

  it('a /24 matches the addresses inside it and nothing outside', () => {
    const allows = allowlistMatcher(['192.168.10.0/24']);
    expect(allows('192.168.10.0')).toBe(true);
    expect(allows('192.168.10.1')).toBe(true);
    expect(allows('192.168.10.255')).toBe(true);
    expect(allows('192.168.11.0')).toBe(false);
    expect(allows('192.168.9.255')).toBe(false);
    expect(allows('10.0.0.1')).toBe(false);
  });

  it('a single address matches only itself', () => {
    const allows = allowlistMatcher(['203.0.113.7']);
    expect(allows('203.0.113.7')).toBe(true);
    expect(allows('203.0.113.8')).toBe(false);
  });

  it('an IPv6 /64 matches inside and not outside', () => {
    const allows = allowlistMatcher(['2001:db8:1:2::/64']);
    expect(allows('2001:db8:1:2::1')).toBe(true);
    expect(allows('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(true);
    expect(allows('2001:db8:1:3::1')).toBe(false);
    expect(allows('2001:db8:1:1:ffff:ffff:ffff:ffff')).toBe(false);
  });

  it('an IPv4 address does not match an IPv6-only list', () => {
    const allows = allowlistMatcher(['2001:db8::/32', '2001:db8:ffff::1']);
    expect(allows('192.0.2.1')).toBe(false);
    expect(allows('2001:db8:ab::1')).toBe(true);
  });

  it('an IPv6 address does not match an IPv4-only list', () => {
    const allows = allowlistMatcher(['192.0.2.0/24']);
    expect(allows('2001:db8::1')).toBe(false);
  });

  it('any entry of a mixed list lets a request through', () => {
    const allows = allowlistMatcher(['10.0.0.0/8', '2001:db8::/32', '203.0.113.7']);
    expect(allows('10.200.3.4')).toBe(true);
    expect(allows('2001:db8::42')).toBe(true);
    expect(allows('203.0.113.7')).toBe(true);
    expect(allows('203.0.113.6')).toBe(false);
  });

  it('a source that is not an IP address never matches a non-empty list', () => {
    const allows = allowlistMatcher(['0.0.0.0/0']);
    expect(allows('192.0.2.1')).toBe(true);
    expect(allows('')).toBe(false);
    expect(allows('localhost')).toBe(false);
  });

  it('works on entries as parseAllowlistEntry normalizes them', () => {
    const parsed = parseAllowlistEntry(' 172.16.0.0/012 ');
    if (!('entry' in parsed)) throw new Error(parsed.error);
    const allows = allowlistMatcher([parsed.entry]);
    expect(allows('172.31.255.255')).toBe(true);
    expect(allows('172.32.0.0')).toBe(false);
  });
});

describe('IpAllowlist (the lines a caller sends)', () => {
  it('refuses each bad line at its own index, with its reason, blank lines counted', () => {
    const result = IpAllowlist.safeParse(['10.0.0.1', '', 'not-an-ip', '  ', '10.0.0.0/33', '::1']);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path.join('.'), issue.message])).toEqual([
      ['2', '"not-an-ip" is not an IP address or CIDR range'],
      ['4', '"10.0.0.0/33" has an invalid prefix length (0-32 for IPv4)'],
    ]);
  });

  it('keeps the entries normalized, without blanks or repeats', () => {
    expect(IpAllowlist.parse([' 10.0.0.0/008 ', '', '10.0.0.0/8', '2001:db8::1', ' '])).toEqual([
      '10.0.0.0/8',
      '2001:db8::1',
    ]);
    expect(IpAllowlist.parse([])).toEqual([]);
  });

  it('refuses more than 500 lines', () => {
    expect(IpAllowlist.safeParse(Array.from({ length: 501 }, () => '10.0.0.1')).success).toBe(false);
  });
});

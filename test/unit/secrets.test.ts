// Secrets at rest: client secrets are verified against a salted scrypt hash; tokens are random.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { hashPassword, verifyPassword } from '../../services/security/passwords.ts';
import { hashSecret, randomToken, sha256Hex, verifySecret } from '../../services/security/secrets.ts';

describe('hashSecret / verifySecret', () => {
  it('a secret verifies against its own hash', async () => {
    const stored = await hashSecret('correct horse battery staple');
    expect(await verifySecret('correct horse battery staple', stored)).toBe(true);
  });

  it('a different secret does not verify', async () => {
    const stored = await hashSecret('correct horse battery staple');
    expect(await verifySecret('correct horse battery stapl', stored)).toBe(false);
    expect(await verifySecret('Correct horse battery staple', stored)).toBe(false);
    expect(await verifySecret('', stored)).toBe(false);
  });

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('never stores the secret itself, and records its parameters (the standard ones unless a test run lowers them)', async () => {
    vi.stubEnv('SIGIL_HASH_COST', 'standard');
    const stored = await hashSecret('my-client-secret');
    expect(stored).not.toContain('my-client-secret');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]{43}$/);
    expect(await hashPassword('a password')).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('hashes of either cost verify whatever the current cost is (each carries its parameters)', async () => {
    vi.stubEnv('SIGIL_HASH_COST', 'low');
    const lowSecret = await hashSecret('s3cret');
    const lowPassword = await hashPassword('pa55word');
    expect(lowSecret).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(lowPassword).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    vi.stubEnv('SIGIL_HASH_COST', 'standard');
    const standardSecret = await hashSecret('s3cret');
    expect(await verifySecret('s3cret', lowSecret)).toBe(true);
    expect(await verifyPassword('pa55word', lowPassword)).toBe(true);
    expect(await verifyPassword('pa55wore', lowPassword)).toBe(false);
    vi.stubEnv('SIGIL_HASH_COST', 'low');
    expect(await verifySecret('s3cret', standardSecret)).toBe(true);
    expect(await verifySecret('s3creT', standardSecret)).toBe(false);
    // Production never takes the low cost, whatever reached its environment.
    vi.stubEnv('SIGIL_ENV', 'production');
    expect(await hashSecret('s3cret')).toMatch(/^scrypt\$32768\$/);
  });

  it('two hashes of the same secret differ (random salt), and both verify', async () => {
    const first = await hashSecret('same secret');
    const second = await hashSecret('same secret');
    expect(first).not.toBe(second);
    expect(first.split('$')[4]).not.toBe(second.split('$')[4]);
    expect(await verifySecret('same secret', first)).toBe(true);
    expect(await verifySecret('same secret', second)).toBe(true);
  });

  it('a hash from another secret cannot be spliced in', async () => {
    const mine = await hashSecret('mine');
    const theirs = await hashSecret('theirs');
    const [scheme, n, r, p, salt] = mine.split('$');
    const spliced = [scheme, n, r, p, salt, theirs.split('$')[5]].join('$');
    expect(await verifySecret('mine', spliced)).toBe(false);
    expect(await verifySecret('theirs', spliced)).toBe(false);
  });

  it.each([
    ['an empty string', ''],
    ['plain text', 'not-a-hash'],
    ['another scheme', 'bcrypt$32768$8$1$c2FsdHNhbHQ$aGFzaGhhc2g'],
    ['a missing hash', 'scrypt$32768$8$1$c2FsdHNhbHQ'],
    ['an empty salt', 'scrypt$32768$8$1$$aGFzaGhhc2g'],
    ['an empty hash', 'scrypt$32768$8$1$c2FsdHNhbHQ$'],
    ['missing parameters', 'scrypt$$$$c2FsdHNhbHQ$aGFzaGhhc2g'],
  ])('a malformed stored hash (%s) verifies nothing', async (_label, stored) => {
    expect(await verifySecret('anything', stored)).toBe(false);
  });
});

describe('randomToken', () => {
  it('is 256 bits written as 43 base64url characters', () => {
    const token = randomToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
  });

  it('differs between calls', () => {
    const tokens = new Set(Array.from({ length: 50 }, () => randomToken()));
    expect(tokens.size).toBe(50);
  });

  it('honours a requested length in bytes', () => {
    expect(Buffer.from(randomToken(12), 'base64url')).toHaveLength(12);
    expect(randomToken(12)).toMatch(/^[A-Za-z0-9_-]{16}$/);
  });
});

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 test vector for "abc"', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('matches the known digest of the empty string', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('hashes UTF-8 text', () => {
    expect(sha256Hex('שלום')).toMatch(/^[0-9a-f]{64}$/);
    expect(sha256Hex('שלום')).not.toBe(sha256Hex('שלום '));
  });
});

describe('verifySecret on damaged records', () => {
  it('refuses every secret when the stored hash is empty or short', async () => {
    expect(await verifySecret('anything', 'scrypt$32768$8$1$c2FsdA$!!!')).toBe(false);
    const real = await hashSecret('right');
    expect(await verifySecret('wrong', real.replace(/\$[^$]*$/, '$!!!!'))).toBe(false);
  });

  it('returns false instead of throwing for parameters scrypt refuses', async () => {
    const hash = Buffer.alloc(32, 1).toString('base64url');
    for (const params of ['abc$8$1', '1000$8$1', '1073741824$8$1']) {
      expect(await verifySecret('x', `scrypt$${params}$c2FsdA$${hash}`)).toBe(false);
    }
  });
});

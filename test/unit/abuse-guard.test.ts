// `npm run abuse` only ever targets this machine: any address outside the loopback range, or a name that is not
// `localhost`, is refused before a request is sent (scripts/abuse/abuse.ts).
import { describe, expect, it } from 'vitest';
import { requireLoopback } from '../../scripts/abuse/abuse.ts';

describe('requireLoopback', () => {
  it.each(['http://127.0.0.1:3000', 'http://127.8.9.10/', 'http://[::1]:3000', 'http://localhost:3000'])(
    'accepts %s',
    async (url) => {
      await expect(requireLoopback('the target', url)).resolves.toBeUndefined();
    },
  );

  it.each([
    'http://10.0.0.1:3000',
    'http://192.168.1.10/',
    'http://172.16.0.1/',
    'http://203.0.113.7/',
    'http://[::ffff:10.0.0.1]/',
    'http://[2001:db8::1]/',
    'http://example.com/',
    'http://localhost.example.com/',
  ])('refuses %s', async (url) => {
    await expect(requireLoopback('the target', url)).rejects.toThrow(/is not a loopback address/);
  });
});

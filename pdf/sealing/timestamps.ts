// RFC 3161 timestamps from the configured authorities, tried in order, each with its own timeout. The first
// answer wins; when none answers, TimestampUnavailableError names each authority and what went wrong, and
// finalization decides whether to wait and try again (the policy requires a timestamp) or to seal at B-B.
import { type DigestAlgorithm, HttpTimestampAuthority, type TimestampAuthority } from '@libpdf/core';

export class TimestampUnavailableError extends Error {
  readonly attempts: { url: string; error: string }[];
  constructor(attempts: { url: string; error: string }[]) {
    super(
      attempts.length === 0
        ? 'no timestamp authority is configured (TIMESTAMP_AUTHORITY_URLS)'
        : `no timestamp authority answered: ${attempts.map((a) => `${a.url}: ${a.error}`).join('; ')}`,
    );
    this.name = 'TimestampUnavailableError';
    this.attempts = attempts;
  }
}

export interface TimestampAuthorityChain extends TimestampAuthority {
  /** The authority that answered last, if any. */
  readonly answeredBy: string | null;
}

export function timestampAuthorities(urls: readonly string[], timeoutMs: number): TimestampAuthorityChain {
  const authorities = urls.map((url) => ({
    url,
    client: new HttpTimestampAuthority(url, {
      timeout: timeoutMs,
      // An explicit timeout on the whole exchange: a server that accepts and never answers cannot hold us.
      fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }),
    }),
  }));
  let answeredBy: string | null = null;
  return {
    get answeredBy() {
      return answeredBy;
    },
    async timestamp(digest: Uint8Array, algorithm: DigestAlgorithm): Promise<Uint8Array> {
      const attempts: { url: string; error: string }[] = [];
      for (const authority of authorities) {
        try {
          const token = await authority.client.timestamp(digest, algorithm);
          answeredBy = authority.url;
          return token;
        } catch (error) {
          attempts.push({ url: authority.url, error: describe(error) });
        }
      }
      throw new TimestampUnavailableError(attempts);
    },
  };
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`.slice(0, 300);
}

// The work factors of the two slow hashes (argon2id for passwords, scrypt for client secrets). Production and
// development always use the standard ones. A test run may set SIGIL_HASH_COST=low: the same algorithms with
// small work factors, because the suite creates and verifies thousands of secrets and on a slow two-core
// machine one standard scrypt takes most of a second. Every hash carries its own parameters, so hashes of
// either cost verify everywhere; `loadConfig` refuses `low` when SIGIL_ENV=production, and this module
// ignores it there too.
export type HashCost = 'standard' | 'low';

export function hashCost(env: NodeJS.ProcessEnv = process.env): HashCost {
  return env.SIGIL_HASH_COST === 'low' && env.SIGIL_ENV !== 'production' ? 'low' : 'standard';
}

const ARGON2 = {
  // OWASP's recommended minimum: 19 MiB of memory, 2 passes, 1 lane.
  standard: { memory: 19_456, passes: 2, parallelism: 1, tagLength: 32 },
  low: { memory: 1_024, passes: 1, parallelism: 1, tagLength: 32 },
} as const;

const SCRYPT = {
  standard: { N: 2 ** 15, r: 8, p: 1, keyLength: 32 },
  low: { N: 2 ** 10, r: 8, p: 1, keyLength: 32 },
} as const;

export const argon2Parameters = (cost: HashCost = hashCost()) => ARGON2[cost];
export const scryptParameters = (cost: HashCost = hashCost()) => SCRYPT[cost];

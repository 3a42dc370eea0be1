// Abuse protection of the signed-out routes (docs/accounts.md, "Abuse"), in table `login_throttle`:
// - `account:<email>`: failed sign-ins of an address, whether or not an account has it (an unknown address
//   answers exactly like a known one). From the 5th failure within 15 minutes each attempt waits a growing
//   delay (1 s, 2 s, 4 s, 8 s, 16 s, at most 30 s): an attempt before it is over is answered 429
//   `rate_limited` with Retry-After instead of being checked (nothing sleeps on the server). The 10th failure
//   locks the address for 15 minutes (429 `account_locked`). A successful sign-in and a password reset clear it.
// - `address:<ip>`: failed sign-ins from a network address; 50 within 15 minutes and that address gets 429
//   `rate_limited` until the window is over, whichever accounts it tries.
// Organization users and platform administrators are two realms with keys of their own (`account:<email>`,
// `address:<ip>`; `account:backoffice:<email>`, `address:backoffice:<ip>`): failures in one never refuse the
// other, so a flood of wrong organization passwords from an address (or a proxy's) cannot lock the backoffice.
// - `mail:<kind>:<email>`: when an account email of a kind (password reset, verification, the registration
//   notice) last went to an address; one a minute, the routes answer the same either way.
// Every change is one atomic statement, so concurrent attempts cannot both slip under a limit.
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError, RateLimited } from '../errors.ts';
import { nowOf, type SessionClock } from './sessions.ts';

export const LOGIN_THROTTLE = {
  /** Failures are counted within this window from the first one. */
  windowMs: 15 * 60 * 1000,
  /** From this many failures, each next attempt waits a delay. */
  delayFromFailures: 5,
  /** The first delay; it doubles with every further failure. */
  firstDelaySeconds: 1,
  maxDelaySeconds: 30,
  /** This many failures lock the address for `lockMs`. */
  lockAtFailures: 10,
  lockMs: 15 * 60 * 1000,
  /** Failures from one network address within the window before it is refused. */
  addressFailures: 50,
  /** One account email of a kind per address per this interval. */
  emailIntervalMs: 60 * 1000,
} as const;

type ThrottleContext = { em: Pick<EntityManager, 'execute'> } & SessionClock;

interface ThrottleRow {
  key: string;
  failures: number;
  first_failure_at: Date;
  last_failure_at: Date;
  locked_until: Date | null;
}

/** Whose sign-in: the business app's users, or the backoffice's platform administrators. */
export type ThrottleRealm = 'organization' | 'backoffice';

const realmPrefix = (realm: ThrottleRealm) => (realm === 'backoffice' ? 'backoffice:' : '');
export const accountKey = (email: string, realm: ThrottleRealm = 'organization') =>
  `account:${realmPrefix(realm)}${email.toLowerCase()}`;
export const addressKey = (ipAddress: string, realm: ThrottleRealm = 'organization') =>
  `address:${realmPrefix(realm)}${ipAddress}`;

/** The delay after `failures` failures within the window (0 below the threshold). */
export function loginDelaySeconds(failures: number): number {
  if (failures < LOGIN_THROTTLE.delayFromFailures) return 0;
  const doublings = failures - LOGIN_THROTTLE.delayFromFailures;
  return Math.min(LOGIN_THROTTLE.maxDelaySeconds, LOGIN_THROTTLE.firstDelaySeconds * 2 ** doublings);
}

const secondsUntil = (at: Date, now: Date) => Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000));

/** 429 `account_locked`: too many failures for the address; the same answer for unknown addresses. */
export class AccountLocked extends AppError {
  constructor(retryAfterSeconds: number) {
    const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
    super(
      429,
      'account_locked',
      `Too many failed sign-ins with this email address: try again in ${minutes} minute${minutes === 1 ? '' : 's'}, or reset your password.`,
      [],
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}

/**
 * Refuses a sign-in attempt that must wait (429 `rate_limited` with Retry-After), whose address is locked
 * (429 `account_locked`), or that comes from a network address with too many failures in the realm. Reads only.
 */
export async function checkLoginThrottle(
  ctx: ThrottleContext,
  email: string,
  ipAddress: string,
  realm: ThrottleRealm = 'organization',
) {
  const now = nowOf(ctx);
  const keys = { account: accountKey(email, realm), address: addressKey(ipAddress, realm) };
  const rows = await ctx.em.execute<ThrottleRow[]>(
    'select key, failures, first_failure_at, last_failure_at, locked_until from login_throttle where key in (?, ?)',
    [keys.account, keys.address],
  );
  const windowEnd = (row: ThrottleRow) =>
    new Date(new Date(row.first_failure_at).getTime() + LOGIN_THROTTLE.windowMs);
  const address = rows.find((row) => row.key === keys.address);
  if (address && address.failures >= LOGIN_THROTTLE.addressFailures && windowEnd(address) > now) {
    throw new RateLimited(
      'Too many failed sign-ins from your network address: wait a few minutes before trying again.',
      secondsUntil(windowEnd(address), now),
    );
  }
  const account = rows.find((row) => row.key === keys.account);
  if (!account) return;
  if (account.locked_until && new Date(account.locked_until) > now) {
    throw new AccountLocked(secondsUntil(new Date(account.locked_until), now));
  }
  if (account.locked_until || windowEnd(account) <= now) return;
  const delay = loginDelaySeconds(account.failures);
  const retryAt = new Date(new Date(account.last_failure_at).getTime() + delay * 1000);
  if (delay > 0 && retryAt > now) {
    throw new RateLimited(
      `Too many failed sign-ins with this email address: wait ${secondsUntil(retryAt, now)} s before trying again.`,
      secondsUntil(retryAt, now),
    );
  }
}

/**
 * Counts a failed sign-in for the email address and the network address, in the realm. Answers whether this
 * failure started the address's lock (the caller records `user.locked_out` when an account has it).
 */
export async function recordLoginFailure(
  ctx: ThrottleContext,
  email: string,
  ipAddress: string,
  realm: ThrottleRealm = 'organization',
): Promise<{ failures: number; lockStarted: boolean }> {
  const now = nowOf(ctx);
  const account = accountKey(email, realm);
  const windowStart = new Date(now.getTime() - LOGIN_THROTTLE.windowMs);
  const lockUntil = new Date(now.getTime() + LOGIN_THROTTLE.lockMs);
  // A window that is over, or a lock that has ended, starts counting again from this failure. The lock starts
  // with the failure that reaches the limit, in the same statement.
  const fresh = 't.first_failure_at < ? or (t.locked_until is not null and t.locked_until <= ?)';
  const [counted] = await ctx.em.execute<{ failures: number; lock_started: boolean }[]>(
    `with previous as (select locked_until from login_throttle where key = ?)
     insert into login_throttle as t (key, failures, first_failure_at, last_failure_at, locked_until)
     values (?, 1, ?, ?, null)
     on conflict (key) do update set
       failures = case when ${fresh} then 1 else t.failures + 1 end,
       first_failure_at = case when ${fresh} then excluded.first_failure_at else t.first_failure_at end,
       last_failure_at = excluded.last_failure_at,
       locked_until = case
         when ${fresh} then null
         when t.failures + 1 >= ? then coalesce(t.locked_until, ?)
         else t.locked_until end
     returning failures,
       (t.locked_until is not null and (select locked_until from previous) is null) as lock_started`,
    [
      account,
      account,
      now,
      now,
      ...[windowStart, now, windowStart, now, windowStart, now],
      LOGIN_THROTTLE.lockAtFailures,
      lockUntil,
    ],
  );
  await ctx.em.execute(
    `insert into login_throttle as t (key, failures, first_failure_at, last_failure_at)
     values (?, 1, ?, ?)
     on conflict (key) do update set
       failures = case when t.first_failure_at < ? then 1 else t.failures + 1 end,
       first_failure_at = case when t.first_failure_at < ? then excluded.first_failure_at else t.first_failure_at end,
       last_failure_at = excluded.last_failure_at`,
    [addressKey(ipAddress, realm), now, now, windowStart, windowStart],
  );
  return { failures: counted?.failures ?? 1, lockStarted: counted?.lock_started === true };
}

/** Forgets the failures of an email address in the realm (a successful sign-in, a password reset). */
export async function clearLoginThrottle(
  ctx: ThrottleContext,
  email: string,
  realm: ThrottleRealm = 'organization',
): Promise<void> {
  await ctx.em.execute('delete from login_throttle where key = ?', [accountKey(email, realm)]);
}

export type ThrottledEmailKind =
  | 'reset_password'
  | 'verify_email'
  | 'registration_attempt'
  | 'invitation_attempt'
  | 'email_change';

/**
 * Whether an account email of this kind may go to the address now (none in the last minute); when it may,
 * the time is taken, so a concurrent request gets `false`.
 */
export async function takeEmailSlot(
  ctx: ThrottleContext,
  kind: ThrottledEmailKind,
  email: string,
): Promise<boolean> {
  const now = nowOf(ctx);
  const rows = await ctx.em.execute<{ key: string }[]>(
    `insert into login_throttle as t (key, failures, first_failure_at, last_failure_at)
     values (?, 1, ?, ?)
     on conflict (key) do update set failures = t.failures + 1, last_failure_at = excluded.last_failure_at
       where t.last_failure_at <= ?
     returning key`,
    [
      `mail:${kind}:${email.toLowerCase()}`,
      now,
      now,
      new Date(now.getTime() - LOGIN_THROTTLE.emailIntervalMs),
    ],
  );
  return rows.length > 0;
}

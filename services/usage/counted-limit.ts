// One way to keep a count of an organization's things under its limit when requests arrive at once: the action
// runs in a transaction that first takes the organization's lock (db/usage-reservations.ts), then counts, then
// acts — never a count in one statement and an insert in another without the lock between them. Used by the
// limits that count rows (webhook endpoints, API keys, templates, contacts); the monthly documents and SMS
// credits reserve through send-reservation.ts and db/usage-reservations.ts, users and teams through the same
// lock in their services.
import type { EntityManager } from '@mikro-orm/postgresql';
import { lockOrganization } from '../../db/usage-reservations.ts';
import { Conflict } from '../errors.ts';

export interface CountedLimit {
  /** What is counted, for the message: "webhook endpoints". */
  what: string;
  /** The most allowed. */
  max: number;
  /** The code of the 409: `webhook_endpoint_limit`. */
  code: string;
  /** What to do about it, for the message: "delete one first". */
  remedy: string;
  /** Counts the organization's things inside the locked transaction. */
  count(tx: EntityManager): Promise<number>;
}

/**
 * Runs `act` in a transaction holding the organization's lock, once `limit` leaves room for `adding` more;
 * 409 with the limit's code otherwise, having done nothing.
 */
export function withinCountedLimit<T>(
  em: EntityManager,
  organizationId: string,
  limit: CountedLimit,
  act: (tx: EntityManager) => Promise<T>,
  adding = 1,
): Promise<T> {
  return em.transactional(async (tx) => {
    await requireRoom(tx, organizationId, limit, adding);
    return act(tx);
  });
}

/**
 * Inside the caller's transaction `tx`: takes the organization's lock and refuses (409) when `limit` leaves no
 * room for `adding` more. The caller then acts in the same transaction.
 */
export async function requireRoom(
  tx: EntityManager,
  organizationId: string,
  limit: CountedLimit,
  adding = 1,
): Promise<void> {
  await lockOrganization(tx, organizationId);
  const count = await limit.count(tx);
  if (count + adding > limit.max) throw countedLimitReached(limit, count);
}

/**
 * Flushes what the unit of work `em` holds (a new row and its companions) in a transaction that first takes the
 * organization's lock and checks `limit` (whose count must be SQL: an ORM count would flush the new rows first).
 */
export async function flushWithinLimit(
  em: EntityManager,
  organizationId: string,
  limit: CountedLimit,
): Promise<void> {
  await em.begin();
  try {
    await requireRoom(em, organizationId, limit);
    await em.commit();
  } catch (error) {
    await em.rollback();
    throw error;
  }
}

export function countedLimitReached(limit: CountedLimit, count: number): Conflict {
  return new Conflict(
    `The organization has ${count} ${limit.what}, and at most ${limit.max} are allowed; ${limit.remedy}.`,
    [{ field: limit.what, message: `at most ${limit.max}`, limit: limit.max }],
    limit.code,
  );
}

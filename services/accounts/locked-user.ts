// The signed-in user's row, locked for the rest of the transaction: a user's second-factor changes and checks
// (setting up or confirming an authenticator app, registering a passkey, a code at sign-in or to confirm an
// action) run one at a time, each reading the user as the one before it left them.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppUser } from '../../db/entities/index.ts';

export function lockedUser(tx: EntityManager, userId: string): Promise<AppUser> {
  return tx.findOneOrFail(AppUser, { id: userId }, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
}

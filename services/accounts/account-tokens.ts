// Single-use tokens of emailed links (docs/accounts.md, "Emailed links"): email verification, password reset,
// invitation and the confirmation of a new email address (which the token carries: `newEmail`). 32 random bytes in base64url; only their SHA-256 is stored; each expires, and using one
// marks it used. Issuing a new token of a kind ends the user's earlier unused ones of that kind, so only the
// latest link works.
import { randomUUID } from 'node:crypto';
import { AccountToken } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { randomToken, sha256Hex } from '../security/secrets.ts';
import { nowOf, type SessionClock } from './sessions.ts';

export type AccountTokenKind = 'verify_email' | 'reset_password' | 'invite' | 'change_email';

/** How long each kind of link works. */
export const ACCOUNT_TOKEN_LIFETIME_MS: Record<AccountTokenKind, number> = {
  verify_email: 48 * 60 * 60 * 1000,
  reset_password: 60 * 60 * 1000,
  invite: 7 * 24 * 60 * 60 * 1000,
  change_email: 24 * 60 * 60 * 1000,
};

/** A new token for the user (earlier unused ones of the kind stop working); the caller flushes. */
export async function issueAccountToken(
  ctx: DataContext & SessionClock,
  userId: string,
  kind: AccountTokenKind,
  /** `change_email`: the address the link confirms. */
  newEmail: string | null = null,
): Promise<string> {
  const now = nowOf(ctx);
  await ctx.em.nativeUpdate(AccountToken, { userId, kind, usedAt: null }, { usedAt: now });
  const token = randomToken(32);
  ctx.em.create(AccountToken, {
    id: randomUUID(),
    tokenHash: sha256Hex(token),
    kind,
    newEmail,
    userId,
    expiresAt: new Date(now.getTime() + ACCOUNT_TOKEN_LIFETIME_MS[kind]),
    usedAt: null,
    createdAt: now,
  });
  return token;
}

/** The unused, unexpired token of this kind, or null (unknown, used, expired or another kind: one answer). */
export async function findAccountToken(
  ctx: DataContext & SessionClock,
  token: string,
  kind: AccountTokenKind,
): Promise<AccountToken | null> {
  const found = await ctx.em.findOne(AccountToken, { tokenHash: sha256Hex(token), kind, usedAt: null });
  if (!found || found.expiresAt <= nowOf(ctx)) return null;
  return found;
}

/** Marks the token used in the caller's unit of work (flush or transaction writes it with the change). */
export function useAccountToken(ctx: SessionClock, token: AccountToken): void {
  token.usedAt = nowOf(ctx);
}

// Backup codes of two-step verification (docs/accounts.md, "Two-step verification"): ten single-use codes
// `xxxxx-xxxxx` of lower-case letters and digits without the ones that read alike (0/o, 1/l/i), shown once
// when made; only their SHA-256 is stored (ten random characters from 31: about 50 bits, no dictionary to try).
// Codes are compared without the dash (domain/account.ts `BackupCode` strips it and lower-cases).
import { randomInt, randomUUID } from 'node:crypto';
import { MfaBackupCode } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { sha256Hex } from '../security/secrets.ts';
import { nowOf, type SessionClock } from './sessions.ts';

export const BACKUP_CODE_COUNT = 10;
export const BACKUP_CODE_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** One new code as shown: `xxxxx-xxxxx`. */
export function newBackupCode(): string {
  const characters = Array.from(
    { length: 10 },
    () => BACKUP_CODE_ALPHABET[randomInt(BACKUP_CODE_ALPHABET.length)] as string,
  );
  return `${characters.slice(0, 5).join('')}-${characters.slice(5).join('')}`;
}

const hashOf = (code: string) => sha256Hex(code.replace('-', '').toLowerCase());

/** The user's codes replaced by ten new ones (the old ones stop working); answers them as shown, once. */
export async function replaceBackupCodes(ctx: DataContext & SessionClock, userId: string): Promise<string[]> {
  await ctx.em.nativeDelete(MfaBackupCode, { userId });
  const now = nowOf(ctx);
  const codes = Array.from({ length: BACKUP_CODE_COUNT }, newBackupCode);
  for (const code of codes) {
    ctx.em.create(MfaBackupCode, {
      id: randomUUID(),
      userId,
      codeHash: hashOf(code),
      usedAt: null,
      createdAt: now,
    });
  }
  await ctx.em.flush();
  return codes;
}

/** Marks the user's unused code `code` used; false when there is none (unknown or used before). */
export async function useBackupCode(
  ctx: DataContext & SessionClock,
  userId: string,
  code: string,
): Promise<boolean> {
  const used = await ctx.em.nativeUpdate(
    MfaBackupCode,
    { userId, codeHash: hashOf(code), usedAt: null },
    { usedAt: nowOf(ctx) },
  );
  return used > 0;
}

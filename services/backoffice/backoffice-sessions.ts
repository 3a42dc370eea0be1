// Backoffice sessions (docs/backoffice.md, "Sessions"): an opaque random token in an HttpOnly cookie of its
// own (`sigil_backoffice_session`, never the organization users' `sigil_session`), of which only the SHA-256 is
// stored; it ends after 15 minutes without a request and 8 hours after sign-in whatever the activity, at
// sign-out, and when its administrator is removed.
import { randomUUID } from 'node:crypto';
import { PlatformAdmin, PlatformAdminSession } from '../../db/entities/index.ts';
import { BACKOFFICE_SECURITY } from '../../domain/backoffice.ts';
import { nowOf, type SessionClock } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import { randomToken, sha256Hex } from '../security/secrets.ts';

export const BACKOFFICE_SESSION_COOKIE = 'sigil_backoffice_session';
export const BACKOFFICE_IDLE_TIMEOUT_MS = BACKOFFICE_SECURITY.idleTimeoutMinutes * 60 * 1000;
export const BACKOFFICE_ABSOLUTE_LIFETIME_MS = BACKOFFICE_SECURITY.absoluteLifetimeHours * 60 * 60 * 1000;
/** `last_seen_at` is written at most this often. */
const TOUCH_INTERVAL_MS = 30 * 1000;

/** Who is signed in to the backoffice: what the backoffice routes' access check and services read. */
export interface PlatformAdminPrincipal {
  admin: PlatformAdmin;
  session: PlatformAdminSession;
}

export async function startBackofficeSession(
  ctx: DataContext & SessionClock,
  input: { admin: PlatformAdmin; ipAddress: string | null; userAgent: string | null },
): Promise<{ token: string; session: PlatformAdminSession }> {
  const now = nowOf(ctx);
  const token = randomToken(32);
  const session = ctx.em.create(PlatformAdminSession, {
    id: randomUUID(),
    tokenHash: sha256Hex(token),
    adminId: input.admin.id,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + BACKOFFICE_ABSOLUTE_LIFETIME_MS),
    endedAt: null,
    endedReason: null,
    ipAddress: input.ipAddress,
    userAgent: input.userAgent?.slice(0, 500) ?? null,
  });
  await ctx.em.flush();
  return { token, session };
}

/** The administrator of a cookie token, or null; a session found idle or expired is ended on the way. */
export async function findBackofficeSession(
  ctx: DataContext & SessionClock,
  token: string,
): Promise<PlatformAdminPrincipal | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const session = await ctx.em.findOne(PlatformAdminSession, { tokenHash: sha256Hex(token), endedAt: null });
  if (!session) return null;
  const now = nowOf(ctx);
  const admin = await ctx.em.findOne(PlatformAdmin, { id: session.adminId });
  const ended = !admin
    ? 'removed'
    : now >= session.expiresAt
      ? 'expired'
      : now.getTime() - session.lastSeenAt.getTime() > BACKOFFICE_IDLE_TIMEOUT_MS
        ? 'idle'
        : null;
  if (ended || !admin) {
    session.endedAt = now;
    session.endedReason = ended;
    await ctx.em.flush();
    return null;
  }
  if (now.getTime() - session.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) {
    session.lastSeenAt = now;
    await ctx.em.flush();
  }
  return { admin, session };
}

export async function endBackofficeSession(
  ctx: DataContext & SessionClock,
  session: PlatformAdminSession,
  reason: string,
): Promise<void> {
  if (session.endedAt) return;
  session.endedAt = nowOf(ctx);
  session.endedReason = reason;
  await ctx.em.flush();
}

// The backoffice audit log (docs/backoffice.md, "Audit log"): every backoffice action with who did it (an
// administrator, the operator CLI, or a visitor trying to sign in), when, from which address and what changed
// (an action and its details — never a password, a code or a token). Written in the caller's unit of work, so
// the entry commits with the change it describes; read newest first, a page at a time.
import { randomUUID } from 'node:crypto';
import { BackofficeAuditEvent, type PlatformAdmin } from '../../db/entities/index.ts';
import { nowOf, type SessionClock } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import { InvalidRequest } from '../errors.ts';

export type BackofficeActor =
  | { kind: 'platform_admin'; admin: Pick<PlatformAdmin, 'id' | 'email'>; ipAddress: string | null }
  | { kind: 'operator_cli' }
  | { kind: 'visitor'; email: string; ipAddress: string | null };

export interface BackofficeAuditEntry {
  action: string;
  targetId?: string | null;
  details?: Record<string, unknown>;
}

/** Adds an entry to the caller's unit of work (flushed with the change it records). */
export function recordBackofficeEvent(
  ctx: DataContext & SessionClock,
  actor: BackofficeActor,
  entry: BackofficeAuditEntry,
): BackofficeAuditEvent {
  return ctx.em.create(BackofficeAuditEvent, {
    id: randomUUID(),
    occurredAt: nowOf(ctx),
    actorKind: actor.kind,
    actorAdminId: actor.kind === 'platform_admin' ? actor.admin.id : null,
    actorEmail:
      actor.kind === 'platform_admin' ? actor.admin.email : actor.kind === 'visitor' ? actor.email : null,
    ipAddress: actor.kind === 'operator_cli' ? null : actor.ipAddress,
    action: entry.action,
    targetId: entry.targetId ?? null,
    details: entry.details ?? {},
  });
}

const encodeCursor = (event: BackofficeAuditEvent) =>
  Buffer.from(`${event.occurredAt.toISOString()}|${event.id}`, 'utf8').toString('base64url');

function decodeCursor(cursor: string): { at: Date; id: string } {
  const [at = '', id = ''] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const date = new Date(at);
  if (Number.isNaN(date.getTime()) || !/^[0-9a-f-]{36}$/.test(id)) {
    throw new InvalidRequest('cursor is not the nextCursor of a previous page.', [
      { field: 'querystring.cursor', message: 'not the nextCursor of a previous page' },
    ]);
  }
  return { at: date, id };
}

/** A page of the log, newest first; `nextCursor` reads the next (older) page, null at the end. */
export async function listBackofficeAuditLog(
  ctx: DataContext,
  input: { limit: number; cursor?: string | undefined },
) {
  const after = input.cursor ? decodeCursor(input.cursor) : null;
  const events = await ctx.em.find(
    BackofficeAuditEvent,
    after
      ? {
          $or: [{ occurredAt: { $lt: after.at } }, { occurredAt: after.at, id: { $lt: after.id } }],
        }
      : {},
    { orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }], limit: input.limit + 1 },
  );
  const page = events.slice(0, input.limit);
  return {
    events: page.map((event) => ({
      id: event.id,
      occurredAt: event.occurredAt.toISOString(),
      actor: {
        kind: event.actorKind as 'platform_admin' | 'operator_cli' | 'visitor',
        administratorId: event.actorAdminId ?? null,
        email: event.actorEmail ?? null,
      },
      ipAddress: event.ipAddress ?? null,
      action: event.action,
      targetId: event.targetId ?? null,
      details: event.details,
    })),
    nextCursor:
      events.length > input.limit && page.length > 0
        ? encodeCursor(page.at(-1) as BackofficeAuditEvent)
        : null,
  };
}

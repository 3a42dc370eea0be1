// GET /api/organization/security-log: the organization's security events, newest first, a page at a time:
// `before` is the id of the last event of the previous page, and `nextBefore` the value for the next one
// (null: no more). Each event names who acted and whom it concerned, as they were recorded: a deleted user
// keeps their name, and the address the event recorded.
import type { z } from 'zod';
import { AppUser, SecurityEvent } from '../../db/entities/index.ts';
import { type SecurityEventView, SecurityLogQuery } from '../../domain/account.ts';
import type { DataContext } from '../context.ts';
import { NotFound } from '../errors.ts';
import { parseInput } from '../validation.ts';
import type { Actor } from './administration.ts';

type EventView = z.output<typeof SecurityEventView>;

export async function listSecurityLog(
  ctx: DataContext,
  actor: Actor,
  input: unknown,
): Promise<{ events: EventView[]; nextBefore: string | null }> {
  const query = parseInput(SecurityLogQuery, input ?? {}, 'security log query');
  const organizationId = actor.organization.id;
  const { em } = ctx;
  if (query.before !== undefined) {
    const known = await em.count(SecurityEvent, { id: query.before, organizationId });
    // Another organization's event is not found, exactly like one that does not exist.
    if (!known)
      throw new NotFound(`Event ${query.before} was not found in this organization's security log.`);
  }
  // (occurred_at, id) orders the log strictly, also for events recorded at the same instant; compared in
  // SQL, at the database's own precision.
  const rows = await em.execute<{ id: string }[]>(
    `select id from security_event
      where organization_id = ?
        and (?::uuid is null
             or (occurred_at, id) < (select occurred_at, id from security_event where id = ?::uuid))
      order by occurred_at desc, id desc
      limit ?`,
    [organizationId, query.before ?? null, query.before ?? null, query.limit + 1],
  );
  const loaded = await em.find(SecurityEvent, { id: { $in: rows.map((row) => row.id) } });
  const byId = new Map(loaded.map((event) => [event.id, event]));
  const events = rows.map((row) => byId.get(row.id)).filter((event) => event !== undefined);
  const page = events.slice(0, query.limit);
  const userIds = [
    ...new Set(page.flatMap((event) => [event.actorUserId, event.subjectUserId]).filter((id) => id != null)),
  ];
  const users = userIds.length > 0 ? await em.find(AppUser, { id: { $in: userIds }, organizationId }) : [];
  const userById = new Map(users.map((user) => [user.id, user]));
  return {
    events: page.map((event) => {
      const actorUser = event.actorUserId ? userById.get(event.actorUserId) : undefined;
      const subjectUser = event.subjectUserId ? userById.get(event.subjectUserId) : undefined;
      const subjectEmail = event.subjectEmail ?? subjectUser?.email ?? null;
      return {
        id: event.id,
        type: event.type as EventView['type'],
        occurredAt: event.occurredAt.toISOString(),
        actor: actorUser ? { id: actorUser.id, email: actorUser.email, fullName: actorUser.fullName } : null,
        subject: subjectEmail !== null ? { id: event.subjectUserId ?? null, email: subjectEmail } : null,
        ipAddress: event.ipAddress ?? null,
        details: event.details ?? {},
      };
    }),
    nextBefore: events.length > query.limit ? (page.at(-1)?.id ?? null) : null,
  };
}

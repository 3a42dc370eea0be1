// The organization's security log (docs/accounts.md, "Security log"): sign-ins, failures, lockouts, MFA
// changes, password resets, invitations, role, team, user and settings changes. Written in the caller's unit
// of work, so an event is recorded with the change it describes or not at all; read by
// GET /api/organization/security-log. Details never hold a secret (no password, token, code or hash).
import { randomUUID } from 'node:crypto';
import { SecurityEvent } from '../../db/entities/index.ts';
import type { SecurityEventType } from '../../domain/account.ts';
import type { DataContext } from '../context.ts';
import { nowOf, type SessionClock } from './sessions.ts';

export interface SecurityEventInput {
  organizationId: string;
  type: SecurityEventType;
  /** The signed-in user who acted; null when nobody was (a failed sign-in, a reset by link). */
  actorUserId?: string | null;
  /** The user it concerns, when not the actor. */
  subjectUserId?: string | null;
  /** The address it concerns (kept when the user is later deleted, or when no user matched). */
  subjectEmail?: string | null;
  ipAddress?: string | null;
  details?: Record<string, unknown>;
}

/** Adds the event to the unit of work; the caller's flush (or transaction) writes it with its change. */
export function recordSecurityEvent(
  ctx: DataContext & SessionClock,
  input: SecurityEventInput,
): SecurityEvent {
  return ctx.em.create(SecurityEvent, {
    id: randomUUID(),
    organizationId: input.organizationId,
    type: input.type,
    actorUserId: input.actorUserId ?? null,
    subjectUserId: input.subjectUserId ?? null,
    subjectEmail: input.subjectEmail ?? null,
    ipAddress: input.ipAddress ?? null,
    details: input.details ?? {},
    occurredAt: nowOf(ctx),
  });
}

/** The signed-in user who changes their organization, from their address (a role, team, user, setting). */
export interface SecurityActor {
  user: { id: string };
  organization: { id: string };
  ipAddress?: string | null;
}

/** Records a change a signed-in user made to their organization: the organization, actor and address are theirs. */
export function recordActorEvent(
  ctx: DataContext & SessionClock,
  actor: SecurityActor,
  event: Omit<SecurityEventInput, 'organizationId' | 'actorUserId' | 'ipAddress'>,
): SecurityEvent {
  return recordSecurityEvent(ctx, {
    organizationId: actor.organization.id,
    actorUserId: actor.user.id,
    ipAddress: actor.ipAddress ?? null,
    ...event,
  });
}

/** Records what a user did to their own account (a sign-in, a second factor, a password), from `ipAddress`. */
export function recordOwnEvent(
  ctx: DataContext & SessionClock,
  user: { id: string; organizationId: string },
  ipAddress: string | null | undefined,
  event: Omit<SecurityEventInput, 'organizationId' | 'actorUserId' | 'ipAddress'>,
): SecurityEvent {
  return recordSecurityEvent(ctx, {
    organizationId: user.organizationId,
    actorUserId: user.id,
    ipAddress,
    ...event,
  });
}

// Who reads the documents (docs/documents.md, "Who sees which envelope"): the signed-in user, their team and what
// their role allows. A user sees the envelopes they created and those created by their team (the team recorded
// on the envelope when it was created); `documents:read_all` (Owner and Administrator) sees every envelope of the
// organization, including the public API's, which have no sending user. Deleted envelopes are nobody's. An
// envelope the user does not see is "not found", exactly as another organization's.
import { Envelope } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { SessionPrincipal } from '../accounts/sessions.ts';
import type { DataContext } from '../context.ts';
import { NotFound } from '../errors.ts';

export interface DocumentReader {
  organizationId: string;
  userId: string;
  /** The user's team now (they see the envelopes created in it). */
  teamId: string | null;
  /** The user's address: "action needed" finds the envelopes waiting on them as a recipient by it. */
  email: string;
  /** documents:read_all */
  readsAll: boolean;
  /** documents:manage: sends, reminds, cancels, extends and retries. */
  manages: boolean;
  /** settings:read: sees the envelope's Temporal workflow (its id and a link to the Web UI). */
  seesWorkflow: boolean;
}

export function documentReaderOf(principal: SessionPrincipal): DocumentReader {
  return {
    organizationId: principal.organization.id,
    userId: principal.user.id,
    teamId: principal.team?.id ?? null,
    email: principal.user.email,
    readsAll: principal.permissions.includes('documents:read_all'),
    manages: principal.permissions.includes('documents:manage'),
    seesWorkflow: principal.permissions.includes('settings:read'),
  };
}

/** A SQL condition and its parameters (`?` placeholders, in order). */
export interface Condition {
  sql: string;
  params: unknown[];
}

/** The envelopes (alias `e`) the reader sees. */
export function visibleTo(reader: DocumentReader): Condition {
  const base = `e.organization_id = ? and e.status <> 'Deleted'`;
  if (reader.readsAll) return { sql: base, params: [reader.organizationId] };
  return reader.teamId
    ? {
        sql: `${base} and (e.created_by_user_id = ? or e.team_id = ?)`,
        params: [reader.organizationId, reader.userId, reader.teamId],
      }
    : { sql: `${base} and e.created_by_user_id = ?`, params: [reader.organizationId, reader.userId] };
}

/** The envelope, read from PostgreSQL, when the reader sees it; "not found" otherwise (or for a malformed id). */
export async function findVisibleEnvelope(
  ctx: DataContext,
  reader: DocumentReader,
  envelopeId: string,
): Promise<Envelope> {
  const owners = [{ createdByUserId: reader.userId }, ...(reader.teamId ? [{ teamId: reader.teamId }] : [])];
  const envelope = UUID_PATTERN.test(envelopeId)
    ? await ctx.em.findOne(
        Envelope,
        {
          id: envelopeId,
          organizationId: reader.organizationId,
          status: { $ne: 'Deleted' },
          ...(reader.readsAll ? {} : { $or: owners }),
        },
        { refresh: true },
      )
    : null;
  if (!envelope) throw new NotFound(`Envelope ${envelopeId} was not found.`);
  return envelope;
}

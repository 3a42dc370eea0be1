// The purge of deleted organizations (docs/backoffice.md, "Suspension and deletion"), the last phase of the daily
// retention run (workflows/retention.ts): an organization a platform administrator deleted
// ORGANIZATION_PURGE_DAYS days ago or more, none of whose envelopes is still being signed, loses all its data in one
// transaction — its envelopes with their recipients, values, audit events, links, codes, notifications and files,
// its templates, uploads, users (with their sessions, second factors and stamps), roles, teams, contacts, OAuth
// clients and tokens, webhook endpoints and deliveries, bulk sends, idempotency records, security log and credit
// grants — and finally its row. What stays: the backoffice audit log (which names it by id and name) and the
// counters of rate-limit windows and sign-in throttles, which hold no organization data and expire on their own.
//
// An organization with an envelope still in progress (sent and not ended: its workflow still runs) is held back
// and looked at again the next day. Every candidate is looked for again under its row lock with the same
// condition, so a rerun finds nothing done twice. `asOf` is the run's clock (the workflow's time).
import type { EntityManager } from '@mikro-orm/postgresql';
import { ORGANIZATION_PURGE_DAYS } from '../domain/backoffice-organizations.ts';
import { TERMINAL_ENVELOPE_STATUSES } from '../domain/vocabulary.ts';
import { idsAfter } from './keyset.ts';

/** Envelopes that have no running workflow: ended ones and drafts never sent. */
const AT_REST = [...TERMINAL_ENVELOPE_STATUSES, 'Draft'].map((status) => `'${status}'`).join(', ');

/** Deleted organizations (`o`) due for the purge. Parameter: `asOf`. */
const PURGE_DUE = `
  from organization o
 where o.deleted_at is not null
   and o.deleted_at <= ?::timestamptz - make_interval(days => ${ORGANIZATION_PURGE_DAYS})
   and not exists (select 1 from envelope e where e.organization_id = o.id and e.status not in (${AT_REST}))`;

/** Ids of deleted organizations due for the purge after `after`, in id order, at most `limit`. */
export async function organizationsDueForPurge(
  em: EntityManager,
  asOf: Date,
  after: string | null,
  limit: number,
): Promise<string[]> {
  return idsAfter(em, 'o', `select o.id ${PURGE_DUE}`, [asOf], { after, limit });
}

/**
 * The tables holding an organization's rows that deleting the organization does not cascade to, in an order
 * that keeps every constraint that is checked at once (the others are deferred to the commit): bulk sends before
 * the templates they name, envelopes (cascading to their recipients, values, audit events, links, codes, signer
 * sessions and notifications) before their templates and files.
 */
const OWN_TABLES = [
  'bulk_send',
  'envelope',
  'audit_event',
  'signing_link',
  'otp_code',
  'signer_session',
  'sandbox_envelope',
  'webhook_delivery',
  'webhook_endpoint',
  'oauth_access_token',
  'oauth_client',
  'idempotency_record',
  'template',
];

export interface PurgedOrganization {
  organizationId: string;
  /** Envelopes deleted with it. */
  envelopes: number;
  /** Stored files deleted with it. */
  files: number;
}

/**
 * Deletes one deleted organization's data, in a transaction of its own; null when it is not (or no longer) due.
 * Deleting the organization's row cascades to its roles, teams, users (and their sessions, second factors,
 * stamps), contacts, security log, notifications and credit grants; its stored files go last.
 */
export async function purgeOrganization(
  em: EntityManager,
  organizationId: string,
  asOf: Date,
): Promise<PurgedOrganization | null> {
  return em.fork().transactional(async (tx) => {
    const [due] = await tx.execute<{ id: string }[]>(
      `select o.id ${PURGE_DUE} and o.id = ? for update of o`,
      [asOf, organizationId],
    );
    if (!due) return null;
    const [counts] = await tx.execute<{ envelopes: number; files: number }[]>(
      `select (select count(*) from envelope where organization_id = ?)::int as envelopes,
              (select count(*) from stored_file where organization_id = ?)::int as files`,
      [organizationId, organizationId],
    );
    for (const table of OWN_TABLES) {
      await tx.execute(`delete from ${table} where organization_id = ?`, [organizationId]);
    }
    await tx.execute('delete from organization where id = ?', [organizationId]);
    await tx.execute('delete from stored_file where organization_id = ?', [organizationId]);
    return {
      organizationId,
      envelopes: Number(counts?.envelopes ?? 0),
      files: Number(counts?.files ?? 0),
    };
  });
}

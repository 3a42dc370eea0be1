// Signing links: `{publicBaseUrl}/sign/<token>`, a 256-bit random token of which only the SHA-256 is stored
// (the signer API looks the link up by that hash, services/signing/signing-session.ts). Made by the
// API (links handed to integrators and operators) and by the notifications activity (links in messages).
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SigningLink } from './entities/index.ts';
import { prepared, runPrepared } from './prepared.ts';

export interface LinkedRecipient {
  recipientId: string;
  envelopeId: string;
  organizationId: string;
}

/** Adds a new link to `em`'s unit of work (flushed by the caller) and returns its URL. */
export function addSigningLink(em: EntityManager, recipient: LinkedRecipient, publicBaseUrl: string): string {
  const token = randomBytes(32).toString('base64url');
  em.create(SigningLink, {
    tokenHash: signingTokenHash(token),
    ...recipient,
    revokedAt: null,
  });
  return linkUrl(publicBaseUrl, token);
}

const SIGNING_LINK_INSERT = prepared(
  'signing_link_insert',
  `insert into signing_link (token_hash, recipient_id, envelope_id, organization_id, created_at, revoked_at)
   values (?, ?::uuid, ?::uuid, ?::uuid, now(), null)`,
);

/**
 * Stores a new link by one statement of its own (committed when it returns, outside a transaction; in `em`'s
 * when there is one) and returns its URL: for a link that goes out in a message at once.
 */
export async function insertSigningLink(
  em: EntityManager,
  recipient: LinkedRecipient,
  publicBaseUrl: string,
): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await runPrepared(em, SIGNING_LINK_INSERT, [
    signingTokenHash(token),
    recipient.recipientId,
    recipient.envelopeId,
    recipient.organizationId,
  ]);
  return linkUrl(publicBaseUrl, token);
}

const SIGNING_LINK_INSERT_IF_ADDRESSED = prepared(
  'signing_link_insert_if_addressed',
  `insert into signing_link (token_hash, recipient_id, envelope_id, organization_id, created_at, revoked_at)
   select ?, r.id, r.envelope_id, ?::uuid, now(), null
     from recipient r
    where r.id = ?::uuid and r.envelope_id = ?::uuid
      and (case when ?::text = 'email' then r.email else r.phone end) is not distinct from ?::text
      for share of r
   returning token_hash`,
);

/**
 * As insertSigningLink, for a message on its way to `address`: the link is stored only while the recipient's
 * email (`kind: 'email'`) or phone is still that address, and answers null otherwise. The recipient's row is
 * read `for share`, so a correction or delegation that changes the address and ends the recipient's links in
 * one transaction is waited for and then seen: a link can never be stored for the old address after that
 * transaction ended the old address's links.
 */
export async function insertSigningLinkIfAddressed(
  em: EntityManager,
  recipient: LinkedRecipient,
  address: { kind: 'email' | 'phone'; to: string | null },
  publicBaseUrl: string,
): Promise<string | null> {
  const token = randomBytes(32).toString('base64url');
  // The envelope's row first, as the projection takes it (`for update`) before it writes the recipient's: the
  // link's own foreign-key check would otherwise wait for the envelope while holding the recipient, which a
  // projection of the same envelope waits for — a deadlock (seen in a full test run).
  const rows = await em.fork().transactional(async (tx) => {
    await tx.execute('select 1 from envelope where id = ? for key share', [recipient.envelopeId]);
    return runPrepared(tx, SIGNING_LINK_INSERT_IF_ADDRESSED, [
      signingTokenHash(token),
      recipient.organizationId,
      recipient.recipientId,
      recipient.envelopeId,
      address.kind,
      address.to,
    ]);
  });
  return rows.length > 0 ? linkUrl(publicBaseUrl, token) : null;
}

function linkUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/sign/${token}`;
}

export function signingTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

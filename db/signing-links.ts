// Signing links: `{publicBaseUrl}/sign/<token>`, a 256-bit random token of which only the SHA-256 is stored
// (the signer API looks the link up by that hash, api/services/signing/signing-session.ts). Made by the
// API (links handed to integrators and operators) and by the notifications activity (links in messages).
import { createHash, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SigningLink } from './entities/index.ts';

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
  return `${publicBaseUrl.replace(/\/+$/, '')}/sign/${token}`;
}

export function signingTokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

// Issues each acting recipient of a sent envelope a fresh signing link `{publicBaseUrl}/sign/<token>`,
// revoking that recipient's earlier links. The 256-bit token exists only in the returned URL; the table
// keeps its SHA-256.
import { SigningLink } from '../../../db/entities/index.ts';
import { actsInRounds } from '../../../workflows/rounds.ts';
import { Conflict } from '../../errors.ts';
import { randomToken, sha256Hex } from '../../security/secrets.ts';
import type { ServiceContext } from '../context.ts';
import { findEnvelope } from '../envelopes/find-envelope.ts';

export interface IssuedSigningLink {
  recipientId: string;
  fullName: string;
  url: string;
}

export async function issueSigningLinks(
  ctx: Pick<ServiceContext, 'orm' | 'config'>,
  organizationId: string,
  envelopeId: string,
): Promise<IssuedSigningLink[]> {
  const { envelope, recipients } = await findEnvelope(ctx, organizationId, envelopeId);
  if (envelope.status === 'Draft') {
    throw new Conflict(`Envelope ${envelope.id} is Draft: send it before issuing signing links.`);
  }
  const acting = recipients.filter(actsInRounds);
  const base = ctx.config.publicBaseUrl.replace(/\/+$/, '');
  const issued: IssuedSigningLink[] = [];
  await ctx.orm.em.fork().transactional(async (tx) => {
    if (acting.length > 0) {
      await tx.nativeUpdate(
        SigningLink,
        { recipientId: { $in: acting.map((r) => r.id) }, revokedAt: null },
        { revokedAt: new Date() },
      );
    }
    for (const recipient of acting) {
      const token = randomToken();
      tx.create(SigningLink, {
        tokenHash: sha256Hex(token),
        recipientId: recipient.id,
        envelopeId: envelope.id,
        organizationId: envelope.organizationId,
        revokedAt: null,
      });
      issued.push({ recipientId: recipient.id, fullName: recipient.fullName, url: `${base}/sign/${token}` });
    }
  });
  return issued;
}

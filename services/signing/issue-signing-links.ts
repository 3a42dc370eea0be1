// Issues each acting recipient of a sent envelope a fresh signing link `{publicBaseUrl}/sign/<token>`,
// revoking that recipient's earlier links (db/signing-links.ts: the token exists only in the returned URL).
import { type Envelope, type Recipient, SigningLink } from '../../db/entities/index.ts';
import { addSigningLink } from '../../db/signing-links.ts';
import { actsInRounds } from '../../workflows/rounds.ts';
import type { ServiceContext } from '../context.ts';
import { findEnvelope } from '../envelopes/find-envelope.ts';
import { Conflict, NotFound } from '../errors.ts';

export interface IssuedSigningLink {
  recipientId: string;
  fullName: string;
  url: string;
}

export async function issueSigningLinks(
  ctx: Pick<ServiceContext, 'em' | 'config'>,
  organizationId: string,
  envelopeId: string,
): Promise<IssuedSigningLink[]> {
  const { envelope, recipients } = await findEnvelope(ctx, organizationId, envelopeId);
  if (envelope.status === 'Draft') {
    throw new Conflict(`Envelope ${envelope.id} is Draft: send it before issuing signing links.`);
  }
  const acting = recipients.filter(actsInRounds);
  const urls = await replaceLinks(ctx, envelope, acting);
  return acting.map((recipient) => ({
    recipientId: recipient.id,
    fullName: recipient.fullName,
    url: urls.get(recipient.id) as string,
  }));
}

/** Channels whose recipients get no message: the link goes to the caller, who hands it over. */
const HANDED_OVER: readonly string[] = ['Api', 'ManualLink'];

/**
 * A fresh link for one `Api` or `ManualLink` recipient of a sent envelope (their earlier links are revoked),
 * for the integrator to hand over or to open in its own application. Recipients reached by email, SMS or
 * WhatsApp get their links only in their messages.
 */
export async function issueRecipientSigningLink(
  ctx: Pick<ServiceContext, 'em' | 'config'>,
  organizationId: string,
  envelopeId: string,
  recipientId: string,
): Promise<IssuedSigningLink & { deliveryChannel: string }> {
  const { envelope, recipients } = await findEnvelope(ctx, organizationId, envelopeId);
  const recipient = recipients.find((r) => r.id === recipientId);
  if (!recipient) throw new NotFound(`Recipient ${recipientId} was not found on envelope ${envelope.id}.`);
  if (envelope.status === 'Draft') {
    throw new Conflict(`Envelope ${envelope.id} is Draft: send it before asking for signing links.`);
  }
  if (!HANDED_OVER.includes(recipient.deliveryChannel)) {
    throw new Conflict(
      `Recipient ${recipient.id} receives their signing link by ${recipient.deliveryChannel}; links are returned through the API only for Api and ManualLink recipients.`,
      [{ field: 'deliveryChannel', message: recipient.deliveryChannel }],
    );
  }
  const urls = await replaceLinks(ctx, envelope, [recipient]);
  return {
    recipientId: recipient.id,
    fullName: recipient.fullName,
    url: urls.get(recipient.id) as string,
    deliveryChannel: recipient.deliveryChannel,
  };
}

/**
 * Revokes the recipients' earlier links and stores a new one for each, in one transaction; the URLs by
 * recipient id. The tokens exist only in these URLs.
 */
async function replaceLinks(
  ctx: Pick<ServiceContext, 'em' | 'config'>,
  envelope: Pick<Envelope, 'id' | 'organizationId'>,
  recipients: Pick<Recipient, 'id'>[],
): Promise<Map<string, string>> {
  const urls = new Map<string, string>();
  if (recipients.length === 0) return urls;
  await ctx.em.transactional(async (tx) => {
    await tx.nativeUpdate(
      SigningLink,
      { recipientId: { $in: recipients.map((r) => r.id) }, revokedAt: null },
      { revokedAt: new Date() },
    );
    for (const recipient of recipients) {
      const linked = {
        recipientId: recipient.id,
        envelopeId: envelope.id,
        organizationId: envelope.organizationId,
      };
      urls.set(recipient.id, addSigningLink(tx, linked, ctx.config.publicBaseUrl));
    }
  });
  return urls;
}

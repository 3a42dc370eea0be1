// Reads an envelope of one organization with its recipients; a foreign or unknown id is "not found".
import { Envelope, Recipient } from '../../../db/entities/index.ts';
import { NotFound } from '../../errors.ts';
import type { DataContext } from '../context.ts';
import { UUID_PATTERN } from '../validation.ts';

export async function findEnvelope(ctx: DataContext, organizationId: string, envelopeId: string) {
  const em = ctx.orm.em.fork();
  const envelope = UUID_PATTERN.test(envelopeId)
    ? await em.findOne(Envelope, { id: envelopeId, organizationId })
    : null;
  if (!envelope) throw new NotFound(`Envelope ${envelopeId} was not found.`);
  const recipients = await em.find(
    Recipient,
    { envelopeId: envelope.id },
    { orderBy: { signingOrder: 'asc', createdAt: 'asc' } },
  );
  return { envelope, recipients };
}

// Reads an envelope of one organization with its recipients; a foreign or unknown id is "not found". Always
// read from PostgreSQL (`refresh`), so a request that changed the envelope through its workflow reads what the
// projection wrote, not what its unit of work loaded before.
import { Envelope, Recipient } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { DataContext } from '../context.ts';
import { NotFound } from '../errors.ts';

export async function findEnvelope(ctx: DataContext, organizationId: string, envelopeId: string) {
  const { em } = ctx;
  const envelope = UUID_PATTERN.test(envelopeId)
    ? await em.findOne(Envelope, { id: envelopeId, organizationId }, { refresh: true })
    : null;
  if (!envelope) throw new NotFound(`Envelope ${envelopeId} was not found.`);
  const recipients = await em.find(
    Recipient,
    { envelopeId: envelope.id },
    { orderBy: { signingOrder: 'asc', position: 'asc', id: 'asc' }, refresh: true },
  );
  return { envelope, recipients };
}

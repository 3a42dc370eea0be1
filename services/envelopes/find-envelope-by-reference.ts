// Finds an organization's envelope by the integrator's externalReference: the most recent one when a
// reference was used more than once (recovery after a timeout is the purpose).
import { Envelope } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { NotFound } from '../errors.ts';

export async function findEnvelopeIdByReference(
  ctx: DataContext,
  organizationId: string,
  externalReference: string,
): Promise<string> {
  const envelope = await ctx.em.findOne(
    Envelope,
    { organizationId, externalReference },
    { orderBy: { createdAt: 'desc' } },
  );
  if (!envelope) throw new NotFound(`No envelope has the external reference "${externalReference}".`);
  return envelope.id;
}

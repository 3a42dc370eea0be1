// Moves an envelope's signing deadline later. A Draft's deadline is changed in place; a sent envelope's
// workflow decides (it refuses a deadline in the past, an earlier one, or a finished envelope).
import { Envelope } from '../../db/entities/index.ts';
import { ExtendEnvelopeRequest } from '../../domain/envelope.ts';
import { type EnvelopeState, extendEnvelopeUpdate } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { updateEnvelope } from './envelope-update.ts';
import { findEnvelope } from './find-envelope.ts';

export async function extendEnvelope(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  input: ExtendEnvelopeRequest,
): Promise<EnvelopeState | undefined> {
  const { expiresAt } = parseInput(ExtendEnvelopeRequest, input, 'extend request');
  const { envelope } = await findEnvelope(ctx, organizationId, envelopeId);
  if (envelope.status === 'Archived' || envelope.status === 'Deleted') {
    // An Expired envelope's workflow may still accept an extension within its grace window: not once the
    // envelope left the active views (docs/envelope-lifecycle.md).
    throw new Conflict(
      envelope.status === 'Archived'
        ? `Envelope ${envelope.id} is Archived: unarchive it before extending it.`
        : `Envelope ${envelope.id} is Deleted and cannot be extended.`,
      [{ field: 'status', message: envelope.status }],
    );
  }
  if (envelope.status === 'Draft') {
    if (envelope.expiresAt && Date.parse(expiresAt) <= envelope.expiresAt.getTime()) {
      throw new Conflict(
        `The new expiresAt must be later than the current deadline ${envelope.expiresAt.toISOString()}.`,
      );
    }
    await ctx.em.nativeUpdate(Envelope, { id: envelope.id }, { expiresAt: new Date(expiresAt) });
    return undefined;
  }
  return updateEnvelope(ctx, envelope, extendEnvelopeUpdate, { expiresAt });
}

// Moves an envelope's signing deadline later. A Draft's deadline is changed in place; a sent envelope's
// workflow decides (it refuses a deadline in the past, an earlier one, or a finished envelope).
import { z } from 'zod';
import { Envelope } from '../../../db/entities/index.ts';
import {
  type EnvelopeState,
  envelopeWorkflowId,
  extendEnvelopeUpdate,
} from '../../../workflows/contracts.ts';
import { Conflict } from '../../errors.ts';
import type { ServiceContext } from '../context.ts';
import { parseInput } from '../validation.ts';
import { findEnvelope } from './find-envelope.ts';
import { toServiceError } from './workflow-errors.ts';

export const ExtendEnvelopeInput = z.object({
  expiresAt: z.iso
    .datetime({ offset: true, message: 'expiresAt must be an ISO 8601 date-time' })
    .refine((value) => Date.parse(value) > Date.now(), 'expiresAt must be in the future'),
});
export type ExtendEnvelopeInput = z.input<typeof ExtendEnvelopeInput>;

export async function extendEnvelope(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  input: ExtendEnvelopeInput,
): Promise<EnvelopeState | undefined> {
  const { expiresAt } = parseInput(ExtendEnvelopeInput, input, 'extend request');
  const { envelope } = await findEnvelope(ctx, organizationId, envelopeId);
  if (envelope.status === 'Draft') {
    if (envelope.expiresAt && Date.parse(expiresAt) <= envelope.expiresAt.getTime()) {
      throw new Conflict(
        `The new expiresAt must be later than the current deadline ${envelope.expiresAt.toISOString()}.`,
      );
    }
    await ctx.orm.em.fork().nativeUpdate(Envelope, { id: envelope.id }, { expiresAt: new Date(expiresAt) });
    return undefined;
  }
  try {
    return await ctx.temporal.workflow
      .getHandle(envelopeWorkflowId(envelope.id))
      .executeUpdate(extendEnvelopeUpdate, { args: [{ expiresAt }] });
  } catch (error) {
    throw toServiceError(error, envelope.id, envelope.status);
  }
}

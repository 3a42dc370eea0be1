// Operators: resumes an envelope whose projection is parked (a transition PostgreSQL refused for good; see
// docs/envelope-lifecycle.md), once its cause is repaired. The workflow projects every queued transition
// again — with `sanitize`, after replacing what PostgreSQL cannot store in their text — and answers when they
// are written; a projection that is not parked, or that PostgreSQL refuses again, is a 409 with the reason.
import { type EnvelopeState, resumeProjectionUpdate } from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { updateEnvelope } from './envelope-update.ts';
import { findEnvelope } from './find-envelope.ts';

export interface ResumeProjectionOptions {
  /** Replace NUL, unpaired surrogates and control characters in the queued transitions' text with U+FFFD. */
  sanitize?: boolean;
}

export async function resumeProjection(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  options: ResumeProjectionOptions = {},
): Promise<EnvelopeState> {
  const { envelope } = await findEnvelope(ctx, organizationId, envelopeId);
  return updateEnvelope(ctx, envelope, resumeProjectionUpdate, { sanitize: options.sanitize === true });
}

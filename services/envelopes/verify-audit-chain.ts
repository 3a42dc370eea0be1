// Verifying an envelope's audit chain for an operator (docs/audit-chain.md): every stored event's hash and
// link recomputed by PostgreSQL, and the head compared with the one the envelope recorded. A broken chain is
// an error naming each event that fails and why (409 `audit_chain_broken`), so the CLI exits non-zero.
import { type AuditChainVerification, verifyAuditChain } from '../../db/audit-chain.ts';
import { Envelope } from '../../db/entities/index.ts';
import type { DataContext } from '../context.ts';
import { AppError, NotFound } from '../errors.ts';

export async function verifyEnvelopeAuditChain(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
): Promise<AuditChainVerification> {
  const envelope = await ctx.em.findOne(Envelope, { id: envelopeId, organizationId });
  const verification = envelope ? await verifyAuditChain(ctx.em, envelope.id) : null;
  if (!verification)
    throw new NotFound(`Envelope ${envelopeId} was not found in organization ${organizationId}.`);
  if (!verification.intact) {
    throw new AppError(
      409,
      'audit_chain_broken',
      `The audit chain of envelope ${envelopeId} is broken: its events were changed, removed or reordered ` +
        'after they were recorded.',
      verification.problems.map((problem) => ({
        field: problem.sequence === null ? 'chain' : `event ${problem.sequence}`,
        message: problem.problem,
      })),
    );
  }
  return verification;
}

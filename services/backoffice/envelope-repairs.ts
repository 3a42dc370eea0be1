// The repairs the backoffice's staff make on an envelope of any organization (docs/backoffice.md, "Repairs"),
// through the operator CLI's own use cases: resume a parked projection, render the final PDF again after
// FinalPdfFailed, re-issue the signing links (earlier links stop working; recipients reached by email, SMS or
// WhatsApp get the new one in a reminder), verify the audit chain. Each needs a reason and, done, is recorded in
// the backoffice audit log and the organization's security log (services/backoffice/staff-access.ts).
import type { EnvelopeRepair } from '../../domain/backoffice-envelopes.ts';
import type { EnvelopeStatus } from '../../domain/vocabulary.ts';
import { SIGNING_STATUSES } from '../../workflows/transitions.ts';
import type { ServiceContext } from '../context.ts';
import { findEnvelope } from '../envelopes/find-envelope.ts';
import { remindEnvelope } from '../envelopes/remind-envelope.ts';
import { resumeProjection } from '../envelopes/resume-projection.ts';
import { retryFinalization } from '../envelopes/retry-finalization.ts';
import { verifyEnvelopeAuditChain } from '../envelopes/verify-audit-chain.ts';
import { Conflict } from '../errors.ts';
import { issueSigningLinks } from '../signing/issue-signing-links.ts';
import { locateEnvelope } from './envelopes.ts';
import { recordStaffAccess, type StaffActor } from './staff-access.ts';

export interface RepairRequest {
  reason: string;
  /** resume-projection only: as the CLI's --sanitize. */
  sanitize?: boolean;
}

interface RepairDone {
  status: EnvelopeStatus;
  outcome: string;
  details?: Record<string, unknown>;
}

const HANDED_OVER: readonly string[] = ['Api', 'ManualLink'];

const REPAIRS: Record<
  EnvelopeRepair,
  (
    ctx: ServiceContext,
    organizationId: string,
    envelopeId: string,
    request: RepairRequest,
  ) => Promise<RepairDone>
> = {
  'resume-projection': async (ctx, organizationId, envelopeId, request) => {
    const state = await resumeProjection(ctx, organizationId, envelopeId, {
      sanitize: request.sanitize === true,
    });
    return {
      status: state.status,
      outcome: 'The projection resumed: every queued transition is recorded.',
      details: { sanitize: request.sanitize === true },
    };
  },
  'retry-final-pdf': async (ctx, organizationId, envelopeId) => {
    const state = await retryFinalization(ctx, organizationId, envelopeId);
    return { status: state.status, outcome: 'The final PDF and the audit trail are being rendered again.' };
  },
  'reissue-links': async (ctx, organizationId, envelopeId) => {
    const { envelope } = await findEnvelope(ctx, organizationId, envelopeId);
    if (!(SIGNING_STATUSES as readonly EnvelopeStatus[]).includes(envelope.status)) {
      throw new Conflict(
        `Envelope ${envelope.id} is ${envelope.status}: signing links are re-issued only while it is being signed.`,
      );
    }
    // The new links' URLs are dropped: the staff never hold a signer's link. The reminder's messages carry
    // links of their own to the recipients who may act now.
    const links = await issueSigningLinks(ctx, organizationId, envelopeId);
    const { recipients } = await findEnvelope(ctx, organizationId, envelopeId);
    const handedOver = recipients.filter(
      (r) => links.some((l) => l.recipientId === r.id) && HANDED_OVER.includes(r.deliveryChannel),
    );
    const state = await remindEnvelope(ctx, organizationId, envelopeId);
    return {
      status: state.status,
      outcome:
        `${links.length} recipient(s)’ earlier links stopped working; those who may sign now got a new link in a ` +
        `reminder.${handedOver.length > 0 ? ` ${handedOver.length} recipient(s) get links from the organization (API or manual link).` : ''}`,
      details: { recipients: links.length, handedOver: handedOver.length },
    };
  },
  'verify-audit': async (ctx, organizationId, envelopeId) => {
    const chain = await verifyEnvelopeAuditChain(ctx, organizationId, envelopeId);
    const { envelope } = await findEnvelope(ctx, organizationId, envelopeId);
    return {
      status: envelope.status,
      outcome: `The audit chain is intact: ${chain.events} event(s), head ${chain.head ?? 'none'}.`,
      details: { events: chain.events },
    };
  },
};

/** Runs the repair on the envelope (whichever organization's) and records it with the reason. */
export async function repairEnvelope(
  ctx: ServiceContext,
  actor: StaffActor,
  envelopeId: string,
  repair: EnvelopeRepair,
  request: RepairRequest,
) {
  const { organizationId, title } = await locateEnvelope(ctx, envelopeId);
  const done = await REPAIRS[repair](ctx, organizationId, envelopeId, request);
  recordStaffAccess(ctx, actor, {
    organizationId,
    action: `envelope.${repair}`,
    targetId: envelopeId,
    reason: request.reason,
    details: { title, ...done.details },
  });
  await ctx.em.flush();
  return { envelopeId, repair, status: done.status, outcome: done.outcome };
}

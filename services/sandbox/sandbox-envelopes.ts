// Synthetic envelopes of the public API's sandbox mode. They live only in `sandbox_envelope` (one jsonb
// document per envelope, in the API's envelope shape, scoped to the organization): no production envelope,
// recipient or audit row, no workflow, no notification, no quota, no webhook.
//
// The lifecycle imitates production's, with the same refusals and messages:
//   create  validated exactly as production (validateEnvelopeRequest against the real template, or
//           validateFileEnvelopeRequest against the real uploaded file); Draft, every recipient Pending. From a
//           file, no one-off template is written: the synthetic envelope shows templateId null and the file.
//   send    Draft → Sent, recipients in turn as the workflow decides (planRounds/currentRoundIndex): the
//           first round Pending, later rounds WaitingForTurn, Cc recipients Pending; sending again answers
//           with the current state; a finished envelope or a Draft past its deadline is a 409.
//   remind  reminderCount + 1 while someone is Pending; 409 for a Draft, a finished envelope, or no one to remind.
//           One recipient: the same, for that recipient alone (404 for one not on the envelope).
//   correct a recipient who has not completed takes the new name and contact, checked as production checks them;
//           Pending again unless waiting for their turn; 409 for a Draft, a finished envelope or a completed one.
//   extend  a deadline in the future (400) and later than the current one (409); 409 when finished.
//   cancel  → Cancelled, unfinished recipients Cancelled; 409 for a Draft (a draft is deleted, not cancelled)
//           and for a finished envelope.
//   deadline  a sent envelope whose expiresAt has passed is Expired the next time it is read, as production's
//           workflow timer would have made it.
// The simulation routes move a sent synthetic envelope to Completed, Declined, Expired or Cancelled.
// Changes run in a transaction holding the row lock, so concurrent sandbox calls on one envelope serialize.
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import {
  SandboxEnvelope,
  type SandboxEnvelopeDocument,
  type SandboxRecipientDocument,
} from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import {
  CorrectedRecipientContact,
  CorrectRecipientRequest,
  ExtendEnvelopeRequest,
} from '../../domain/envelope.ts';
import {
  DEADLINE_SETTING_DEFAULTS,
  resolveDeadlineSettings,
  UpdateDeadlineSettingsRequest,
} from '../../domain/envelope-settings.ts';
import { isTerminalEnvelopeStatus } from '../../domain/vocabulary.ts';
import { actsInRounds, currentRoundIndex, planRounds } from '../../workflows/rounds.ts';
import type { DataContext, FilesContext } from '../context.ts';
import {
  type CreateEnvelopeFromFileInput,
  type CreateEnvelopeInput,
  type ValidatedEnvelopeRequest,
  validateEnvelopeRequest,
  validateFileEnvelopeRequest,
} from '../envelopes/create-envelope.ts';
import { Conflict, NotFound } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { type SandboxArtifact, sandboxSamplePdf } from './sample-pdf.ts';

/** The statuses the simulation routes can move a synthetic envelope to. */
export const SIMULATED_STATUSES = ['Completed', 'Declined', 'Expired', 'Cancelled'] as const;
export type SimulatedStatus = (typeof SIMULATED_STATUSES)[number];

/** The artifact ids every Completed synthetic envelope shows; downloads of them return the sample PDFs. */
export const SANDBOX_FINAL_PDF_FILE_ID = '5a4db0c5-f1a1-4d0f-8000-000000000001';
export const SANDBOX_AUDIT_TRAIL_FILE_ID = '5a4db0c5-a0d1-4d0f-8000-000000000002';

export async function createSandboxEnvelope(
  ctx: DataContext,
  input: CreateEnvelopeInput,
): Promise<SandboxEnvelopeDocument> {
  return storeSyntheticDraft(ctx, await validateEnvelopeRequest(ctx, input));
}

/** A synthetic envelope from an uploaded file: validated as production, its one-off template not written. */
export async function createSandboxEnvelopeFromFile(
  ctx: DataContext & FilesContext,
  input: CreateEnvelopeFromFileInput,
): Promise<SandboxEnvelopeDocument> {
  return storeSyntheticDraft(ctx, await validateFileEnvelopeRequest(ctx, input));
}

/**
 * A stored synthetic envelope in today's shape. Envelopes stored before `sourceFileId` existed lack it: they
 * were all created from a template; those stored before `allowDelegation` existed did not allow it.
 */
export function stored(document: SandboxEnvelopeDocument): SandboxEnvelopeDocument {
  return {
    ...document,
    sourceFileId: document.sourceFileId === undefined ? null : document.sourceFileId,
    allowDelegation: document.allowDelegation ?? false,
    deadlineSettings: document.deadlineSettings ?? null,
  };
}

async function storeSyntheticDraft(
  ctx: DataContext,
  request: ValidatedEnvelopeRequest,
): Promise<SandboxEnvelopeDocument> {
  const now = new Date().toISOString();
  const document: SandboxEnvelopeDocument = {
    id: randomUUID(),
    status: 'Draft',
    title: request.title,
    workflowType: request.workflowType,
    // As production shows it: an envelope from a file names its file, not its (here unwritten) template.
    templateId: request.sourceFileId ? null : request.templateId,
    sourceFileId: request.sourceFileId,
    expiresAt: request.expiresAt.toISOString(),
    externalReference: request.externalReference,
    externalSystem: request.externalSystem,
    externalMetadataJson: request.externalMetadataJson,
    finalPdfFileId: null,
    auditTrailFileId: null,
    reminderCount: 0,
    allowDelegation: request.allowDelegation,
    deadlineSettings: request.deadlineSettings,
    recipients: syntheticRecipients(request.recipients),
    initialValues: request.initialValues,
    createdAt: now,
    updatedAt: now,
    sentAt: null,
    completedAt: null,
  };
  const { em } = ctx;
  em.create(SandboxEnvelope, {
    id: document.id,
    organizationId: request.organizationId,
    externalReference: document.externalReference,
    document,
    createdAt: new Date(now),
    updatedAt: new Date(now),
  });
  await em.flush();
  return document;
}

/** A synthetic Draft's recipients, new ids, ordered as production lists them: by signing order, then as given. */
export function syntheticRecipients(
  recipients: ValidatedEnvelopeRequest['recipients'],
): SandboxRecipientDocument[] {
  return recipients
    .map(
      (recipient): SandboxRecipientDocument => ({
        id: randomUUID(),
        roleName: recipient.roleName,
        fullName: recipient.fullName,
        email: recipient.email,
        phone: recipient.phone,
        signingOrder: recipient.signingOrder,
        deliveryChannel: recipient.deliveryChannel,
        authenticationMethod: recipient.authenticationMethod,
        type: recipient.type,
        language: recipient.language,
        required: recipient.required,
        status: 'Pending',
        completedAt: null,
      }),
    )
    .sort((a, b) => a.signingOrder - b.signingOrder);
}

/** A synthetic envelope of the organization; another organization's, a production id or none is a 404. */
export async function findSandboxEnvelope(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
): Promise<SandboxEnvelopeDocument> {
  const row = UUID_PATTERN.test(envelopeId)
    ? await ctx.em.findOne(SandboxEnvelope, { id: envelopeId, organizationId })
    : null;
  if (!row) throw new NotFound(`Sandbox envelope ${envelopeId} was not found.`);
  return settled(ctx, organizationId, stored(row.document));
}

/** The most recent synthetic envelope with the integrator's reference. */
export async function findSandboxEnvelopeByReference(
  ctx: DataContext,
  organizationId: string,
  externalReference: string,
): Promise<SandboxEnvelopeDocument> {
  const row = await ctx.em.findOne(
    SandboxEnvelope,
    { organizationId, externalReference },
    { orderBy: { createdAt: 'desc' } },
  );
  if (!row) {
    throw new NotFound(`No sandbox envelope has the external reference "${externalReference}".`);
  }
  return settled(ctx, organizationId, stored(row.document));
}

export function sendSandboxEnvelope(ctx: DataContext, organizationId: string, envelopeId: string) {
  return change(ctx, organizationId, envelopeId, (envelope, now) => {
    if (isTerminalEnvelopeStatus(envelope.status)) {
      throw new Conflict(`Envelope ${envelope.id} is ${envelope.status} and cannot be sent.`);
    }
    // Sending again answers with the current state, as production's workflow does.
    if (envelope.status !== 'Draft') return false;
    if (envelope.expiresAt && Date.parse(envelope.expiresAt) <= now.getTime()) {
      throw new Conflict(`Envelope ${envelope.id} expired at ${envelope.expiresAt} before it was sent.`);
    }
    envelope.status = 'Sent';
    envelope.sentAt = now.toISOString();
    refreshTurns(envelope);
    return true;
  });
}

export function remindSandboxEnvelope(ctx: DataContext, organizationId: string, envelopeId: string) {
  return change(ctx, organizationId, envelopeId, (envelope) => {
    if (envelope.status === 'Draft') throw new Conflict(`Envelope ${envelope.id} is Draft: send it first.`);
    refuseFinished(envelope);
    if (awaited(envelope).length === 0) {
      throw rejected('No recipient is waiting to act.', 'EnvelopeNotRemindable');
    }
    envelope.reminderCount += 1;
    return true;
  });
}

/** One recipient who may act now is reminded (reminderCount + 1); anyone else is production's 409. */
export function remindSandboxRecipient(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
  recipientId: string,
) {
  return change(ctx, organizationId, envelopeId, (envelope) => {
    const recipient = envelope.recipients.find((candidate) => candidate.id === recipientId);
    if (!recipient) throw new NotFound(`Recipient ${recipientId} was not found on envelope ${envelopeId}.`);
    if (envelope.status === 'Draft') throw new Conflict(`Envelope ${envelope.id} is Draft: send it first.`);
    refuseFinished(envelope);
    if (!awaited(envelope).includes(recipient)) {
      throw rejected(
        `Recipient ${recipientId} cannot act now (${recipient.status}): there is nothing to remind them of.`,
        'EnvelopeNotRemindable',
      );
    }
    envelope.reminderCount += 1;
    return true;
  });
}

/**
 * A recipient who has not completed is corrected, checked as production checks it (the body, the merged contact);
 * one in turn is Pending again. Nobody is contacted.
 */
export function correctSandboxRecipient(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
  recipientId: string,
  body: unknown,
) {
  const correction = parseInput(CorrectRecipientRequest, body, 'recipient correction');
  return change(ctx, organizationId, envelopeId, (envelope) => {
    const recipient = envelope.recipients.find((candidate) => candidate.id === recipientId);
    if (!recipient) throw new NotFound(`Recipient ${recipientId} was not found on envelope ${envelopeId}.`);
    if (envelope.status === 'Draft') {
      throw new Conflict(`Envelope ${envelope.id} is Draft: edit the draft's recipients instead.`);
    }
    refuseFinished(envelope);
    if (recipient.status === 'Completed') {
      throw rejected(
        `Recipient ${recipientId} has already completed and can no longer be corrected.`,
        'RecipientCannotBeCorrected',
      );
    }
    const corrected = {
      fullName: correction.fullName ?? recipient.fullName,
      email: correction.email === undefined ? recipient.email : correction.email,
      phone: correction.phone === undefined ? recipient.phone : correction.phone,
      deliveryChannel: correction.deliveryChannel ?? recipient.deliveryChannel,
      language: correction.language === undefined ? recipient.language : correction.language,
    };
    parseInput(
      CorrectedRecipientContact,
      {
        email: corrected.email ?? undefined,
        phone: corrected.phone ?? undefined,
        deliveryChannel: corrected.deliveryChannel,
        authenticationMethod: recipient.authenticationMethod,
      },
      'recipient correction',
    );
    Object.assign(recipient, corrected);
    if (actsInRounds(recipient) && recipient.status !== 'WaitingForTurn') recipient.status = 'Pending';
    return true;
  });
}

export function cancelSandboxEnvelope(ctx: DataContext, organizationId: string, envelopeId: string) {
  return change(ctx, organizationId, envelopeId, (envelope) => {
    if (envelope.status === 'Draft') {
      throw new Conflict(`Envelope ${envelope.id} has not been sent; a draft is deleted, not cancelled.`);
    }
    refuseFinished(envelope);
    finish(envelope, 'Cancelled');
    return true;
  });
}

export function extendSandboxEnvelope(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
  input: ExtendEnvelopeRequest,
) {
  const { expiresAt } = parseInput(ExtendEnvelopeRequest, input, 'extend request');
  return change(ctx, organizationId, envelopeId, (envelope) => {
    refuseFinished(envelope);
    const next = Date.parse(expiresAt);
    if (envelope.expiresAt !== null && next <= Date.parse(envelope.expiresAt)) {
      throw rejected(
        `The new expiresAt must be later than the current deadline ${envelope.expiresAt}.`,
        'EnvelopeNotExtendable',
      );
    }
    envelope.expiresAt = new Date(next).toISOString();
    return true;
  });
}

/**
 * Changes a synthetic envelope's reminder and deadline settings as production does: the same 400s, and a 409
 * once it is finished (it sends nothing, so nothing is planned).
 */
export function updateSandboxEnvelopeSettings(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
  input: unknown,
) {
  const given = parseInput(UpdateDeadlineSettingsRequest, input, 'settings');
  return change(ctx, organizationId, envelopeId, (envelope) => {
    refuseFinished(envelope);
    // One stored before envelopes kept their settings: the defaults of a new organization.
    const current = envelope.deadlineSettings ?? { ...DEADLINE_SETTING_DEFAULTS };
    envelope.deadlineSettings = resolveDeadlineSettings(current, given);
    return true;
  });
}

/** Moves a sent synthetic envelope to a final status (the /api/v1/sandbox simulation routes). */
export function simulateSandboxEnvelope(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
  status: SimulatedStatus,
) {
  return change(ctx, organizationId, envelopeId, (envelope, now) => {
    if (envelope.status === 'Draft') {
      throw new Conflict(`Envelope ${envelope.id} is Draft: send it first, then simulate ${status}.`, [
        { field: 'status', message: 'Draft' },
      ]);
    }
    refuseFinished(envelope);
    const at = now.toISOString();
    if (status === 'Completed') {
      for (const recipient of envelope.recipients) {
        if (actsInRounds(recipient) && recipient.status !== 'Completed') {
          recipient.status = 'Completed';
          recipient.completedAt = at;
        }
      }
      envelope.status = 'Completed';
      envelope.completedAt = at;
      envelope.finalPdfFileId = SANDBOX_FINAL_PDF_FILE_ID;
      envelope.auditTrailFileId = SANDBOX_AUDIT_TRAIL_FILE_ID;
    } else if (status === 'Declined') {
      const inTurn = awaited(envelope);
      const decliner =
        inTurn.find((recipient) => recipient.required) ??
        inTurn[0] ??
        envelope.recipients.find((r) => actsInRounds(r) && r.status !== 'Completed');
      if (decliner) decliner.status = 'Declined';
      envelope.status = 'Declined';
    } else {
      finish(envelope, status);
    }
    return true;
  });
}

/** The sample PDF of a Completed synthetic envelope; 404 before, as production's "not ready". */
export async function sandboxArtifact(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
  artifact: SandboxArtifact,
): Promise<Uint8Array> {
  const envelope = await findSandboxEnvelope(ctx, organizationId, envelopeId);
  const fileId = artifact === 'final-pdf' ? envelope.finalPdfFileId : envelope.auditTrailFileId;
  if (!fileId) {
    const what = artifact === 'final-pdf' ? 'final PDF' : 'audit trail';
    throw new NotFound(`The ${what} of envelope ${envelope.id} is not ready (status ${envelope.status}).`);
  }
  return sandboxSamplePdf(artifact);
}

/**
 * Applies a change to a synthetic envelope under its row lock and saves it when `apply` says it changed
 * something. Returns the envelope as it is afterwards. Errors thrown by `apply` leave the row untouched.
 */
async function change(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
  apply: (envelope: SandboxEnvelopeDocument, now: Date) => boolean,
): Promise<SandboxEnvelopeDocument> {
  if (!UUID_PATTERN.test(envelopeId)) throw new NotFound(`Sandbox envelope ${envelopeId} was not found.`);
  return ctx.em.transactional(async (em) => {
    const row = await em.findOne(
      SandboxEnvelope,
      { id: envelopeId, organizationId },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    if (!row) throw new NotFound(`Sandbox envelope ${envelopeId} was not found.`);
    const now = new Date();
    const envelope = structuredClone(stored(row.document));
    const expired = expireIfDue(envelope, now);
    const changed = apply(envelope, now);
    if (expired || changed) {
      if (changed) envelope.updatedAt = now.toISOString();
      row.document = envelope;
      row.updatedAt = new Date(envelope.updatedAt);
    }
    return envelope;
  });
}

/** The envelope as it is now: a passed deadline is applied (and saved) first. */
async function settled(
  ctx: DataContext,
  organizationId: string,
  envelope: SandboxEnvelopeDocument,
): Promise<SandboxEnvelopeDocument> {
  if (!expireIfDue(structuredClone(envelope), new Date())) return envelope;
  return change(ctx, organizationId, envelope.id, () => false);
}

/** A sent envelope whose deadline has passed expires, as the workflow's timer would have decided. */
function expireIfDue(envelope: SandboxEnvelopeDocument, now: Date): boolean {
  if (envelope.status === 'Draft' || isTerminalEnvelopeStatus(envelope.status)) return false;
  if (envelope.expiresAt === null || Date.parse(envelope.expiresAt) > now.getTime()) return false;
  finish(envelope, 'Expired');
  envelope.updatedAt = envelope.expiresAt;
  return true;
}

/** Production's answer to an operation on a finished envelope: a 409 naming its state. */
function refuseFinished(envelope: SandboxEnvelopeDocument): void {
  if (!isTerminalEnvelopeStatus(envelope.status)) return;
  throw new Conflict(`Envelope ${envelope.id} is ${envelope.status} and no longer in progress.`, [
    { field: 'status', message: envelope.status },
  ]);
}

/** A refusal worded and detailed as the workflow's rejected Updates are. */
function rejected(reason: string, type: string): Conflict {
  return new Conflict(reason, [{ message: reason, reason: type }]);
}

/** Recipients who may act now and have not: the ones in turn. */
function awaited(envelope: SandboxEnvelopeDocument): SandboxRecipientDocument[] {
  return envelope.recipients.filter((recipient) => actsInRounds(recipient) && recipient.status === 'Pending');
}

/** The workflow's turn rule: rounds up to the current one may act, later ones wait. */
function refreshTurns(envelope: SandboxEnvelopeDocument): void {
  const rounds = planRounds(envelope.workflowType, envelope.recipients);
  const required = new Set(envelope.recipients.filter((r) => r.required && actsInRounds(r)).map((r) => r.id));
  const completed = new Set(envelope.recipients.filter((r) => r.status === 'Completed').map((r) => r.id));
  const current = currentRoundIndex(rounds, required, completed);
  for (const recipient of envelope.recipients) {
    if (recipient.status === 'Completed') continue;
    if (!actsInRounds(recipient)) {
      recipient.status = 'Pending';
      continue;
    }
    const round = rounds.findIndex((ids) => ids.includes(recipient.id));
    recipient.status = round <= current ? 'Pending' : 'WaitingForTurn';
  }
}

/** Ends the envelope; every recipient who had not completed takes the same final status. */
function finish(envelope: SandboxEnvelopeDocument, status: 'Cancelled' | 'Expired'): void {
  envelope.status = status;
  for (const recipient of envelope.recipients) {
    if (recipient.status !== 'Completed') recipient.status = status;
  }
}

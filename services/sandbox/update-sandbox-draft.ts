// The sandbox's edit of a synthetic Draft (PATCH /api/v1/envelopes/{id} with `X-Service-Sandbox: true`): the
// same request, merge and checks as production's (services/envelopes/update-draft.ts) against the real
// template, under the synthetic envelope's row lock, with the same refusals (404, 400 naming the field, 409
// `envelope_not_draft` once sent). A synthetic envelope made from a file kept no fields (its one-off template
// was never written), so its recipients, initial values and workflow type cannot be checked again: changing
// them is a 400 naming the field; its title, deadline, references, delegation and reminder and deadline settings
// can change.
import { LockMode } from '@mikro-orm/core';
import { SandboxEnvelope, type SandboxEnvelopeDocument } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import { resolveDeadlineSettings } from '../../domain/envelope-settings.ts';
import type { DataContext } from '../context.ts';
import { checkEnvelopeRequest } from '../envelopes/create-envelope.ts';
import { organizationDeadlineSettings } from '../envelopes/deadline-settings.ts';
import { draftTemplate, draftWithChanges, notDraft, parseDraftChanges } from '../envelopes/update-draft.ts';
import { InvalidRequest, NotFound } from '../errors.ts';
import { findOrganization } from '../organizations/find-organization.ts';
import { stored, syntheticRecipients } from './sandbox-envelopes.ts';

/** What a synthetic envelope from a file cannot change (no fields to check them against). */
const FILE_FIXED = ['recipients', 'initialValues', 'workflowType'] as const;

export async function updateSandboxDraft(
  ctx: DataContext,
  organizationId: string,
  envelopeId: string,
  input: unknown,
): Promise<SandboxEnvelopeDocument> {
  const changes = parseDraftChanges(input);
  if (!UUID_PATTERN.test(envelopeId)) throw new NotFound(`Sandbox envelope ${envelopeId} was not found.`);
  return ctx.em.transactional(async (em) => {
    const row = await em.findOne(
      SandboxEnvelope,
      { id: envelopeId, organizationId },
      { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
    );
    if (!row) throw new NotFound(`Sandbox envelope ${envelopeId} was not found.`);
    const current = stored(row.document);
    if (current.status !== 'Draft') throw notDraft(envelopeId, current.status, false);
    const merged = draftWithChanges(current, changes);
    const envelope = structuredClone(current);
    if (current.templateId === null) {
      const fixed = FILE_FIXED.filter((field) => changes[field] !== undefined);
      const refused = [...fixed, ...(changes.templateId !== undefined ? ['templateId'] : [])];
      if (refused.length > 0) {
        throw new InvalidRequest(
          `A sandbox envelope made from a file can change its title, deadline, references, delegation and settings only: ${refused.join(', ')}.`,
          refused.map((field) => ({
            field,
            message: 'cannot change on a sandbox envelope made from a file',
          })),
        );
      }
      envelope.title = merged.title;
      envelope.externalReference = merged.externalReference ?? null;
      envelope.externalSystem = merged.externalSystem ?? null;
      envelope.externalMetadataJson = merged.externalMetadataJson ?? null;
      envelope.allowDelegation = merged.allowDelegation ?? envelope.allowDelegation;
      envelope.deadlineSettings = resolveDeadlineSettings(
        current.deadlineSettings ??
          organizationDeadlineSettings(await findOrganization({ em }, organizationId)),
        changes,
      );
      if (changes.expiresAt !== undefined) envelope.expiresAt = new Date(changes.expiresAt).toISOString();
    } else {
      const published = await draftTemplate({ em }, organizationId, current.templateId, changes.templateId);
      const checked = checkEnvelopeRequest(published, merged);
      Object.assign(envelope, {
        title: checked.title,
        workflowType: checked.workflowType,
        templateId: checked.templateId,
        expiresAt: changes.expiresAt === undefined ? current.expiresAt : checked.expiresAt.toISOString(),
        externalReference: checked.externalReference,
        externalSystem: checked.externalSystem,
        externalMetadataJson: checked.externalMetadataJson,
        allowDelegation: checked.allowDelegation,
        deadlineSettings: checked.deadlineSettings,
        // New ids, as production's edit writes new recipient rows.
        recipients: syntheticRecipients(checked.recipients),
        initialValues: checked.initialValues,
      });
    }
    const now = new Date();
    envelope.updatedAt = now.toISOString();
    row.document = envelope;
    row.externalReference = envelope.externalReference;
    row.updatedAt = now;
    return envelope;
  });
}

// Changes an envelope's reminder and deadline settings (docs/envelope-lifecycle.md, "Reminders and deadline
// warnings"). A Draft's are changed in place; an open envelope's workflow decides with its Update
// `updateEnvelopeSettings` (refused once the envelope is final: 409), and its projection writes the row. Bad values
// are refused first with a 400 naming the field, changing nothing.
import { Envelope, Organization } from '../../db/entities/index.ts';
import {
  type DeadlineSettings,
  resolveDeadlineSettings,
  UpdateDeadlineSettingsRequest,
} from '../../domain/envelope-settings.ts';
import {
  type UpdateEnvelopeSettingsRequest,
  updateEnvelopeSettingsUpdate,
} from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { envelopeDeadlineSettings, workflowSettings } from './deadline-settings.ts';
import { updateEnvelope } from './envelope-update.ts';
import { findEnvelope } from './find-envelope.ts';

/** The envelope's settings after the change (as the envelope row holds them once projected). */
export async function updateEnvelopeSettings(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  input: unknown,
): Promise<DeadlineSettings> {
  const given = parseInput(UpdateDeadlineSettingsRequest, input, 'settings');
  const { envelope } = await findEnvelope(ctx, organizationId, envelopeId);
  if (envelope.status === 'Archived' || envelope.status === 'Deleted') {
    throw new Conflict(`Envelope ${envelope.id} is ${envelope.status}: its settings cannot change.`, [
      { field: 'status', message: envelope.status },
    ]);
  }
  const organization = await ctx.em.findOneOrFail(Organization, { id: envelope.organizationId });
  const current = envelopeDeadlineSettings(envelope, organization);
  const next = resolveDeadlineSettings(current, given);
  if (envelope.status === 'Draft') {
    await ctx.em.nativeUpdate(Envelope, { id: envelope.id, status: 'Draft' }, { deadlineSettings: next });
    return next;
  }
  await updateEnvelope(ctx, envelope, updateEnvelopeSettingsUpdate, workflowChange(given, next));
  return next;
}

/** The Update's request: only what the request changes (reminders as one schedule, from both of its parts). */
function workflowChange(
  given: Partial<DeadlineSettings>,
  next: DeadlineSettings,
): UpdateEnvelopeSettingsRequest {
  const settings = workflowSettings(next);
  return {
    ...(given.reminderIntervalDays !== undefined || given.maxAutomaticReminders !== undefined
      ? { automaticReminders: settings.automaticReminders }
      : {}),
    ...(given.expiringSoonDays !== undefined ? { expiringSoonDays: next.expiringSoonDays } : {}),
    ...(given.expiredExtensionGraceDays !== undefined
      ? { expiredExtensionGraceDays: next.expiredExtensionGraceDays }
      : {}),
  };
}

// The sender corrects a recipient of a sent envelope (docs/envelope-lifecycle.md, "Correcting a recipient"): a
// wrong address, number, name, channel or language, without cancelling and sending again. The correction is
// checked as a create request's recipient (the merged result by the same rules, a language the organization
// offers); the workflow decides (correctRecipient: the envelope still signing, the recipient not completed) and
// records `recipient.corrected` with each field's old and new value; its projection writes the new values and
// ends the recipient's links, and the recipient, when in turn, is invited again at the new address.
import { Organization } from '../../db/entities/index.ts';
import { CorrectedRecipientContact, CorrectRecipientRequest } from '../../domain/envelope.ts';
import {
  correctRecipientUpdate,
  type DelegationParty,
  type EnvelopeState,
} from '../../workflows/contracts.ts';
import type { ServiceContext } from '../context.ts';
import { Conflict, InvalidRequest, NotFound } from '../errors.ts';
import { parseInput } from '../validation.ts';
import { updateEnvelope } from './envelope-update.ts';
import { findEnvelope } from './find-envelope.ts';

const WHAT = 'recipient correction';

export async function correctRecipient(
  ctx: ServiceContext,
  organizationId: string,
  envelopeId: string,
  recipientId: string,
  input: unknown,
): Promise<EnvelopeState> {
  const correction = parseInput(CorrectRecipientRequest, input, WHAT);
  const { envelope, recipients } = await findEnvelope(ctx, organizationId, envelopeId);
  const recipient = recipients.find((candidate) => candidate.id === recipientId);
  if (!recipient) throw new NotFound(`Recipient ${recipientId} was not found on envelope ${envelopeId}.`);
  if (envelope.status === 'Draft') {
    throw new Conflict(`Envelope ${envelope.id} is Draft: edit the draft's recipients instead.`, [
      { field: 'status', message: envelope.status },
    ]);
  }
  if (envelope.status === 'Archived' || envelope.status === 'Deleted') {
    throw new Conflict(`Envelope ${envelope.id} is ${envelope.status}: its recipients cannot be corrected.`, [
      { field: 'status', message: envelope.status },
    ]);
  }
  const from: DelegationParty = {
    fullName: recipient.fullName,
    email: recipient.email ?? null,
    phone: recipient.phone ?? null,
    deliveryChannel: recipient.deliveryChannel,
    language: recipient.language ?? null,
  };
  const to: DelegationParty = {
    fullName: correction.fullName ?? from.fullName,
    email: correction.email === undefined ? from.email : correction.email,
    phone: correction.phone === undefined ? from.phone : correction.phone,
    deliveryChannel: correction.deliveryChannel ?? from.deliveryChannel,
    language: correction.language === undefined ? (from.language ?? null) : correction.language,
  };
  parseInput(
    CorrectedRecipientContact,
    {
      email: to.email ?? undefined,
      phone: to.phone ?? undefined,
      deliveryChannel: to.deliveryChannel,
      authenticationMethod: recipient.authenticationMethod,
    },
    WHAT,
  );
  if (to.language && to.language !== from.language) {
    const organization = await ctx.em.findOneOrFail(Organization, { id: organizationId });
    if (!organization.supportedLanguages.includes(to.language)) {
      throw new InvalidRequest(`Invalid ${WHAT}: language: "${to.language}" is not offered.`, [
        {
          field: 'language',
          message: `"${to.language}" is not a language of this organization (${organization.supportedLanguages.join(', ')})`,
        },
      ]);
    }
  }
  const unchanged = (['fullName', 'email', 'phone', 'deliveryChannel', 'language'] as const).every(
    (field) => (from[field] ?? null) === (to[field] ?? null),
  );
  if (unchanged) {
    throw new InvalidRequest(`Invalid ${WHAT}: it changes nothing: the recipient already has these values.`, [
      { message: 'the values given are the recipient’s own' },
    ]);
  }
  return updateEnvelope(ctx, envelope, correctRecipientUpdate, { recipientId, from, to });
}

// What the signer app shows for a link (domain/signing.ts, SigningView). The first read of a recipient who
// has not opened their link yet records `recipient.opened`. An OTP recipient without a signer session sees
// who and what it is about, never fields or values.
import type { SigningView } from '../../domain/signing.ts';
import { recipientOpenedUpdate, type SignerActionOrigin } from '../../workflows/contracts.ts';
import { NOT_YET_OPENED } from '../../workflows/envelope-model.ts';
import type { ServiceContext } from '../context.ts';
import { recipientStatusIn, updateEnvelope } from '../envelopes/envelope-update.ts';
import { Conflict } from '../errors.ts';
import { placementOf } from '../templates/field-placement.ts';
import { signingDownloads } from './download-signing-document.ts';
import { filledByOthers } from './filled-by-others.ts';
import { maskPhone } from './otp-policy.ts';
import {
  isFilled,
  loadSigningFields,
  missingRequired,
  type OthersField,
  type SignerField,
} from './signer-fields.ts';
import {
  CONSENT_TEXT,
  openSigningSession,
  type SigningSession,
  signerAction,
  signingState,
} from './signing-session.ts';

export async function viewSigningLink(
  ctx: ServiceContext,
  token: string,
  origin: SignerActionOrigin,
  signerSession?: string,
): Promise<SigningView> {
  let session = await openSigningSession(ctx, token, signerSession);
  const { envelope, recipient } = session;
  // Not opened yet (whether or not an invitation reached them): the first open is recorded.
  if (session.state === 'ready' && NOT_YET_OPENED.includes(recipient.status)) {
    try {
      const state = await updateEnvelope(ctx, envelope, recipientOpenedUpdate, {
        recipientId: recipient.id,
        ...origin,
      });
      session = withState(session, state.status, recipientStatusIn(state, recipient.id) ?? recipient.status);
    } catch (error) {
      // The envelope moved on meanwhile (cancelled, expired…): show what it is now.
      if (!(error instanceof Conflict)) throw error;
      session = await openSigningSession(ctx, token, signerSession);
    }
  }
  const acting = session.state === 'ready' && session.authenticated;
  const { own, others } = acting ? await loadSigningFields(ctx, session) : { own: [], others: [] };
  return describeSigningLink(session, own, others);
}

/** The session after the workflow answered with new statuses for the envelope and the recipient. */
export function withState(
  session: SigningSession,
  envelopeStatus: SigningSession['envelope']['status'],
  recipientStatus: SigningSession['recipient']['status'],
): SigningSession {
  session.envelope.status = envelopeStatus;
  session.recipient.status = recipientStatus;
  return { ...session, state: signingState(envelopeStatus, recipientStatus) };
}

/**
 * The view of a loaded session with the recipient's fields and those other recipients filled before completing
 * (both empty unless the recipient may act).
 */
export function describeSigningLink(
  session: SigningSession,
  fields: SignerField[],
  others: OthersField[],
): SigningView {
  const { envelope, recipient, organization } = session;
  const base = {
    state: session.state,
    title: envelope.title,
    organizationName: organization.name,
    recipient: {
      name: recipient.fullName,
      status: recipient.status,
      type: recipient.type,
      language: session.language,
    },
    action: signerAction(recipient.type),
    consentRequired: recipient.type === 'Signer',
    // The organization's own consent text (settings) replaces the default of the recipient's language.
    consentText:
      recipient.type === 'Signer'
        ? organization.consentText || (CONSENT_TEXT[session.language] ?? (CONSENT_TEXT.en as string))
        : null,
    privacyNotice: organization.privacyNotice || null,
    authenticationRequired: session.authenticationRequired,
    authenticated: session.authenticated,
    authenticationMethod: recipient.authenticationMethod,
    maskedPhone: session.authenticationRequired && recipient.phone ? maskPhone(recipient.phone) : null,
    allowDelegation: session.envelope.allowDelegation,
    downloads: signingDownloads(session),
  };
  if (session.state !== 'ready' || !session.authenticated) {
    return { ...base, fields: [], filledByOthers: [], awaitingCount: 0, requiredFields: [] };
  }
  return {
    ...base,
    fields: fields.map(({ field, value }) => ({
      fieldDefinitionId: field.id,
      ...placementOf(field),
      required: field.required,
      options: field.options ?? null,
      properties: field.properties ?? {},
      value,
    })),
    filledByOthers: filledByOthers(others),
    awaitingCount: missingRequired(fields).length,
    requiredFields: fields
      .filter(({ field }) => field.required)
      .map(({ field, value }) => ({
        fieldDefinitionId: field.id,
        label: field.label,
        filled: isFilled(value),
      })),
  };
}

// A signing link resolved to its envelope, recipient and fields, and the state the signer app shows for it.
// An unknown or revoked token is "not found"; a link works for signing only while its recipient can act.
import {
  Envelope,
  EnvelopeFieldValue,
  Organization,
  Recipient,
  SignerSession,
  SigningLink,
  TemplateField,
} from '../../../db/entities/index.ts';
import type { EnvelopeStatus, RecipientStatus, RecipientType } from '../../../domain/vocabulary.ts';
import { Conflict, Forbidden, NotFound } from '../../errors.ts';
import { sha256Hex } from '../../security/secrets.ts';
import type { DataContext } from '../context.ts';
import { otpChannel } from './otp-policy.ts';

export const SIGNING_STATES = [
  'ready',
  'not_in_turn',
  'completed',
  'declined',
  'cancelled',
  'expired',
  'finalizing',
] as const;
export type SigningState = (typeof SIGNING_STATES)[number];

/** The consent the signer gives before completing; a fixed default until organizations can set their own. */
export const CONSENT_TEXT: Record<string, string> = {
  en: 'I agree to sign this document electronically. My electronic signature is as legally binding as my handwritten signature.',
  he: 'אני מסכים/ה לחתום על מסמך זה באופן אלקטרוני. לחתימתי האלקטרונית אותו תוקף משפטי כמו לחתימתי בכתב יד.',
};

/** A token from `randomToken()`: 32 bytes in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** Fields the signer never fills, so they never count as awaiting the signer. */
const NOT_SIGNER_FILLED = ['Read-only text'];

export interface SigningSession {
  envelope: Envelope;
  recipient: Recipient;
  organization: Organization;
  state: SigningState;
  language: string;
  /** The recipient must verify a one-time code (`OtpSms`, `OtpWhatsApp`) before acting. */
  authenticationRequired: boolean;
  /**
   * The recipient may act as far as authentication goes: they need none, or the request carries an unexpired
   * signer session of theirs (header X-Signing-Session, from a verified code).
   */
  authenticated: boolean;
}

/**
 * Resolves a signing link. `signerSessionToken` is the X-Signing-Session header; it only matters for a
 * recipient who must verify a one-time code.
 */
export async function openSigningSession(
  ctx: DataContext,
  token: string,
  signerSessionToken?: string,
): Promise<SigningSession> {
  const notFound = new NotFound('This signing link was not found or is no longer valid.');
  if (!TOKEN.test(token)) throw notFound;
  const em = ctx.orm.em.fork();
  const link = await em.findOne(SigningLink, { tokenHash: sha256Hex(token), revokedAt: null });
  if (!link) throw notFound;
  const envelope = await em.findOne(Envelope, { id: link.envelopeId, organizationId: link.organizationId });
  const recipient = await em.findOne(Recipient, { id: link.recipientId, envelopeId: link.envelopeId });
  const organization = await em.findOne(Organization, { id: link.organizationId });
  if (!envelope || !recipient || !organization) throw notFound;
  const authenticationRequired = otpChannel(recipient.authenticationMethod) !== null;
  return {
    envelope,
    recipient,
    organization,
    state: signingState(envelope.status, recipient.status),
    language: recipient.language ?? organization.defaultLanguage,
    authenticationRequired,
    authenticated:
      !authenticationRequired ||
      (signerSessionToken !== undefined && (await hasSignerSession(ctx, recipient.id, signerSessionToken))),
  };
}

/** An unexpired signer session of this recipient with this token. */
async function hasSignerSession(
  ctx: DataContext,
  recipientId: string,
  sessionToken: string,
): Promise<boolean> {
  if (!TOKEN.test(sessionToken)) return false;
  const found = await ctx.orm.em.fork().count(SignerSession, {
    tokenHash: sha256Hex(sessionToken),
    recipientId,
    expiresAt: { $gt: new Date() },
  });
  return found > 0;
}

/** What completing means for each recipient type, as the signer app names it. */
export type SignerAction = 'sign' | 'fill' | 'approve' | 'view';

export function signerAction(type: RecipientType): SignerAction {
  if (type === 'FormFiller') return 'fill';
  if (type === 'Approver') return 'approve';
  if (type === 'Viewer' || type === 'Cc') return 'view';
  return 'sign';
}

/** What the signer app shows for a recipient's link. */
export function signingState(envelope: EnvelopeStatus, recipient: RecipientStatus): SigningState {
  if (envelope === 'Declined' || recipient === 'Declined') return 'declined';
  if (envelope === 'Cancelled' || recipient === 'Cancelled') return 'cancelled';
  if (envelope === 'Expired' || recipient === 'Expired') return 'expired';
  if (envelope === 'ProcessingFinalPdf' || envelope === 'FinalPdfFailed') return 'finalizing';
  if (envelope === 'Completed' || recipient === 'Completed') return 'completed';
  if (envelope === 'Archived' || envelope === 'Deleted') return 'cancelled';
  if (recipient === 'WaitingForTurn') return 'not_in_turn';
  return 'ready';
}

/** Refuses an action unless the recipient can act now (409 naming the state). */
export function requireReady(session: SigningSession, action: string): void {
  if (session.state !== 'ready') {
    throw new Conflict(`Cannot ${action}: this signing link is ${session.state}.`, [
      { field: 'state', message: session.state },
    ]);
  }
}

/** Refuses an action of a recipient who must verify a one-time code and has no signer session (403). */
export function requireAuthenticated(session: SigningSession, action: string): void {
  if (!session.authenticated) {
    throw new Forbidden(
      `Cannot ${action}: verify the one-time code first (POST /api/signing/{token}/otp, then /otp/verify) and send the session token in the X-Signing-Session header.`,
      [{ field: 'X-Signing-Session', message: 'missing, unknown or expired signer session' }],
    );
  }
}

/** Refuses a one-time-code step for a recipient who does not use one-time codes (409); else their channel. */
export function requireOtpRecipient(session: SigningSession, action: string): 'Sms' | 'WhatsApp' {
  const channel = otpChannel(session.recipient.authenticationMethod);
  if (!channel) {
    throw new Conflict(
      `Cannot ${action}: this recipient does not use one-time codes (authentication method ${session.recipient.authenticationMethod}).`,
      [{ field: 'authenticationMethod', message: session.recipient.authenticationMethod }],
    );
  }
  return channel;
}

export interface SignerField {
  field: TemplateField;
  value: unknown;
}

/** The recipient's fields (their template role's) in template order, each with its saved or prefilled value. */
export async function signerFields(ctx: DataContext, session: SigningSession): Promise<SignerField[]> {
  const { envelope, recipient } = session;
  if (!envelope.templateId || !recipient.roleId) return [];
  const em = ctx.orm.em.fork();
  const fields = await em.find(
    TemplateField,
    { templateId: envelope.templateId, roleId: recipient.roleId },
    { orderBy: { position: 'asc' } },
  );
  const values =
    fields.length === 0
      ? []
      : await em.find(EnvelopeFieldValue, {
          envelopeId: envelope.id,
          fieldId: { $in: fields.map((f) => f.id) },
        });
  return fields.map((field) => ({ field, value: values.find((v) => v.fieldId === field.id)?.value ?? null }));
}

export function isFilled(value: unknown): boolean {
  return value !== null && value !== undefined && value !== '' && value !== false;
}

/** Required fields the signer still has to fill (read-only text is never theirs to fill). */
export function missingRequired(fields: SignerField[]): SignerField[] {
  return fields.filter(
    ({ field, value }) => field.required && !NOT_SIGNER_FILLED.includes(field.type) && !isFilled(value),
  );
}

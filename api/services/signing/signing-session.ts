// A signing link resolved to its envelope, recipient and fields, and the state the signer app shows for it.
// An unknown or revoked token is "not found"; a link works for signing only while its recipient can act.
import {
  Envelope,
  EnvelopeFieldValue,
  Organization,
  Recipient,
  SigningLink,
  TemplateField,
} from '../../../db/entities/index.ts';
import type { AuthenticationMethod, EnvelopeStatus, RecipientStatus } from '../../../workflows/domain.ts';
import { Conflict, NotFound } from '../../errors.ts';
import { sha256Hex } from '../../security/secrets.ts';
import type { DataContext } from '../context.ts';

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

const OTP_METHODS: readonly AuthenticationMethod[] = ['OtpSms', 'OtpWhatsApp'];
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
  authenticationRequired: boolean;
}

export async function openSigningSession(ctx: DataContext, token: string): Promise<SigningSession> {
  const notFound = new NotFound('This signing link was not found or is no longer valid.');
  if (!TOKEN.test(token)) throw notFound;
  const em = ctx.orm.em.fork();
  const link = await em.findOne(SigningLink, { tokenHash: sha256Hex(token), revokedAt: null });
  if (!link) throw notFound;
  const envelope = await em.findOne(Envelope, { id: link.envelopeId, organizationId: link.organizationId });
  const recipient = await em.findOne(Recipient, { id: link.recipientId, envelopeId: link.envelopeId });
  const organization = await em.findOne(Organization, { id: link.organizationId });
  if (!envelope || !recipient || !organization) throw notFound;
  return {
    envelope,
    recipient,
    organization,
    state: signingState(envelope.status, recipient.status),
    language: recipient.language ?? organization.defaultLanguage,
    authenticationRequired: OTP_METHODS.includes(recipient.authenticationMethod),
  };
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

/** Refuses an action for a recipient who must verify a one-time code (not available yet). */
export function requireAuthenticated(session: SigningSession, action: string): void {
  if (session.authenticationRequired) {
    throw new Conflict(
      `Cannot ${action}: recipient must verify a one-time code (${session.recipient.authenticationMethod}) first, and OTP verification is not available yet.`,
      [{ field: 'authenticationMethod', message: session.recipient.authenticationMethod }],
    );
  }
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

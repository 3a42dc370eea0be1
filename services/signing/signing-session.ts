// A signing link resolved to its envelope, recipient and organization, and the state the signer app shows
// for it. Loaded once per request, in one statement (the link, its envelope, recipient and organization, and
// whether the request's signer session is valid), and handed to the verbs; an unknown or revoked token is
// "not found", and a link works for signing only while its recipient can act.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Envelope, Organization, Recipient } from '../../db/entities/index.ts';
import { prepared, runPrepared } from '../../db/prepared.ts';
import type {
  EnvelopeStatus,
  RecipientStatus,
  RecipientType,
  SignerAction,
  SigningState,
} from '../../domain/vocabulary.ts';
import type { DataContext } from '../context.ts';
import { Conflict, Forbidden, NotFound } from '../errors.ts';
import { sha256Hex } from '../security/secrets.ts';
import { otpChannel } from './otp-policy.ts';

/** The consent the signer gives before completing, unless the organization set its own (consentText). */
export const CONSENT_TEXT: Record<string, string> = {
  en: 'I agree to sign this document electronically. My electronic signature is as legally binding as my handwritten signature.',
  he: 'אני מסכים/ה לחתום על מסמך זה באופן אלקטרוני. לחתימתי האלקטרונית אותו תוקף משפטי כמו לחתימתי בכתב יד.',
};

/** A token from `randomToken()`: 32 bytes in base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface SigningSession {
  /** The token of the link, as the signer sent it. */
  token: string;
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

/** The link with its envelope, recipient and organization, and whether the signer's session is valid. */
const SESSION = prepared(
  'signing_session',
  `select row_to_json(e) as envelope, row_to_json(r) as recipient, row_to_json(o) as organization,
          (? :: text is not null and exists (
             select 1 from signer_session s
              where s.token_hash = ? and s.recipient_id = r.id and s.expires_at > now())) as has_session
     from signing_link l
     join envelope e on e.id = l.envelope_id and e.organization_id = l.organization_id
     join recipient r on r.id = l.recipient_id and r.envelope_id = l.envelope_id
     join organization o on o.id = l.organization_id
    where l.token_hash = ? and l.revoked_at is null`,
);

interface SessionRow {
  envelope: Record<string, unknown>;
  recipient: Record<string, unknown>;
  organization: Record<string, unknown>;
  has_session: boolean;
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
  const sessionHash =
    signerSessionToken && TOKEN.test(signerSessionToken) ? sha256Hex(signerSessionToken) : null;
  const [row] = await runPrepared<SessionRow>(ctx.em, SESSION, [sessionHash, sessionHash, sha256Hex(token)]);
  if (!row) throw notFound;
  const envelope = mapRow(ctx.em, Envelope, row.envelope);
  const recipient = mapRow(ctx.em, Recipient, row.recipient);
  const organization = mapRow(ctx.em, Organization, row.organization);
  const authenticationRequired = otpChannel(recipient.authenticationMethod) !== null;
  return {
    token,
    envelope,
    recipient,
    organization,
    // An archived envelope is, to its recipients, what it was when archived (archiving is the organization's
    // filing): a completed one stays completed, with its downloads.
    state: signingState(
      envelope.status === 'Archived' ? (envelope.previousStatus ?? envelope.status) : envelope.status,
      recipient.status,
    ),
    language: recipient.language ?? organization.defaultLanguage,
    authenticationRequired,
    authenticated: !authenticationRequired || row.has_session,
  };
}

/** A row of `row_to_json` (column names, JSON values) as a managed entity of the request's unit of work. */
function mapRow<T extends object>(em: EntityManager, entity: new () => T, data: Record<string, unknown>): T {
  return em.map(entity, data as never);
}

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
export function requireReady(session: Pick<SigningSession, 'state'>, action: string): void {
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

/** A ready and (for OTP) authenticated session: the precondition of every signer action but reading the view. */
export function requireActing(session: SigningSession, action: string): void {
  requireReady(session, action);
  requireAuthenticated(session, action);
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

// The words of an envelope's audit events in the business app (the envelope page's timeline, the dashboard's
// recent activity): each event type the envelope's workflow, its record and its recipients' links write has
// its catalog key (web/src/lib/i18n), with the names and dates the line needs; anything else reads "Event <type>".
// Plain TypeScript with no $lib import, so the root tsc and vitest read it as well as the web build.
import type { z } from 'zod';
import type { DocumentEvent as DocumentEventSchema } from '../../../../../domain/document.ts';
import type { SigningDocument } from '../../../../../domain/signing.ts';

/** One event of an envelope's timeline, as GET /api/documents/{id} gives it. */
export type DocumentEvent = z.output<typeof DocumentEventSchema>;

/** The timeline's words for each audit event the envelope's workflow and its record write. */
const EVENT_KEYS: Record<string, string> = {
  'envelope.sent': 'documents.event.sent',
  'recipient.opened': 'documents.event.opened',
  'recipient.authentication_requested': 'documents.event.codeSent',
  'recipient.authentication_verified': 'documents.event.codeVerified',
  'recipient.authentication_failed': 'documents.event.codeFailed',
  'recipient.viewed': 'documents.event.viewed',
  'recipient.started': 'documents.event.started',
  'recipient.invitation_sent': 'documents.event.delivered',
  'recipient.delivery_failed': 'documents.event.recipientDeliveryFailed',
  'envelope.delivery_failed': 'documents.event.deliveryFailed',
  'recipient.declined': 'documents.event.declined',
  // The event's recipient is named as they were before the correction (services/documents/get-document.ts).
  'recipient.corrected': 'documents.event.corrected',
  'envelope.cancelled': 'documents.event.cancelled',
  'envelope.expired': 'documents.event.expired',
  'envelope.expiring_soon': 'documents.event.expiringSoon',
  'envelope.settings_updated': 'documents.event.settingsUpdated',
  'envelope.completed': 'documents.event.completed',
  'document.final_pdf_ready': 'documents.event.finalPdfReady',
  'envelope.final_pdf_failed': 'documents.event.finalPdfFailed',
  'envelope.final_pdf_retried': 'documents.event.finalPdfRetried',
  'envelope.archived': 'documents.event.archived',
  'envelope.unarchived': 'documents.event.unarchived',
  'envelope.deleted': 'documents.event.deleted',
  'envelope.files_purged': 'documents.event.filesPurged',
};

const COMPLETION_KEYS: Record<string, string> = {
  signed: 'documents.event.signed',
  filled: 'documents.event.filled',
  approved: 'documents.event.approved',
  viewed: 'documents.event.viewedConfirmed',
};

/** Which document a recipient's link downloaded (`document.downloaded`'s `document`, domain/signing.ts). */
const DOWNLOAD_KEYS: Record<SigningDocument, string> = {
  'final-pdf': 'documents.event.downloadedFinalPdf',
  'audit-trail': 'documents.event.downloadedAuditTrail',
  original: 'documents.event.downloadedOriginal',
};

/** The catalog key and values of a timeline event's line (`documents.event.other` for one not known here). */
export function eventLine(
  event: DocumentEvent,
  formatDate: (iso: string) => string,
): { key: string; values: Record<string, string> } {
  const name = event.recipient?.fullName ?? '';
  const data = event.data;
  if (event.type === 'recipient.completed') {
    return {
      key: COMPLETION_KEYS[String(data.action)] ?? 'documents.event.completedRecipient',
      values: { name },
    };
  }
  if (event.type === 'envelope.reminded') {
    return {
      key: data.automatic === true ? 'documents.event.remindedAutomatic' : 'documents.event.reminded',
      values: {},
    };
  }
  if (event.type === 'envelope.extended') {
    const date = typeof data.expires_at === 'string' ? formatDate(data.expires_at) : '';
    return {
      key: data.revived_from === 'Expired' ? 'documents.event.extendedRevived' : 'documents.event.extended',
      values: { date },
    };
  }
  if (event.type === 'document.downloaded') {
    const key = DOWNLOAD_KEYS[data.document as SigningDocument];
    if (key) return { key, values: { name } };
  }
  if (event.type === 'recipient.delegated' && typeof data.delegated_to_name === 'string') {
    // The event's recipient is the person who handed the part over (services/documents/get-document.ts).
    return { key: 'documents.event.delegated', values: { name, delegate: data.delegated_to_name } };
  }
  const key = EVENT_KEYS[event.type];
  return key ? { key, values: { name } } : { key: 'documents.event.other', values: { type: event.type } };
}

/** What the timeline says under an event's line: a reason or a failure message the event carries. */
export function eventNote(event: DocumentEvent): string | null {
  const { reason, message } = event.data;
  if (typeof reason === 'string' && reason) return reason;
  if (event.type === 'recipient.delivery_failed' && typeof message === 'string' && message) return message;
  return null;
}

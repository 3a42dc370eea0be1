// What the envelope page says under "Right now" when no workflow is asked (docs/documents.md): a sentence in a
// business user's words for the envelope's status — a draft, completed with its files ready, declined by whom,
// cancelled, expired, archived — and when it happened (the envelope's dates, or its audit events). A running
// envelope's sentence comes from its workflow instead (DocumentNow.svelte, GET /api/documents/{id}/live).
import type { DocumentDetail } from '../documents.ts';

export interface NowLine {
  key: string;
  values: Record<string, string>;
}

/** The last time an audit event of this type happened, if the timeline has one. */
function lastEvent(detail: DocumentDetail, type: string) {
  return detail.timeline.findLast((event) => event.type === type);
}

/** The sentence for a status no workflow speaks for (null: a running envelope, whose workflow says). */
export function nowLine(detail: DocumentDetail, formatDate: (iso: string) => string): NowLine | null {
  const when = (iso: string | null | undefined) => formatDate(iso ?? detail.updatedAt);
  switch (detail.status) {
    case 'Draft':
      return { key: 'documents.now.Draft', values: {} };
    case 'Completed':
      return {
        key:
          detail.files.finalPdf && detail.files.auditTrail
            ? 'documents.now.Completed'
            : 'documents.now.CompletedPreparing',
        values: { date: when(detail.completedAt) },
      };
    case 'Declined': {
      const declined = lastEvent(detail, 'recipient.declined');
      const name =
        declined?.recipient?.fullName ??
        detail.recipients.find((recipient) => recipient.status === 'Declined')?.fullName;
      return name
        ? { key: 'documents.now.Declined', values: { name, date: when(declined?.occurredAt) } }
        : { key: 'documents.now.DeclinedNobody', values: { date: when(declined?.occurredAt) } };
    }
    case 'Cancelled':
      return {
        key: 'documents.now.Cancelled',
        values: { date: when(lastEvent(detail, 'envelope.cancelled')?.occurredAt) },
      };
    case 'Expired':
      return { key: 'documents.now.Expired', values: { date: when(detail.expiresAt) } };
    case 'Archived':
      return {
        key: 'documents.now.Archived',
        values: { date: when(lastEvent(detail, 'envelope.archived')?.occurredAt) },
      };
    default:
      return null;
  }
}

// GET /api/documents/{id}: one envelope as its page shows it (docs/documents.md) — its recipients with their
// rounds, the timeline of its audit events, the downloads that exist, the actions its status allows the signed-in
// user, and, for users with settings:read, its Temporal workflow. Read from PostgreSQL (the workflow's
// projection) by one statement: the envelope the reader sees with its sender, team and template, its recipients
// and its audit events.
import { AuditEvent, Envelope, Organization, Recipient } from '../../db/entities/index.ts';
import { UUID_PATTERN } from '../../domain/common.ts';
import type { DocumentActions, DocumentDetail } from '../../domain/document.ts';
import type { EnvelopeStatus } from '../../domain/vocabulary.ts';
import { workflowWebUiUrl } from '../../temporal/web-ui.ts';
import { actsInRounds, currentRoundIndex, planRounds } from '../../workflows/rounds.ts';
import { ACTING_RECIPIENT_STATUSES, allows, SIGNING_STATUSES } from '../../workflows/transitions.ts';
import type { DataContext, ServiceConfig } from '../context.ts';
import { recipientView } from '../envelopes/envelope-view.ts';
import { NotFound } from '../errors.ts';
import { type DocumentReader, visibleTo } from './document-reader.ts';
import {
  DOCUMENT_COLUMNS,
  DOCUMENT_JOINS,
  type DocumentColumnsRow,
  documentFields,
  isoOrNull,
} from './list-documents.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Recipients whose links the sender hands over: they get no message (docs/notifications.md). */
const HANDED_OVER: readonly string[] = ['ManualLink', 'Api'];
const SIGNING: readonly EnvelopeStatus[] = SIGNING_STATUSES;

type DetailRow = DocumentColumnsRow & {
  envelope: Record<string, unknown>;
  recipients: Record<string, unknown>[];
  events: Record<string, unknown>[];
};

/** The audit event's columns the entity maps (not the audit chain's). */
const EVENT_COLUMNS = `a.id, a.envelope_id, a.organization_id, a.sequence, a.type, a.recipient_id, a.data,
  a.occurred_at, a.recorded_at`;

export async function getDocument(
  ctx: DataContext & { config?: ServiceConfig },
  reader: DocumentReader,
  envelopeId: string,
): Promise<DocumentDetail> {
  const { em } = ctx;
  const visible = visibleTo(reader);
  const [row] = UUID_PATTERN.test(envelopeId)
    ? await em.execute<DetailRow[]>(
        `select ${DOCUMENT_COLUMNS}, row_to_json(e) as envelope,
                coalesce((select json_agg(row_to_json(r) order by r.signing_order, r.position, r.id)
                            from recipient r where r.envelope_id = e.id), '[]') as recipients,
                coalesce((select json_agg(row_to_json(a) order by a.sequence)
                            from (select ${EVENT_COLUMNS} from audit_event a where a.envelope_id = e.id) a),
                         '[]') as events
           ${DOCUMENT_JOINS} where e.id = ? and ${visible.sql}`,
        [envelopeId, ...visible.params],
      )
    : [];
  if (!row) throw new NotFound(`Envelope ${envelopeId} was not found.`);
  // Into the unit of work, as reads with `refresh` would (what the projection wrote replaces what it held).
  const envelope = em.map(Envelope, row.envelope as never);
  const recipients = row.recipients.map((recipient) => em.map(Recipient, recipient as never));
  const events = row.events.map((event) => em.map(AuditEvent, event as never));

  const rounds = planRounds(envelope.workflowType, recipients);
  const required = new Set(recipients.filter((r) => r.required && actsInRounds(r)).map((r) => r.id));
  const completed = new Set(recipients.filter((r) => r.status === 'Completed').map((r) => r.id));
  const turn = currentRoundIndex(rounds, required, completed);
  const signing = SIGNING.includes(envelope.status);
  const names = namesAtEvents(
    events,
    new Map(recipients.map((recipient) => [recipient.id, recipient.fullName])),
  );
  const namespace = ctx.config?.temporal?.namespace ?? 'default';

  return {
    ...documentFields(row),
    externalSystem: envelope.externalSystem ?? null,
    updatedAt: envelope.updatedAt.toISOString(),
    source: envelope.sourceFileId ? 'file' : 'template',
    reminderCount: envelope.reminderCount,
    lastRemindedAt: isoOrNull(envelope.lastRemindedAt ?? null),
    recordBeingRepaired: Boolean(envelope.projectionError),
    files: {
      source: Boolean(envelope.sourceFileId ?? envelope.templateId),
      finalPdf: Boolean(envelope.finalPdfFileId),
      auditTrail: Boolean(envelope.auditTrailFileId),
    },
    rounds: rounds.length,
    currentRound: signing && turn < rounds.length ? turn + 1 : null,
    recipients: recipients.map((recipient) => {
      const round = rounds.findIndex((ids) => ids.includes(recipient.id));
      const view = recipientView(recipient);
      return {
        ...view,
        round: round === -1 ? null : round + 1,
        signingLink:
          reader.manages &&
          signing &&
          HANDED_OVER.includes(recipient.deliveryChannel) &&
          actsInRounds(recipient) &&
          recipient.status !== 'Completed',
        // The workflow's rules (whyCannotRemind, whyCannotCorrect), which it checks again.
        remind:
          reader.manages &&
          signing &&
          actsInRounds(recipient) &&
          ACTING_RECIPIENT_STATUSES.includes(recipient.status),
        correct: reader.manages && signing && recipient.status !== 'Completed',
      };
    }),
    timeline: events.map((event) => ({
      sequence: event.sequence,
      type: event.type,
      occurredAt: event.occurredAt.toISOString(),
      recipient: event.recipientId ? { id: event.recipientId, fullName: names.get(event) ?? '' } : null,
      data: event.data ?? {},
    })),
    actions: reader.manages ? await actionsFor(ctx, envelope) : NO_ACTIONS,
    deadlineSettings: envelope.deadlineSettings ?? null,
    workflow:
      reader.seesWorkflow && envelope.workflowId
        ? {
            id: envelope.workflowId,
            namespace,
            webUiUrl: workflowWebUiUrl(ctx.config?.temporal, namespace, envelope.workflowId),
          }
        : null,
  };
}

const NO_ACTIONS: DocumentActions = {
  send: false,
  remind: false,
  cancel: false,
  extend: false,
  retryFinalPdf: false,
  changeSettings: false,
};

/**
 * What the envelope's status allows (the workflow's transition table, workflows/transitions.ts): the same
 * rules the services and the workflow apply, which check again. An Expired envelope may be extended within the
 * organization's grace window after its deadline.
 */
async function actionsFor(
  ctx: DataContext,
  envelope: {
    status: EnvelopeStatus;
    expiresAt?: Date | null;
    organizationId: string;
    deadlineSettings?: Envelope['deadlineSettings'];
  },
): Promise<DocumentActions> {
  const { status } = envelope;
  let revivable = false;
  if (status === 'Expired' && envelope.expiresAt) {
    // The envelope's own grace window; one created before envelopes kept it has its organization's.
    const organization = envelope.deadlineSettings
      ? null
      : await ctx.em.findOne(Organization, { id: envelope.organizationId });
    const graceDays =
      envelope.deadlineSettings?.expiredExtensionGraceDays ?? organization?.expiredExtensionGraceDays ?? 0;
    revivable = graceDays > 0 && envelope.expiresAt.getTime() + graceDays * DAY_MS > Date.now();
  }
  return {
    send: status === 'Draft',
    remind: allows('remind', status),
    cancel: allows('cancel', status),
    extend: status === 'Draft' || allows('extend', status) || revivable,
    retryFinalPdf: allows('retry final PDF', status),
    changeSettings: status === 'Draft' || allows('change settings', status),
  };
}

/**
 * Who each recipient event's recipient was when it happened: their name now, back to their last delegation
 * (docs/signing.md), which and whose earlier events name the person who handed the part over
 * (`delegated_by_name`), and so on back. `events` in order.
 */
function namesAtEvents(events: readonly AuditEvent[], current: Map<string, string>): Map<AuditEvent, string> {
  const names = new Map<AuditEvent, string>();
  for (const event of events.toReversed()) {
    if (!event.recipientId) continue;
    const before =
      event.type === 'recipient.delegated'
        ? event.data?.delegated_by_name
        : event.type === 'recipient.corrected'
          ? (event.data?.changes as { fullName?: { old?: unknown } } | undefined)?.fullName?.old
          : undefined;
    if (typeof before === 'string') current.set(event.recipientId, before);
    names.set(event, current.get(event.recipientId) ?? '');
  }
  return names;
}

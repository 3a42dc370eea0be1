// The documents pages' shapes, labels and live updates (docs/documents.md). Shapes are the server's own schemas
// (domain/document.ts), as types only; the tabs are repeated with a type check that they match. The envelope page
// follows its envelope by polling GET /api/documents/{id} with If-None-Match (a 304 costs nothing to show), only
// while the page is visible, a little less often each time nothing changed, and not at all once it is closed.
import { TRPCClientError } from '@trpc/client';
import type { z } from 'zod';
import { appRoute, requestFor } from '$lib/shared/app-client';
import type * as schemas from '../../../../domain/document.ts';
import { RETENTION_DELETED_DAYS, recordRefusal } from '../../../../domain/document-lifecycle.ts';
import {
  type DeliveryChannel,
  type EnvelopeStatus,
  type RecipientStatus,
  type RecipientType,
  TERMINAL_ENVELOPE_STATUSES,
  type WorkflowType,
} from '../../../../domain/vocabulary.ts';

export type DocumentTab = schemas.DocumentTab;
export type DocumentListItem = z.output<typeof schemas.DocumentListItem>;
export type DocumentFilters = z.output<typeof schemas.DocumentFilters>;
export type DocumentDetail = z.output<typeof schemas.DocumentDetail>;
export type DocumentRecipient = z.output<typeof schemas.DocumentRecipient>;
export type { DocumentEvent } from './documents/timeline-events.ts';
export type DocumentLive = z.output<typeof schemas.DocumentLive>;
export type DocumentActions = z.output<typeof schemas.DocumentActions>;

/** The list's tabs in the order the page shows them (domain/document.ts, DOCUMENT_TABS). */
export const DOCUMENT_TABS: typeof schemas.DOCUMENT_TABS = [
  'all',
  'action_needed',
  'in_progress',
  'completed',
  'declined',
  'cancelled',
  'expired',
  'drafts',
  'archived',
];
export const DOCUMENT_SEARCH_MAX: typeof schemas.DOCUMENT_LIMITS.search = 200;

/** Whether a workflow may still change the envelope: sent and not finished (an Expired one may be revived). */
export function isRunning(status: EnvelopeStatus): boolean {
  if (status === 'Draft') return false;
  return status === 'Expired' || !TERMINAL_ENVELOPE_STATUSES.includes(status);
}

/** Archive, unarchive and delete: which of them the envelope's status allows. */
export interface LifecycleActions {
  archive: boolean;
  unarchive: boolean;
  delete: boolean;
}

/**
 * What the status allows of archiving, unarchiving and deleting, by the rule the server applies
 * (domain/document-lifecycle.ts); whether the user may (documents:manage) is the page's to check. The server
 * decides again: a Draft whose send is under way, or a status changed meanwhile, is refused with a 409.
 */
export function lifecycleActions(status: EnvelopeStatus): LifecycleActions {
  return {
    archive: recordRefusal('archive', status) === undefined,
    unarchive: recordRefusal('unarchive', status) === undefined,
    delete: recordRefusal('delete', status) === undefined,
  };
}

/** Days a deleted envelope's files are kept: the organization's `retention.deletedDays`, or the default. */
export function purgeDaysOf(deletedDays: number | null): number {
  return deletedDays ?? RETENTION_DELETED_DAYS.default;
}

/** What the envelope page leaves for the list after deleting an envelope (SvelteKit's page state). */
export interface DeletedDocument {
  title: string;
  /** When its files are purged (the delete route's `filesPurgeAfter`). */
  filesPurgeAfter: string | null;
}

export function isDocumentTab(value: string | null): value is DocumentTab {
  return value !== null && (DOCUMENT_TABS as readonly string[]).includes(value);
}

export const TAB_KEYS: Record<DocumentTab, string> = {
  all: 'documents.tab.all',
  action_needed: 'documents.tab.action_needed',
  in_progress: 'documents.tab.in_progress',
  completed: 'documents.tab.completed',
  declined: 'documents.tab.declined',
  cancelled: 'documents.tab.cancelled',
  expired: 'documents.tab.expired',
  drafts: 'documents.tab.drafts',
  archived: 'documents.tab.archived',
};

export const STATUS_KEYS: Record<EnvelopeStatus, string> = {
  Draft: 'documents.status.Draft',
  ReadyToSend: 'documents.status.ReadyToSend',
  Sending: 'documents.status.Sending',
  Sent: 'documents.status.Sent',
  Opened: 'documents.status.Opened',
  InProgress: 'documents.status.InProgress',
  WaitingForNextSigner: 'documents.status.WaitingForNextSigner',
  ProcessingFinalPdf: 'documents.status.ProcessingFinalPdf',
  Completed: 'documents.status.Completed',
  DeliveryFailed: 'documents.status.DeliveryFailed',
  FinalPdfFailed: 'documents.status.FinalPdfFailed',
  Declined: 'documents.status.Declined',
  Cancelled: 'documents.status.Cancelled',
  Expired: 'documents.status.Expired',
  Archived: 'documents.status.Archived',
  Deleted: 'documents.status.Deleted',
};

/** The badge of a status: finished well, in progress, needing attention, or over. */
export function statusTone(status: EnvelopeStatus): 'good' | 'info' | 'warn' | 'off' {
  if (status === 'Completed') return 'good';
  if (status === 'DeliveryFailed' || status === 'FinalPdfFailed' || status === 'Declined') return 'warn';
  if (status === 'Draft' || status === 'Cancelled' || status === 'Expired' || status === 'Archived') {
    return 'off';
  }
  return status === 'Deleted' ? 'off' : 'info';
}

export const RECIPIENT_STATUS_KEYS: Record<RecipientStatus, string> = {
  Pending: 'documents.recipientStatus.Pending',
  WaitingForTurn: 'documents.recipientStatus.WaitingForTurn',
  InvitationSent: 'documents.recipientStatus.InvitationSent',
  DeliveryFailed: 'documents.recipientStatus.DeliveryFailed',
  LinkOpened: 'documents.recipientStatus.LinkOpened',
  AuthenticationPending: 'documents.recipientStatus.AuthenticationPending',
  AuthenticationVerified: 'documents.recipientStatus.AuthenticationVerified',
  AuthenticationFailed: 'documents.recipientStatus.AuthenticationFailed',
  Viewed: 'documents.recipientStatus.Viewed',
  InProgress: 'documents.recipientStatus.InProgress',
  Completed: 'documents.recipientStatus.Completed',
  Declined: 'documents.recipientStatus.Declined',
  Cancelled: 'documents.recipientStatus.Cancelled',
  Expired: 'documents.recipientStatus.Expired',
};

export function recipientTone(status: RecipientStatus): 'good' | 'info' | 'warn' | 'off' {
  if (status === 'Completed') return 'good';
  if (status === 'DeliveryFailed' || status === 'AuthenticationFailed' || status === 'Declined')
    return 'warn';
  if (status === 'WaitingForTurn' || status === 'Cancelled' || status === 'Expired') return 'off';
  return 'info';
}

export const RECIPIENT_TYPE_KEYS: Record<RecipientType, string> = {
  Signer: 'documents.recipientType.Signer',
  FormFiller: 'documents.recipientType.FormFiller',
  Approver: 'documents.recipientType.Approver',
  Viewer: 'documents.recipientType.Viewer',
  Cc: 'documents.recipientType.Cc',
};

export const CHANNEL_KEYS: Record<DeliveryChannel, string> = {
  Email: 'documents.channel.Email',
  Sms: 'documents.channel.Sms',
  WhatsApp: 'documents.channel.WhatsApp',
  ManualLink: 'documents.channel.ManualLink',
  Api: 'documents.channel.Api',
};

export const WORKFLOW_TYPE_KEYS: Record<WorkflowType, string> = {
  Sequential: 'documents.workflowType.Sequential',
  Parallel: 'documents.workflowType.Parallel',
  GroupedRounds: 'documents.workflowType.GroupedRounds',
};

export const WAITING_FOR_KEYS: Record<DocumentLive['waitingFor'], string> = {
  recipients: 'documents.live.waitingFor.recipients',
  final_pdf: 'documents.live.waitingFor.final_pdf',
  final_pdf_retry: 'documents.live.waitingFor.final_pdf_retry',
  extension: 'documents.live.waitingFor.extension',
  projection_repair: 'documents.live.waitingFor.projection_repair',
  nothing: 'documents.live.waitingFor.nothing',
};

/** The answer of a conditional read of the envelope: unchanged (304), or the envelope and its new ETag. */
export type DocumentRead =
  | { changed: false }
  | { changed: true; document: DocumentDetail; etag: string | null };

/**
 * GET /api/documents/{id} with If-None-Match. A failure rejects with the TRPCClientError the app client gives,
 * so the pages' error helpers read it the same way.
 */
export async function readDocument(
  id: string,
  etag: string | null,
  signal?: AbortSignal,
): Promise<DocumentRead> {
  const { url } = requestFor(appRoute('documents.get'), { id });
  const response = await fetch(url, {
    headers: { accept: 'application/json', ...(etag ? { 'if-none-match': etag } : {}) },
    credentials: 'same-origin',
    cache: 'no-store',
    ...(signal ? { signal } : {}),
  });
  if (response.status === 304) return { changed: false };
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (response.ok) {
    return { changed: true, document: body as DocumentDetail, etag: response.headers.get('etag') };
  }
  const error = (body as { error?: { message?: unknown } } | undefined)?.error;
  const meta = { status: response.status, ...(typeof error?.message === 'string' ? { body } : {}) };
  throw new TRPCClientError(typeof error?.message === 'string' ? error.message : `HTTP ${response.status}`, {
    meta,
  });
}

export interface PollOptions {
  /** The first wait, and the wait after a change (ms). */
  firstMs: number;
  /** The longest wait (ms): each poll that found nothing new waits `factor` times longer, up to this. */
  maxMs: number;
  factor: number;
}

export const DOCUMENT_POLL: PollOptions = { firstMs: 2_000, maxMs: 15_000, factor: 1.5 };

/**
 * Calls `poll` (which answers whether something changed) again and again while the page is visible: after
 * `firstMs`, then longer while nothing changes (up to `maxMs`), at once and from `firstMs` again when the page
 * becomes visible, never while it is hidden. A failed poll waits the longest. Returns the stop function (for the
 * page's destroy): no poll runs after it, and one under way is aborted.
 */
export function pollWhileVisible(
  poll: (signal: AbortSignal) => Promise<boolean>,
  options: PollOptions = DOCUMENT_POLL,
): { stop: () => void; reset: () => void } {
  let wait = options.firstMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: AbortController | undefined;
  let stopped = false;

  const schedule = () => {
    clearTimeout(timer);
    if (stopped || document.hidden) return;
    timer = setTimeout(() => void run(), wait);
  };
  const run = async () => {
    if (stopped || document.hidden || running) return;
    running = new AbortController();
    try {
      const changed = await poll(running.signal);
      wait = changed ? options.firstMs : Math.min(options.maxMs, Math.round(wait * options.factor));
    } catch {
      wait = options.maxMs;
    } finally {
      running = undefined;
    }
    schedule();
  };
  const visibility = () => {
    clearTimeout(timer);
    if (document.hidden) {
      running?.abort();
      return;
    }
    wait = options.firstMs;
    void run();
  };
  document.addEventListener('visibilitychange', visibility);
  schedule();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
      running?.abort();
      document.removeEventListener('visibilitychange', visibility);
    },
    /** After the page itself changed the envelope: poll soon again. */
    reset: () => {
      wait = options.firstMs;
      schedule();
    },
  };
}

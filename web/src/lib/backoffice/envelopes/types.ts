// The backoffice's envelopes (docs/backoffice.md, "Envelopes"): the server's own schemas
// (domain/backoffice-envelopes.ts), imported as types only, and the repairs the envelope page offers.
import type { z } from 'zod';
import type * as envelopes from '../../../../../domain/backoffice-envelopes.ts';

export type EnvelopeList = z.output<typeof envelopes.BackofficeEnvelopeList>;
export type EnvelopeSummary = EnvelopeList['envelopes'][number];
export type EnvelopeDetail = z.output<typeof envelopes.BackofficeEnvelopeDetail>;
/** The contents as the client receives them (JSON: a field's value may be absent). */
export type EnvelopeContents = {
  envelopeId: string;
  fieldValues: { fieldId: string; recipientId: string | null; source: string; value?: unknown }[];
};
export type EnvelopeRepair = envelopes.EnvelopeRepair;

/** Envelopes a page of the lookup shows. */
export const ENVELOPES_PAGE_SIZE = 25;

/** The repairs, in the page's order (each `POST /api/backoffice/envelopes/{id}/<repair>`). */
export const REPAIRS = [
  'resume-projection',
  'retry-final-pdf',
  'reissue-links',
  'verify-audit',
] as const satisfies readonly EnvelopeRepair[];

/** The page's words of a repair: its button and dialog title, and what the dialog says it does. */
export const REPAIR_WORDS: Record<EnvelopeRepair, { label: string; body: string }> = {
  'resume-projection': {
    label: 'backoffice.envelope.repair.resumeProjection',
    body: 'backoffice.envelope.repair.resumeProjectionBody',
  },
  'retry-final-pdf': {
    label: 'backoffice.envelope.repair.retryFinalPdf',
    body: 'backoffice.envelope.repair.retryFinalPdfBody',
  },
  'reissue-links': {
    label: 'backoffice.envelope.repair.reissueLinks',
    body: 'backoffice.envelope.repair.reissueLinksBody',
  },
  'verify-audit': {
    label: 'backoffice.envelope.repair.verifyAudit',
    body: 'backoffice.envelope.repair.verifyAuditBody',
  },
};

/** What matched a search, in the page's words. */
export const MATCHED_BY_KEYS: Record<EnvelopeSummary['matchedBy'], string> = {
  id: 'backoffice.envelopes.matchedBy.id',
  external_reference: 'backoffice.envelopes.matchedBy.external_reference',
  email: 'backoffice.envelopes.matchedBy.email',
  phone: 'backoffice.envelopes.matchedBy.phone',
};

/** The recording's (projection's) state, in the page's words. */
export const PROJECTION_KEYS: Record<EnvelopeDetail['projection']['state'], string> = {
  current: 'backoffice.envelope.projection.current',
  behind: 'backoffice.envelope.projection.behind',
  parked: 'backoffice.envelope.projection.parked',
  unknown: 'backoffice.envelope.projection.unknown',
};

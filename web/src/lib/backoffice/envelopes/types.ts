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

/** The page's words of a repair: `backoffice.envelope.repair.<key>` and `….<key>Body`. */
export const REPAIR_KEYS: Record<EnvelopeRepair, string> = {
  'resume-projection': 'resumeProjection',
  'retry-final-pdf': 'retryFinalPdf',
  'reissue-links': 'reissueLinks',
  'verify-audit': 'verifyAudit',
};

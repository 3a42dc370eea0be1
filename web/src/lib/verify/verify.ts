// The verification page's (/verify, docs/sealing.md, "Verification") client and words: the PDF goes to
// POST /api/verify as the body itself (not through the application routes' client: the body is the PDF) and is
// not kept; a refusal (not a PDF, empty, too large, too many checks from the address, no answer) becomes what
// the visitor is told, read through the one error model (RequestError); and each verdict's headline, summary,
// tone and mark, the kind of document, and the audit chain's figures said in a sentence.
import type { VerificationResult } from '$lib/app/secure-signatures';
import { requestErrorFrom } from '$lib/shared/request-error';

export type { VerificationResult };

export type Refusal = 'notPdf' | 'empty' | 'tooLarge' | 'rateLimited' | 'failed' | 'unreachable' | 'oneFile';

export type VerifyView =
  | { status: 'idle' }
  | { status: 'checking'; name: string }
  | { status: 'done'; name: string; result: VerificationResult }
  | { status: 'refused'; name: string; refusal: Refusal; message?: string | undefined; retryAfter?: number };

export function refused(name: string, refusal: Refusal, message?: string, retryAfter?: number): VerifyView {
  return { status: 'refused', name, refusal, message, ...(retryAfter === undefined ? {} : { retryAfter }) };
}

/** What a refusal of POST /api/verify means for the visitor. */
async function refusalOf(name: string, response: Response): Promise<VerifyView> {
  const failure = requestErrorFrom(response.status, await response.json().catch(() => undefined));
  const message = failure.serverMessage;
  if (response.status === 413) return refused(name, 'tooLarge', message);
  if (response.status === 429) {
    const seconds = Number(response.headers.get('retry-after'));
    return refused(name, 'rateLimited', message, Number.isFinite(seconds) ? seconds : undefined);
  }
  if (response.status === 400 && failure.details.some((detail) => detail.field === 'body')) {
    return refused(name, 'notPdf', message);
  }
  return refused(name, 'failed', message);
}

/** Checks one file: the verdict, or why it could not be checked. Rejects only when `signal` aborted it. */
export async function verifyFile(file: File, signal: AbortSignal): Promise<VerifyView> {
  if (file.size === 0) return refused(file.name, 'empty');
  let response: Response;
  try {
    response = await fetch('/api/verify', {
      method: 'POST',
      headers: { 'content-type': 'application/pdf', accept: 'application/json' },
      body: file,
      cache: 'no-store',
      credentials: 'omit',
      signal,
    });
  } catch (error) {
    if (signal.aborted) throw error;
    return refused(file.name, 'unreachable');
  }
  if (!response.ok) return refusalOf(file.name, response);
  return { status: 'done', name: file.name, result: (await response.json()) as VerificationResult };
}

export const REFUSAL_KEYS: Record<Refusal, string> = {
  notPdf: 'verify.error.notPdf',
  empty: 'verify.error.empty',
  tooLarge: 'verify.error.tooLarge',
  rateLimited: 'verify.error.rateLimited',
  failed: 'verify.error.failed',
  unreachable: 'verify.error.unreachable',
  oneFile: 'verify.error.oneFile',
};

type Verdict = VerificationResult['verdict'];

export const HEADLINE_KEYS: Record<Verdict, string> = {
  intact: 'verify.verdict.intact',
  modified: 'verify.verdict.modified',
  not_sealed: 'verify.verdict.notSealed',
  unknown_seal: 'verify.verdict.unknownSeal',
};

/** The verdict's colour: intact in green, modified in red, unsealed or sealed by someone else in amber. */
export const TONES: Record<Verdict, 'good' | 'bad' | 'neutral'> = {
  intact: 'good',
  modified: 'bad',
  not_sealed: 'neutral',
  unknown_seal: 'neutral',
};

export const MARKS: Record<Verdict, string> = {
  intact: '✓',
  modified: '✕',
  not_sealed: '?',
  unknown_seal: '!',
};

/** The verdict in a sentence or two: what the visitor may make of the file. */
export function summaryKey(result: VerificationResult): string {
  switch (result.verdict) {
    case 'intact':
      return result.document === 'audit_trail' ? 'verify.summary.intactAuditTrail' : 'verify.summary.intact';
    case 'modified':
      if (result.signature && !result.signature.cryptographicallyValid)
        return 'verify.summary.modifiedContent';
      if (result.signature && !result.signature.coversWholeFile) return 'verify.summary.modifiedAppended';
      return 'verify.summary.modifiedFile';
    case 'not_sealed':
      return 'verify.summary.notSealed';
    default:
      return 'verify.summary.unknownSeal';
  }
}

export function documentKindKey(result: VerificationResult): string {
  if (result.document === 'audit_trail') return 'verify.document.auditTrail';
  if (result.document === 'final_pdf') return 'verify.document.finalPdf';
  return 'verify.document.unknown';
}

type AuditChain = NonNullable<VerificationResult['auditChain']>;

/**
 * The audit chain's two figures in a sentence (the catalog key and its values): how many events the document
 * sealed (the chain when the envelope was finalized), and how many Sigil keeps now — more once the envelope's
 * completion, an archiving and the like were recorded after the seal, which leaves the sealed ones intact.
 */
export function chainSentence(
  chain: AuditChain,
): { key: string; values: Record<string, number> } | undefined {
  const sealed = chain.sealedEvents;
  if (sealed === null) return undefined;
  if (!chain.intact) return { key: 'verify.chain.explainBroken', values: { sealed, events: chain.events } };
  const later = chain.events - sealed;
  if (later > 0) return { key: 'verify.chain.explainMore', values: { sealed, later } };
  return { key: 'verify.chain.explainAll', values: { sealed } };
}

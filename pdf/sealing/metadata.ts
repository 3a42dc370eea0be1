// What Sigil writes into a document's Info dictionary before sealing it, so it is inside the signed bytes:
// the envelope, the audit chain head with the number of events it covers, and the SHA-256 of the original
// document. Read back by the verification (from the sealed revision) and by anyone with a PDF reader.
import { PDFDict, PDFDocument, PDFHexString, PDFName, PDFString } from 'pdf-lib';

export interface SealMetadata {
  envelopeId: string;
  auditChainHead: string | null;
  auditChainEvents: number;
  /** SHA-256 of the PDF the envelope was created from. */
  originalSha256: string;
}

const KEYS = {
  envelopeId: 'SigilEnvelopeId',
  auditChainHead: 'SigilAuditChainHead',
  auditChainEvents: 'SigilAuditChainEvents',
  originalSha256: 'SigilOriginalSha256',
} as const;

export function writeSealMetadata(doc: PDFDocument, metadata: SealMetadata): void {
  // setProducer makes sure the Info dictionary exists.
  doc.setProducer('Sigil');
  const info = doc.context.lookup(doc.context.trailerInfo.Info, PDFDict);
  info.set(PDFName.of(KEYS.envelopeId), PDFString.of(metadata.envelopeId));
  info.set(PDFName.of(KEYS.auditChainHead), PDFString.of(metadata.auditChainHead ?? ''));
  info.set(PDFName.of(KEYS.auditChainEvents), PDFString.of(String(metadata.auditChainEvents)));
  info.set(PDFName.of(KEYS.originalSha256), PDFString.of(metadata.originalSha256));
}

/** The metadata of a PDF revision (for the seal: the bytes up to the end of the signature's byte range). */
export async function readSealMetadata(revision: Uint8Array): Promise<Partial<SealMetadata>> {
  let info: PDFDict | undefined;
  try {
    const doc = await PDFDocument.load(revision, { updateMetadata: false, ignoreEncryption: true });
    info = doc.context.lookupMaybe(doc.context.trailerInfo.Info, PDFDict);
  } catch {
    return {};
  }
  if (!info) return {};
  const read = (key: string): string | undefined => {
    const value = info.lookupMaybe(PDFName.of(key), PDFString, PDFHexString);
    return value?.decodeText();
  };
  const events = read(KEYS.auditChainEvents);
  const head = read(KEYS.auditChainHead);
  const envelopeId = read(KEYS.envelopeId);
  const originalSha256 = read(KEYS.originalSha256);
  return {
    ...(envelopeId ? { envelopeId } : {}),
    ...(head !== undefined ? { auditChainHead: head === '' ? null : head } : {}),
    ...(events !== undefined && /^\d+$/.test(events) ? { auditChainEvents: Number(events) } : {}),
    ...(originalSha256 ? { originalSha256 } : {}),
  };
}

// What reading one PDF may cost, and the refusal a PDF gets when it is not accepted. Every PDF that Sigil
// stores (uploads, template sources, signers' File upload values) is read under these limits, so a file
// built to exhaust the server, a signer's browser or the final PDF's readers is refused with a 400 instead.

const MEBIBYTE = 1024 * 1024;

export interface PdfLimits {
  /**
   * Pages per document. The signer page draws every page of the document in the browser and the final PDF
   * gets a footer on each; 500 pages is far beyond any agreement sent for signature.
   */
  maxPages: number;
  /**
   * Bytes all streams of the file may decode to, in total (content, fonts, images before their image
   * codec, object streams). Counted while decoding, so a compression bomb is stopped at the limit.
   */
  maxDecodedBytes: number;
  /** Wall-clock time the whole inspection may take, on a thread of the inspection pool. */
  maxParseMilliseconds: number;
}

export const PDF_LIMITS: PdfLimits = {
  maxPages: 500,
  maxDecodedBytes: 100 * MEBIBYTE,
  maxParseMilliseconds: 3000,
};

/** Why a PDF is not accepted: a sentence for the error message and a short phrase for its details. */
export class PdfRefusal extends Error {
  readonly detail: string;
  readonly code: string;

  constructor(message: string, detail: string, code = 'invalid_request') {
    super(message);
    this.name = 'PdfRefusal';
    this.detail = detail;
    this.code = code;
  }
}

/** `25 MB`, or `0.0195 MB` for limits that are not whole megabytes. */
export function formatMegabytes(bytes: number): string {
  const megabytes = bytes / MEBIBYTE;
  return `${Number.isInteger(megabytes) ? megabytes : Number(megabytes.toPrecision(3))} MB`;
}

/** The refusal of a file that takes longer than the limit to read. */
export function tooSlow(limits: Pick<PdfLimits, 'maxParseMilliseconds'>): PdfRefusal {
  const seconds = limits.maxParseMilliseconds / 1000;
  return new PdfRefusal(
    `The PDF is too complex to read within ${seconds} seconds, the limit for one document.`,
    `takes longer than ${seconds} s to read`,
  );
}

/** The running cost of one inspection: decoded bytes so far and the deadline. */
export class PdfBudget {
  readonly limits: PdfLimits;
  private decoded = 0;
  private readonly deadline: number;

  constructor(limits: PdfLimits) {
    this.limits = limits;
    this.deadline = performance.now() + limits.maxParseMilliseconds;
  }

  get decodedBytes(): number {
    return this.decoded;
  }

  /** Counts `bytes` more decoded bytes; refuses the file as soon as the total passes the limit. */
  chargeDecoded(bytes: number): void {
    this.decoded += bytes;
    if (this.decoded > this.limits.maxDecodedBytes) {
      const limit = formatMegabytes(this.limits.maxDecodedBytes);
      throw new PdfRefusal(
        `The PDF's compressed content expands to more than ${limit}, the limit for one document (a file built to expand enormously, a "compression bomb", looks like this).`,
        `decompresses to more than ${limit}`,
      );
    }
  }

  /** Refuses the file once reading it has taken longer than the limit. */
  checkTime(): void {
    if (performance.now() > this.deadline) throw tooSlow(this.limits);
  }
}

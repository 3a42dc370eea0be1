// Reads a whole PDF file into pdf-lib's objects, strictly and under a budget, keeping every object the file
// defines for the active-content scan. It walks the file as pdf-lib's own loader does (object after object,
// then cross-reference sections and trailers), so what it sees is what the renderer will load later, with
// these differences:
//  - anything between objects that is not a PDF object, a cross-reference section, a trailer or a comment
//    (HTML after a `%PDF-` header, for one) refuses the file instead of being skipped;
//  - object and cross-reference streams are counted against the decoded-size budget before pdf-lib decodes
//    them, and their declared sizes must fit their data (pdf-lib would otherwise loop over a forged /Size);
//  - every definition is kept, also those an incremental update replaced, so nothing a viewer could still
//    reach goes unscanned; and an object the cross-reference table points to inside another object (where
//    a reading pass over the file would not see it, but a viewer following the table would) refuses the file.
import {
  decodePDFRawStream,
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFObjectParser,
  PDFParser,
  PDFRawStream,
  PDFRef,
  PDFXRefStreamParser,
} from 'pdf-lib';
import { type PdfBudget, PdfRefusal } from './pdf-limits.ts';
import { entriesOf, nameValue } from './pdf-objects.ts';
import { chargeStream } from './pdf-stream-decoding.ts';

export interface PdfDefinition {
  /** The object's reference; none for a trailer dictionary. */
  ref?: PDFRef;
  object: PDFObject;
}

export interface PdfFile {
  context: PDFContext;
  /** Every object the file defines, in file order, with those of object streams and the trailers. */
  definitions: PdfDefinition[];
}

const keyword = (text: string): number[] => Array.from(text, (character) => character.charCodeAt(0));
const OBJ = keyword('obj');
const ENDOBJ = keyword('endobj');
const XREF = keyword('xref');
const TRAILER = keyword('trailer');
const STARTXREF = keyword('startxref');
const HEADER = /^%PDF-[12]\.\d/;
/** Cross-reference stream field widths beyond this are no offsets any file could have. */
const MAX_XREF_FIELD_WIDTH = 8;

const isDigit = (byte: number) => byte >= 0x30 && byte <= 0x39;

/** The refusal of a file whose structure cannot be read; `at` is a byte offset. */
export function damaged(reason: string, at?: number): PdfRefusal {
  const where = at === undefined ? '' : ` (near byte ${at})`;
  return new PdfRefusal(`The PDF is damaged: ${reason}${where}.`, 'damaged PDF');
}

/** Reads `bytes` (which start with `%PDF-`); throws PdfRefusal when the file is not a well-formed PDF. */
export function readPdfFile(bytes: Uint8Array, budget: PdfBudget): PdfFile {
  return new StrictPdfReader(bytes, budget).read();
}

class StrictPdfReader extends PDFParser {
  private readonly budget: PdfBudget;
  private readonly length: number;
  private readonly definitions: PdfDefinition[] = [];
  private readonly objectStarts = new Set<number>();
  private readonly tableOffsets: number[] = [];
  private readonly counted = new Set<PDFRawStream>();
  private current = 0;

  constructor(bytes: Uint8Array, budget: PdfBudget) {
    super(bytes, Number.POSITIVE_INFINITY, true, false);
    this.budget = budget;
    this.length = bytes.byteLength;
    const header = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 16)).toString(
      'latin1',
    );
    if (!HEADER.test(header)) {
      throw new PdfRefusal(
        'The file is not a well-formed PDF: its %PDF- header has no version number (such as %PDF-1.7).',
        'not a well-formed PDF',
      );
    }
  }

  read(): PdfFile {
    try {
      // The header line is a comment to the tokenizer, as is the binary marker line after it.
      this.skipWhitespaceAndComments();
      if (this.bytes.done() || !isDigit(this.bytes.peek())) {
        throw new PdfRefusal(
          `The file is not a well-formed PDF: after its %PDF- header comes something other than PDF objects (at byte ${this.bytes.offset()}).`,
          'not a well-formed PDF',
        );
      }
      while (!this.bytes.done()) {
        this.current = this.bytes.offset();
        if (isDigit(this.bytes.peek())) this.readIndirectObject();
        else if (this.matchKeyword(XREF)) this.readTable();
        else if (this.matchKeyword(TRAILER)) this.readTrailer();
        else if (this.matchKeyword(STARTXREF)) {
          this.skipWhitespaceAndComments();
          this.parseRawInt();
        } else {
          throw new PdfRefusal(
            `The file is not a well-formed PDF: it holds something other than PDF objects at byte ${this.current}.`,
            'not a well-formed PDF',
          );
        }
        this.skipWhitespaceAndComments();
        this.budget.checkTime();
      }
      this.checkTableOffsets();
      this.recoverRoot();
      for (const { object } of this.definitions) {
        if (object instanceof PDFRawStream && !this.counted.has(object)) {
          chargeStream(this.context, object, this.budget);
          this.budget.checkTime();
        }
      }
    } catch (error) {
      if (error instanceof PdfRefusal) throw error;
      // pdf-lib's parse errors (and a stack overflow on absurd nesting) say nothing a user can act on.
      throw damaged('its objects could not be read', this.current);
    }
    return { context: this.context, definitions: this.definitions };
  }

  private readObjectHeader(): PDFRef {
    const objectNumber = this.parseRawInt();
    this.skipWhitespaceAndComments();
    const generation = this.parseRawInt();
    this.skipWhitespaceAndComments();
    if (!this.matchKeyword(OBJ)) throw damaged('an object has no "obj" keyword', this.bytes.offset());
    return PDFRef.of(objectNumber, generation);
  }

  private readIndirectObject(): void {
    this.objectStarts.add(this.current);
    const ref = this.readObjectHeader();
    this.skipWhitespaceAndComments();
    const object = this.parseObject();
    this.skipWhitespaceAndComments();
    this.matchKeyword(ENDOBJ);
    this.definitions.push({ ref, object });
    if (!(object instanceof PDFRawStream)) {
      this.context.assign(ref, object);
      return;
    }
    // pdf-lib decides by its own reading of /Type; a spelling that only a viewer would read as an object or
    // cross-reference stream would hide objects from one of the two.
    const type = object.dict.lookup(PDFName.of('Type'));
    const plainType = nameValue(this.context, entriesOf(object.dict).get('Type'));
    if (type === PDFName.of('ObjStm')) this.readObjectStream(ref, object);
    else if (type === PDFName.of('XRef')) this.readXrefStream(object);
    else if (plainType === 'ObjStm' || plainType === 'XRef') {
      throw damaged(`the type of stream ${ref.objectNumber} is written in a way PDF readers disagree on`);
    } else this.context.assign(ref, object);
  }

  /** Counts a stream that must be decoded now, then decodes it as pdf-lib would. */
  private decodeNow(stream: PDFRawStream): Uint8Array {
    chargeStream(this.context, stream, this.budget);
    this.counted.add(stream);
    return decodePDFRawStream(stream).decode();
  }

  /** An object stream: its objects join the document (pdf-lib's PDFObjectStreamParser, bounded). */
  private readObjectStream(ref: PDFRef, stream: PDFRawStream): void {
    const decoded = this.decodeNow(stream);
    const count = stream.dict.lookup(PDFName.of('N'), PDFNumber).asNumber();
    const first = stream.dict.lookup(PDFName.of('First'), PDFNumber).asNumber();
    if (!Number.isInteger(count) || count < 0 || count > decoded.byteLength / 2) {
      throw damaged(`object stream ${ref.objectNumber} declares more objects than it holds`);
    }
    if (!Number.isInteger(first) || first < 0 || first > decoded.byteLength) {
      throw damaged(`object stream ${ref.objectNumber} declares its objects outside its data`);
    }
    const numbers = new IntegerReader(decoded);
    const entries: { objectNumber: number; offset: number }[] = [];
    for (let index = 0; index < count; index += 1) {
      const objectNumber = numbers.next();
      const offset = numbers.next();
      if (objectNumber === undefined || offset === undefined || first + offset >= decoded.byteLength) {
        throw damaged(`object stream ${ref.objectNumber} has a broken object index`);
      }
      entries.push({ objectNumber, offset });
    }
    for (const { objectNumber, offset } of entries) {
      const object = PDFObjectParser.forBytes(decoded.subarray(first + offset), this.context).parseObject();
      const member = PDFRef.of(objectNumber, 0);
      this.definitions.push({ ref: member, object });
      this.context.assign(member, object);
      this.budget.checkTime();
    }
  }

  /** A cross-reference stream: the trailer entries and the offsets it lists (pdf-lib's parser, bounded). */
  private readXrefStream(stream: PDFRawStream): void {
    const decoded = this.decodeNow(stream);
    const widths = stream.dict.lookup(PDFName.of('W'), PDFArray).asArray();
    const rowWidth = widths.reduce((sum, width) => {
      const value = width instanceof PDFNumber ? width.asNumber() : Number.NaN;
      if (!Number.isInteger(value) || value < 0 || value > MAX_XREF_FIELD_WIDTH) {
        throw damaged('its cross-reference stream has impossible field widths');
      }
      return sum + value;
    }, 0);
    const index = stream.dict.lookup(PDFName.of('Index'));
    let rows = 0;
    if (index instanceof PDFArray) {
      for (let at = 1; at < index.size(); at += 2) rows += index.lookup(at, PDFNumber).asNumber();
    } else rows = stream.dict.lookup(PDFName.of('Size'), PDFNumber).asNumber();
    if (!Number.isFinite(rows) || rows < 0 || rows * Math.max(rowWidth, 1) > decoded.byteLength) {
      throw damaged('its cross-reference stream lists more entries than it holds');
    }
    const entries = PDFXRefStreamParser.forStream(stream).parseIntoContext();
    for (const entry of entries) {
      if (!entry.deleted && !entry.inObjectStream) this.tableOffsets.push(entry.offset);
    }
  }

  /** A classic cross-reference section (pdf-lib's reading), keeping the offsets of objects in use. */
  private readTable(): void {
    this.skipWhitespaceAndComments();
    while (!this.bytes.done() && isDigit(this.bytes.peek())) {
      const firstInt = this.parseRawInt();
      this.skipWhitespaceAndComments();
      this.parseRawInt();
      this.skipWhitespaceAndComments();
      const byte = this.bytes.peek();
      if (byte === 0x6e /* n */ || byte === 0x66 /* f */) {
        if (this.bytes.next() === 0x6e) this.tableOffsets.push(firstInt);
      }
      this.skipWhitespaceAndComments();
    }
  }

  /** A trailer dictionary: its entries update the document's, as in pdf-lib. */
  private readTrailer(): void {
    this.skipWhitespaceAndComments();
    const dict = this.parseObject();
    if (!(dict instanceof PDFDict)) throw damaged('its trailer is not a dictionary', this.current);
    this.definitions.push({ object: dict });
    const { trailerInfo } = this.context;
    this.context.trailerInfo = {
      Root: dict.get(PDFName.of('Root')) || trailerInfo.Root,
      Encrypt: dict.get(PDFName.of('Encrypt')) || trailerInfo.Encrypt,
      Info: dict.get(PDFName.of('Info')) || trailerInfo.Info,
      ID: dict.get(PDFName.of('ID')) || trailerInfo.ID,
    };
  }

  /**
   * Every offset the cross-reference data lists must be where this reading found an object, or hold no
   * object header at all (a stale offset, which viewers repair by reading the file as this reader did).
   * An object header at an offset this reading passed over is an object hidden inside another one.
   */
  private checkTableOffsets(): void {
    for (const offset of this.tableOffsets) {
      if (!Number.isInteger(offset) || offset <= 0 || offset >= this.length) continue;
      if (this.objectStarts.has(offset)) continue;
      this.bytes.moveTo(offset);
      this.skipWhitespaceAndComments();
      if (this.objectStarts.has(this.bytes.offset())) continue;
      let hidden = false;
      try {
        this.readObjectHeader();
        hidden = true;
      } catch {
        // No object here: a stale offset.
      }
      if (hidden) {
        throw damaged('its cross-reference table points to an object hidden inside another object', offset);
      }
    }
  }

  /** pdf-lib takes the last dictionary of /Type /Catalog when the trailer's /Root is none; so does this. */
  private recoverRoot(): void {
    const isCatalog = (object: PDFObject | undefined) =>
      object instanceof PDFDict && object.lookup(PDFName.of('Type')) === PDFName.of('Catalog');
    if (isCatalog(this.context.lookup(this.context.trailerInfo.Root))) return;
    for (const [ref, object] of this.context.enumerateIndirectObjects()) {
      if (isCatalog(object)) this.context.trailerInfo.Root = ref;
    }
  }
}

/** Non-negative integers separated by PDF whitespace and comments (an object stream's index). */
class IntegerReader {
  private at = 0;
  private readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
  }

  next(): number | undefined {
    const { bytes } = this;
    for (;;) {
      const byte = bytes[this.at];
      if (byte === undefined) return undefined;
      if (byte === 0x25 /* % */) {
        while (this.at < bytes.length && bytes[this.at] !== 0x0a && bytes[this.at] !== 0x0d) this.at += 1;
      } else if (
        byte === 0x20 ||
        byte === 0x0a ||
        byte === 0x0d ||
        byte === 0x09 ||
        byte === 0x0c ||
        byte === 0
      ) {
        this.at += 1;
      } else break;
    }
    let value = 0;
    let digits = 0;
    for (let byte = bytes[this.at]; byte !== undefined && isDigit(byte); byte = bytes[++this.at]) {
      value = value * 10 + (byte - 0x30);
      digits += 1;
    }
    return digits > 0 && digits <= 15 ? value : undefined;
  }
}

// Counts what each stream of a PDF decodes to, against the document's budget (pdf-limits.ts), without
// keeping the decoded bytes. Decoding is incremental: Flate input goes in 4 KB slices, so no slice can expand
// to more than about 4 MB (deflate's ratio is at most ~1032:1), and the budget refuses a bomb as soon as its
// output passes the limit. The general-purpose filters are decoded; image codecs (DCT, JPX, JBIG2, CCITT)
// end a chain and count with their encoded size. A stream that cannot be decoded (corrupt, or an unknown
// filter) counts with what was decoded before the error, as a viewer would show that much.
import { Inflate, Unzlib } from 'fflate';
import { type PDFContext, type PDFDict, PDFNumber, type PDFRawStream } from 'pdf-lib';
import { type PdfBudget, PdfRefusal } from './pdf-limits.ts';
import { entriesOf, isDict, listOf, nameValue, resolve } from './pdf-objects.ts';

type Emit = (chunk: Uint8Array) => void;
type Decoder = (input: Uint8Array, emit: Emit, parameters: PDFDict | undefined, context: PDFContext) => void;

const INFLATE_SLICE = 4096;
const OUTPUT_CHUNK = 64 * 1024;

/** Counts the decoded size of `stream` against `budget`; refuses (PdfRefusal) once the budget is spent. */
export function chargeStream(context: PDFContext, stream: PDFRawStream, budget: PdfBudget): void {
  const entries = entriesOf(stream.dict);
  const filters = listOf(context, entries.get('Filter') ?? entries.get('F'));
  const parameters = listOf(context, entries.get('DecodeParms') ?? entries.get('DP'));
  let data = stream.contents;
  for (const [index, filter] of filters.entries()) {
    const name = nameValue(context, filter);
    const decoder = name === undefined ? undefined : DECODERS.get(name);
    // An image codec or an unknown filter: the rest is not decoded here. Its input was counted already
    // when an earlier filter produced it.
    if (!decoder) {
      if (index === 0) budget.chargeDecoded(data.byteLength);
      return;
    }
    const last = index === filters.length - 1;
    const chunks: Uint8Array[] = [];
    let size = 0;
    const emit: Emit = (chunk) => {
      budget.chargeDecoded(chunk.byteLength);
      budget.checkTime();
      if (!last) {
        chunks.push(chunk.slice());
        size += chunk.byteLength;
      }
    };
    const parameter = parameters[index];
    try {
      decoder(data, emit, isDict(parameter) ? parameter : undefined, context);
    } catch (error) {
      if (error instanceof PdfRefusal) throw error;
      // Corrupt data: what was decoded so far is counted; a later filter gets no input it could trust.
      return;
    }
    if (last) return;
    data = concat(chunks, size);
  }
  budget.chargeDecoded(data.byteLength);
}

const inflate: Decoder = (input, emit) => {
  let emitted = 0;
  const run = (make: (handler: (chunk: Uint8Array) => void) => Unzlib | Inflate) => {
    const stream = make((chunk) => {
      emitted += chunk.byteLength;
      emit(chunk);
    });
    // Never marked final: a truncated stream then yields what it holds instead of an error.
    for (let at = 0; at < input.byteLength; at += INFLATE_SLICE) {
      stream.push(input.subarray(at, at + INFLATE_SLICE), false);
    }
  };
  try {
    run((handler) => new Unzlib(handler));
  } catch (error) {
    if (error instanceof PdfRefusal || emitted > 0) throw error;
    // No zlib header: some writers emit bare deflate data, and some readers accept it.
    run((handler) => new Inflate(handler));
  }
};

/** LZW as PDF defines it: 9 to 12-bit codes, most significant bit first, 256 clears, 257 ends. */
const lzw: Decoder = (input, emit, parameters, context) => {
  const earlyChange = parameters ? resolve(context, entriesOf(parameters).get('EarlyChange')) : undefined;
  const early = earlyChange instanceof PDFNumber ? earlyChange.asNumber() : 1;
  const prefix = new Int16Array(4096);
  const suffix = new Uint8Array(4096);
  const first = new Uint8Array(4096);
  const length = new Uint16Array(4096);
  for (let code = 0; code < 256; code += 1) {
    suffix[code] = code;
    first[code] = code;
    length[code] = 1;
  }
  const out = new Uint8Array(OUTPUT_CHUNK + 4096);
  let filled = 0;
  const write = (code: number) => {
    const size = length[code] ?? 0;
    for (let at = filled + size - 1, current = code; at >= filled; at -= 1) {
      out[at] = suffix[current] ?? 0;
      current = prefix[current] ?? 0;
    }
    filled += size;
    if (filled >= OUTPUT_CHUNK) {
      emit(out.slice(0, filled));
      filled = 0;
    }
  };
  let next = 258;
  let width = 9;
  let previous = -1;
  let bits = 0;
  let bitCount = 0;
  for (let at = 0; at < input.byteLength; ) {
    while (bitCount < width && at < input.byteLength) {
      bits = ((bits << 8) | (input[at] ?? 0)) & 0xffffff;
      bitCount += 8;
      at += 1;
    }
    if (bitCount < width) break;
    const code = (bits >>> (bitCount - width)) & ((1 << width) - 1);
    bitCount -= width;
    if (code === 256) {
      next = 258;
      width = 9;
      previous = -1;
      continue;
    }
    if (code === 257) break;
    if (previous === -1) {
      if (code > 255) throw new Error('LZW: a first code past the literals');
      write(code);
      previous = code;
      continue;
    }
    if (code > next || (code === next && next >= 4096)) throw new Error('LZW: an unknown code');
    const known = code < next;
    if (next < 4096) {
      prefix[next] = previous;
      first[next] = first[previous] ?? 0;
      suffix[next] = known ? (first[code] ?? 0) : (first[previous] ?? 0);
      length[next] = (length[previous] ?? 0) + 1;
      next += 1;
    }
    write(code);
    previous = code;
    if (next + early >= 1 << width && width < 12) width += 1;
  }
  if (filled > 0) emit(out.slice(0, filled));
};

const runLength: Decoder = (input, emit) => {
  const out = new Uint8Array(OUTPUT_CHUNK + 128);
  let filled = 0;
  for (let at = 0; at < input.byteLength; ) {
    const run = input[at] ?? 128;
    at += 1;
    if (run === 128) break;
    if (run < 128) {
      const count = Math.min(run + 1, input.byteLength - at);
      out.set(input.subarray(at, at + count), filled);
      filled += count;
      at += count;
    } else {
      if (at >= input.byteLength) break;
      out.fill(input[at] ?? 0, filled, filled + 257 - run);
      filled += 257 - run;
      at += 1;
    }
    if (filled >= OUTPUT_CHUNK) {
      emit(out.slice(0, filled));
      filled = 0;
    }
  }
  if (filled > 0) emit(out.slice(0, filled));
};

const asciiHex: Decoder = (input, emit) => {
  const out = new Uint8Array(Math.ceil(input.byteLength / 2));
  let filled = 0;
  let high = -1;
  for (const byte of input) {
    if (byte === 0x3e) break; // '>'
    const digit = hexDigit(byte);
    if (digit === -1) continue;
    if (high === -1) high = digit;
    else {
      out[filled++] = (high << 4) | digit;
      high = -1;
    }
  }
  if (high !== -1) out[filled++] = high << 4;
  emit(out.subarray(0, filled));
};

const ascii85: Decoder = (input, emit) => {
  const out = new Uint8Array(Math.ceil((input.byteLength * 4) / 5) + 4);
  let filled = 0;
  const group: number[] = [];
  const flush = (count: number) => {
    let value = 0;
    for (let index = 0; index < 5; index += 1) value = value * 85 + (group[index] ?? 84);
    for (let index = 0; index < count - 1; index += 1) out[filled++] = (value >>> (24 - index * 8)) & 255;
  };
  for (const byte of input) {
    if (byte === 0x7e) break; // '~' of the '~>' end marker
    if (byte === 0x7a && group.length === 0) {
      out.fill(0, filled, filled + 4); // 'z': four zero bytes
      filled += 4;
      continue;
    }
    if (byte < 0x21 || byte > 0x75) continue; // whitespace and anything else outside the alphabet
    group.push(byte - 0x21);
    if (group.length === 5) {
      flush(5);
      group.length = 0;
    }
  }
  if (group.length > 1) flush(group.length);
  emit(out.subarray(0, filled));
};

function hexDigit(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const joined = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    joined.set(chunk, at);
    at += chunk.byteLength;
  }
  return joined;
}

/** The general-purpose filters by their full and abbreviated (inline-image) names. */
const DECODERS = new Map<string, Decoder>([
  ['FlateDecode', inflate],
  ['Fl', inflate],
  ['LZWDecode', lzw],
  ['LZW', lzw],
  ['RunLengthDecode', runLength],
  ['RL', runLength],
  ['ASCIIHexDecode', asciiHex],
  ['AHx', asciiHex],
  ['ASCII85Decode', ascii85],
  ['A85', ascii85],
]);

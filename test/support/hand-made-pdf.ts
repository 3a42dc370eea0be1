// PDFs written object by object, for tests that need what no PDF library writes: forged page trees,
// compression bombs, active content, hidden objects. Objects are numbered from 1 in the order given.
import { deflateSync } from 'node:zlib';

/** A page tree of one A4 page, objects 1 (catalog) to 3 (page), for files that add objects from 4 on. */
export const ONE_PAGE = [
  '<< /Type /Catalog /Pages 2 0 R >>',
  '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
  '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>',
];

export interface HandMadeOptions {
  /** Trailer entries besides /Size; `/Root 1 0 R` unless given. */
  trailer?: string;
  /** Bytes after the final %%EOF. */
  after?: string;
  /** Override the cross-reference offset of an object (1-based number) with a byte offset. */
  offsets?: Record<number, number>;
}

/** A PDF 1.7 file with a classic cross-reference table; objects are dictionaries or whole streams. */
export function handMadePdf(objects: (string | Buffer)[], options: HandMadeOptions = {}): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n', 'latin1')];
  let length = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const part = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`, 'latin1'),
      typeof object === 'string' ? Buffer.from(object, 'latin1') : object,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(part);
    length += part.length;
  });
  const rows = offsets.map((offset, index) => options.offsets?.[index + 1] ?? offset);
  const table =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    rows.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} ${options.trailer ?? '/Root 1 0 R'} >>\nstartxref\n${length}\n%%EOF\n` +
    (options.after ?? '');
  parts.push(Buffer.from(table, 'latin1'));
  return Buffer.concat(parts);
}

/** A stream object: `dictionary` entries (without /Length, which is added) and the raw data. */
export function stream(dictionary: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

const deflatedZeros = new Map<number, Buffer>();

/** `megabytes` MB of zeros, Flate-compressed (about a thousandth of that); made once per size. */
export function zerosDeflated(megabytes: number): Buffer {
  let deflated = deflatedZeros.get(megabytes);
  if (!deflated) {
    deflated = deflateSync(Buffer.alloc(megabytes * 1024 * 1024), { level: 9 });
    deflatedZeros.set(megabytes, deflated);
  }
  return deflated;
}

/** `pages` tiny pages in one flat /Pages node that declares `count` of them. */
export function flatPageTree(pages: number, count = pages): Buffer {
  const kids = Array.from({ length: pages }, (_, index) => `${index + 3} 0 R`).join(' ');
  const leaf = '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>';
  return handMadePdf([
    ONE_PAGE[0] as string,
    `<< /Type /Pages /Kids [${kids}] /Count ${count} >>`,
    ...Array<string>(pages).fill(leaf),
  ]);
}

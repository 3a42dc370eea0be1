// Reading parsed PDF objects the way a PDF viewer reads them. pdf-lib decodes only upper-case `#xx` escapes
// in names, while the format (and every viewer) also takes lower-case ones, so `/#4aS` is `/JS` to a viewer
// but not to pdf-lib: the inspector compares names through `plainName`, never by pdf-lib's identity.
import { PDFArray, type PDFContext, PDFDict, PDFName, type PDFObject, PDFRef } from 'pdf-lib';
import { PdfRefusal } from './pdf-limits.ts';

const HEX_ESCAPE = /#([0-9a-fA-F]{2})/g;

/** The name as a viewer reads it, without the leading slash. */
export function plainName(name: PDFName): string {
  return name
    .decodeText()
    .replace(HEX_ESCAPE, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/**
 * A dictionary's entries keyed by their plain names. One key written in two ways (`/Filter` and
 * `/Fi#6cter`) would be two keys to pdf-lib and one to a viewer, each picking another value: refused.
 */
export function entriesOf(dict: PDFDict): Map<string, PDFObject> {
  const entries = new Map<string, PDFObject>();
  for (const [key, value] of dict.entries()) {
    const plain = plainName(key);
    if (entries.has(plain)) {
      throw new PdfRefusal(
        `The PDF is damaged: a dictionary holds the key /${plain} twice, written in two ways.`,
        'damaged PDF (ambiguous name)',
      );
    }
    entries.set(plain, value);
  }
  return entries;
}

/** Follows references (a few hops at most, so a reference to itself ends) to the object they name. */
export function resolve(context: PDFContext, object: PDFObject | undefined): PDFObject | undefined {
  let current = object;
  for (let hops = 0; current instanceof PDFRef; hops += 1) {
    if (hops === 8) return undefined;
    current = context.lookup(current);
  }
  return current;
}

/** The plain name `object` is (after references), or undefined when it is no name. */
export function nameValue(context: PDFContext, object: PDFObject | undefined): string | undefined {
  const resolved = resolve(context, object);
  return resolved instanceof PDFName ? plainName(resolved) : undefined;
}

/** A dictionary entry by plain name, references followed. */
export function entry(context: PDFContext, dict: PDFDict, key: string): PDFObject | undefined {
  return resolve(context, entriesOf(dict).get(key));
}

/** The elements of an array, or the object itself as a one-element list (filters, decode parameters). */
export function listOf(context: PDFContext, object: PDFObject | undefined): PDFObject[] {
  const resolved = resolve(context, object);
  if (resolved === undefined) return [];
  return resolved instanceof PDFArray
    ? resolved.asArray().map((item) => resolve(context, item) ?? item)
    : [resolved];
}

export function isDict(object: PDFObject | undefined): object is PDFDict {
  return object instanceof PDFDict;
}

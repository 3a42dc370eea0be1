// Finds active content in a PDF: anything a viewer would run, launch, send, fetch or unpack rather than
// display. Sigil refuses such files at every entry point instead of stripping them: a document that is
// signed must be the document that was shown, and a signer's attachment is passed on as it was uploaded.
// Every object the file defines is scanned (pdf-reader.ts keeps replaced and object-stream objects too),
// so it does not matter whether the document's structure still reaches the object.
import {
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFHexString,
  PDFName,
  type PDFObject,
  PDFRawStream,
  PDFString,
} from 'pdf-lib';
import { PdfRefusal } from './pdf-limits.ts';
import { entriesOf, plainName, resolve } from './pdf-objects.ts';
import type { PdfDefinition } from './pdf-reader.ts';

/** Dictionary keys that exist only to carry active content. */
const ACTIVE_KEYS = new Map<string, string>([
  ['JS', 'JavaScript'],
  ['JavaScript', 'JavaScript'],
  ['AA', 'actions that run on events (/AA)'],
  ['EmbeddedFiles', 'embedded files'],
  ['EF', 'embedded files'],
  ['XFA', 'an XFA form'],
  ['RichMediaContent', 'rich media (/RichMedia)'],
]);

/** Action types (`/S`) that run code, start programs, send or fetch data, or open other files. */
const ACTIVE_ACTIONS = new Map<string, string>([
  ['JavaScript', 'JavaScript'],
  ['Launch', 'an action that launches a program (/Launch)'],
  ['SubmitForm', 'an action that submits form data (/SubmitForm)'],
  ['ImportData', 'an action that imports data (/ImportData)'],
  ['GoToR', 'a link into another file (/GoToR)'],
  ['GoToE', 'a link into an embedded file (/GoToE)'],
  ['RichMediaExecute', 'rich media (/RichMedia)'],
  ['Rendition', 'a media rendition action (/Rendition)'],
]);

/** Annotation subtypes and object types that carry files or players. */
const ACTIVE_SUBTYPES = new Map<string, string>([
  ['RichMedia', 'rich media (/RichMedia)'],
  ['FileAttachment', 'embedded files'],
]);
const ACTIVE_TYPES = new Map<string, string>([['EmbeddedFile', 'embedded files']]);

/** What an opening action (the catalog's /OpenAction, and the /Next actions it chains) may not be. */
const OPENING_URI = 'a link opened when the document opens (/OpenAction /URI)';
/** Actions chained by /Next are few; a longer chain is only a way to exhaust a reader. */
const MAX_CHAINED_ACTIONS = 64;

/** Link addresses a viewer may open; anything else (javascript:, file:, data:) is refused. */
const SAFE_URI_SCHEMES = new Set(['http', 'https', 'mailto', 'tel']);

/** An escape pdf-lib leaves undecoded in a name (a lower-case `#xx`), which viewers do decode. */
const UNDECODED_ESCAPE = /#[0-9a-fA-F]{2}/;

/**
 * Scans every definition for active content; throws PdfRefusal for a name that pdf-lib and viewers would
 * read differently (only a file built to confuse readers has one). Returns the kinds found (none: `[]`).
 */
export function findActiveContent(context: PDFContext, definitions: PdfDefinition[]): string[] {
  const kinds = new Set<string>();
  const pending: PDFObject[] = definitions.map(({ object }) => object);
  for (let object = pending.pop(); object !== undefined; object = pending.pop()) {
    if (object instanceof PDFRawStream) {
      pending.push(object.dict);
    } else if (object instanceof PDFDict) {
      scanDictionary(context, object, kinds);
      for (const [key, value] of object.entries()) pending.push(key, value);
    } else if (object instanceof PDFArray) {
      pending.push(...object.asArray());
    } else if (object instanceof PDFName) {
      if (UNDECODED_ESCAPE.test(object.decodeText())) {
        throw new PdfRefusal(
          'The PDF is damaged: it writes a name with an escape that PDF readers decode differently, as files built to hide content do.',
          'damaged PDF (ambiguous name)',
        );
      }
    }
  }
  return [...kinds];
}

function scanDictionary(context: PDFContext, dict: PDFDict, kinds: Set<string>): void {
  const entries = entriesOf(dict);
  for (const key of entries.keys()) {
    const kind = ACTIVE_KEYS.get(key);
    if (kind) kinds.add(kind);
  }
  const name = (key: string) => {
    const value = resolve(context, entries.get(key));
    return value instanceof PDFName ? plainName(value) : undefined;
  };
  if (entries.has('OpenAction')) openingActionKinds(context, entries.get('OpenAction'), kinds);
  const action = name('S');
  const actionKind = action === undefined ? undefined : ACTIVE_ACTIONS.get(action);
  if (actionKind) kinds.add(actionKind);
  if (action === 'URI') {
    const scheme = uriScheme(resolve(context, entries.get('URI')));
    if (scheme !== undefined && !SAFE_URI_SCHEMES.has(scheme)) kinds.add(`a link to a "${scheme}:" address`);
  }
  const subtype = name('Subtype');
  const subtypeKind = subtype === undefined ? undefined : ACTIVE_SUBTYPES.get(subtype);
  if (subtypeKind) kinds.add(subtypeKind);
  const type = name('Type');
  const typeKind = type === undefined ? undefined : ACTIVE_TYPES.get(type);
  if (typeKind) kinds.add(typeKind);
}

/**
 * An opening action runs without the reader doing anything. A go-to (an array destination or /GoTo) only
 * shows a page; a /URI action would open an address as soon as the document is opened, which is refused
 * whatever its scheme (a link the reader clicks stays fine). Other active actions are refused wherever they
 * are by scanDictionary; this follows /Next chains too, since each chained action runs with the first.
 */
function openingActionKinds(context: PDFContext, value: PDFObject | undefined, kinds: Set<string>): void {
  const pending: (PDFObject | undefined)[] = [value];
  for (let seen = 0; pending.length > 0 && seen < MAX_CHAINED_ACTIONS; seen += 1) {
    const action = resolve(context, pending.pop());
    if (!(action instanceof PDFDict)) continue;
    const entries = entriesOf(action);
    const type = resolve(context, entries.get('S'));
    if (type instanceof PDFName && plainName(type) === 'URI') kinds.add(OPENING_URI);
    const next = resolve(context, entries.get('Next'));
    if (next instanceof PDFArray) pending.push(...next.asArray());
    else pending.push(next);
  }
}

/** The lower-case scheme of a link address, or undefined for a relative one. */
function uriScheme(value: PDFObject | undefined): string | undefined {
  if (!(value instanceof PDFString || value instanceof PDFHexString)) return undefined;
  // As browsers parse addresses: leading spaces and control characters are dropped and tabs and line
  // breaks anywhere are ignored, so ` java\tscript:` is still a script.
  const text = value.decodeText();
  let start = 0;
  while (start < text.length && text.charCodeAt(start) <= 0x20) start += 1;
  const address = text.slice(start).replace(/[\t\n\r]/g, '');
  const match = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(address);
  return match?.[1]?.toLowerCase();
}

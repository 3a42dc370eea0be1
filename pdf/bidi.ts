// Bidirectional text for the PDFs: pdf-lib draws glyphs strictly left to right, so every line that mixes
// Hebrew with Latin letters, digits and punctuation is put into visual order here before text.ts draws it.
//
// The Unicode Bidirectional Algorithm (UAX #9) itself comes from the bidi-js package, a complete
// implementation that its authors run against all of Unicode's conformance tests. It replaced a partial
// algorithm written here, which handled the common Hebrew cases but left out explicit embeddings, overrides
// and isolates (it dropped LRI … PDI), segment separators, Arabic numbers and most of Unicode's bracket-pair
// and mirroring data; a maintained implementation follows the standard and its data where ours could only
// approximate them. What remains in this file fits the algorithm to how text.ts lays text out:
// - A paragraph (text.ts splits text into paragraphs) is analysed once: NFC, then bidi-js resolves its base
//   level (P2–P3, or the direction the caller forces) and every character's embedding level (X1–I2).
// - Each line, a range of the paragraph after wrapping, is reordered on its own (L1–L2 apply per line, so
//   trailing spaces of a wrapped line go to the paragraph level), and characters at a right-to-left level are
//   drawn mirrored (L4: '(' as ')', '«' as '»', …).
// - Characters that only steer the algorithm draw nothing (embedding, override and isolate controls, LRM,
//   RLM, ALM, boundary neutrals such as ZWJ or the soft hyphen); a segment separator (tab) draws as a space.
// - bidi-js reads text one UTF-16 unit at a time, so a character outside the BMP (an emoji) is handed to it
//   as a BMP character of the same bidirectional class: one unit per character, indices shared with `chars`.
// Combining marks (Hebrew points) are reversed with their letters (no rule L3) and placed on them when drawn:
// text.ts hands such runs back to the font in logical order and uses its mark positioning.
import bidiFactory from 'bidi-js';
import type { BidiCharTypeName, EmbeddingLevels } from 'bidi-js/src/bidi.js';

/** A paragraph's base direction: `auto` takes it from the first strong character (rules P2–P3). */
export type Direction = 'auto' | 'ltr' | 'rtl';

/** One analysed paragraph; lines are ranges `[start, end)` of its characters. */
export interface BidiParagraph {
  /** The characters (code points) of the NFC-normalised text. */
  readonly chars: readonly string[];
  /** The paragraph's embedding level: 0 left to right, 1 right to left. */
  readonly baseLevel: number;
  /** The text as bidi-js analysed it, one UTF-16 unit per character. */
  readonly analysed: string;
  /** bidi-js's result: the resolved embedding level of each character (odd: right to left). */
  readonly embedding: EmbeddingLevels;
}

const bidi = bidiFactory();

/** A BMP character of each bidirectional class, analysed in place of a character outside the BMP. */
const STAND_IN: Readonly<Record<BidiCharTypeName, string>> = {
  L: 'a',
  R: '\u05D0',
  AL: '\u0627',
  EN: '0',
  ES: '+',
  ET: '#',
  AN: '\u0660',
  CS: ',',
  NSM: '\u0300',
  BN: '\u200B',
  B: '\u2029',
  S: '\t',
  WS: ' ',
  ON: '*',
  LRE: '\u202A',
  RLE: '\u202B',
  PDF: '\u202C',
  LRO: '\u202D',
  RLO: '\u202E',
  LRI: '\u2066',
  RLI: '\u2067',
  FSI: '\u2068',
  PDI: '\u2069',
};

/** Classes whose characters draw nothing. */
const NOT_DRAWN: ReadonlySet<BidiCharTypeName> = new Set<BidiCharTypeName>([
  'B',
  'BN',
  'LRE',
  'RLE',
  'PDF',
  'LRO',
  'RLO',
  'LRI',
  'RLI',
  'FSI',
  'PDI',
]);

/** LRM, RLM and ALM: strong characters for the algorithm, invisible on the page. */
const DIRECTION_MARKS: ReadonlySet<string> = new Set(['\u200E', '\u200F', '\u061C']);

/** What a character draws as: '' for one that only steers the algorithm, a space for a tab. */
export function drawnCharacter(char: string): string {
  if (DIRECTION_MARKS.has(char)) return '';
  const type = bidi.getBidiCharTypeName(char);
  if (NOT_DRAWN.has(type)) return '';
  return type === 'S' ? ' ' : char;
}

/** Resolves the embedding levels of one paragraph. */
export function analyzeParagraph(text: string, direction: Direction = 'auto'): BidiParagraph {
  const chars = Array.from(text.normalize('NFC'));
  const analysed = chars
    .map((char) => (char.length === 1 ? char : STAND_IN[bidi.getBidiCharTypeName(char)]))
    .join('');
  const embedding = bidi.getEmbeddingLevels(analysed, direction);
  // No paragraph at all only for empty text.
  const baseLevel = embedding.paragraphs[0]?.level ?? (direction === 'rtl' ? 1 : 0);
  return { chars, baseLevel, analysed, embedding };
}

/**
 * The characters of the line `paragraph.chars[start, end)` as they are drawn, left to right: reordered
 * (L1–L2), mirrored where right to left (L4), without the characters that draw nothing.
 */
export function visualOrder(paragraph: BidiParagraph, start = 0, end = paragraph.chars.length): string[] {
  if (end <= start) return [];
  const { analysed, embedding, chars } = paragraph;
  // bidi-js takes an inclusive last index and returns the order of the whole text, the line's range reordered.
  const order = bidi.getReorderedIndices(analysed, embedding, start, end - 1).slice(start, end);
  const mirrored = bidi.getMirroredCharactersMap(analysed, embedding.levels, start, end - 1);
  const drawn: string[] = [];
  for (const index of order) {
    const char = drawnCharacter(mirrored.get(index) ?? (chars[index] as string));
    if (char !== '') drawn.push(char);
  }
  return drawn;
}

/** A single line as drawn, left to right. */
export function toVisual(text: string, direction: Direction = 'auto'): string {
  return visualOrder(analyzeParagraph(text, direction)).join('');
}

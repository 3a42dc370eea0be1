// A small implementation of the Unicode Bidirectional Algorithm (UAX #9), enough for names, addresses and
// short texts that mix Hebrew with Latin letters, digits and punctuation. pdf-lib draws glyphs strictly left
// to right, so every line is put into visual order here before it is drawn.
//
// What it does, per paragraph (a line of input text; '\n' separates paragraphs):
// - P2/P3: the base direction is that of the first strong character (Hebrew → right-to-left, any other
//   letter → left-to-right; none → left-to-right), unless the caller forces one.
// - W1–W7: combining marks take the class of the character before them; a single '+'/'-' or ',' '.' '/' ':'
//   between two digits joins them into one number; '%', '$', '₪', '#', '°' … next to digits belong to the
//   number; digits after Latin text are treated as Latin.
// - N0: matching brackets take one direction, from their content and what precedes them.
// - N1/N2: spaces and punctuation between two runs of the same direction take that direction, otherwise the
//   paragraph's.
// - I1/I2: embedding levels (0 LTR paragraph, 1 RTL paragraph; numbers and LTR text inside RTL are level 2).
// - L1/L2/L4 per line: trailing spaces go to the paragraph level, runs are reversed from the highest level
//   down, and brackets in right-to-left runs are mirrored.
// What it leaves out, on purpose: explicit embeddings, overrides and isolates (LRE, RLE, PDF, LRO, RLO, LRI,
// RLI, FSI, PDI are dropped, as are other invisible format characters); Arabic letters count as plain
// right-to-left letters (no shaping, no Arabic-number handling). LRM and RLM are honoured as strong
// characters. Text is normalised to NFC first. Hebrew points are reordered with their letters here and placed
// on them when drawn (text.ts uses the font's mark positioning for such runs).

export type BidiClass = 'L' | 'R' | 'EN' | 'ES' | 'ET' | 'CS' | 'NSM' | 'WS' | 'ON';
export type Direction = 'auto' | 'ltr' | 'rtl';

/** One paragraph after analysis: its characters (code points, format characters removed) and their levels. */
export interface BidiParagraph {
  chars: string[];
  levels: number[];
  baseLevel: 0 | 1;
}

/** A character in visual order, with whether it sits in a right-to-left run. */
export interface VisualChar {
  char: string;
  rtl: boolean;
}

const LRM = 0x200e;
const RLM = 0x200f;
const ALM = 0x061c;

/** Characters that take part in the algorithm but draw nothing. */
export const INVISIBLE_MARKS: ReadonlySet<string> = new Set([
  String.fromCodePoint(LRM),
  String.fromCodePoint(RLM),
  String.fromCodePoint(ALM),
]);

const HEBREW_POINTS = /[\u0591-\u05BD\u05BF\u05C1\u05C2\u05C4\u05C5\u05C7\uFB1E]/u;
const LETTER = /[\p{L}\p{Nl}\p{Mc}]/u;
const MARK = /[\p{Mn}\p{Me}]/u;
const CURRENCY = /\p{Sc}/u;
const SPACE = /[\p{Zs}\u2028]/u;
/** Explicit embeddings, overrides, isolates and other invisible format characters, dropped (rule X9). */
const DROPPED = /[\u202A-\u202E\u2066-\u2069\u200B-\u200D\u2060-\u2064\uFEFF\u00AD\p{Cc}]/u;

function isRightToLeftLetter(cp: number): boolean {
  return (
    (cp >= 0x0590 && cp <= 0x08ff) || // Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic
    (cp >= 0xfb1d && cp <= 0xfdff) || // Hebrew and Arabic presentation forms
    (cp >= 0xfe70 && cp <= 0xfeff) ||
    (cp >= 0x10800 && cp <= 0x10fff) ||
    (cp >= 0x1e800 && cp <= 0x1efff)
  );
}

/** The bidirectional class of a code point, reduced to the classes this implementation distinguishes. */
export function bidiClass(char: string): BidiClass {
  const cp = char.codePointAt(0) ?? 0;
  if (cp === LRM) return 'L';
  if (cp === RLM || cp === ALM) return 'R';
  if ((cp >= 0x30 && cp <= 0x39) || (cp >= 0x06f0 && cp <= 0x06f9) || (cp >= 0x0660 && cp <= 0x0669)) {
    return 'EN';
  }
  if (cp >= 0xff10 && cp <= 0xff19) return 'EN';
  if (
    cp === 0xb2 ||
    cp === 0xb3 ||
    cp === 0xb9 ||
    (cp >= 0x2070 && cp <= 0x2079) ||
    (cp >= 0x2080 && cp <= 0x2089)
  ) {
    return 'EN';
  }
  if (cp === 0x2b || cp === 0x2d || cp === 0x2212 || cp === 0xfb29 || cp === 0xff0b || cp === 0xff0d)
    return 'ES';
  if (
    cp === 0x23 ||
    cp === 0x25 ||
    cp === 0xb0 ||
    cp === 0xb1 ||
    cp === 0x2213 ||
    (cp >= 0x2030 && cp <= 0x2034) ||
    cp === 0x066a ||
    CURRENCY.test(char)
  ) {
    return 'ET';
  }
  if (
    cp === 0x2c ||
    cp === 0x2e ||
    cp === 0x2f ||
    cp === 0x3a ||
    cp === 0xa0 ||
    cp === 0x060c ||
    cp === 0x202f ||
    cp === 0x2044 ||
    cp === 0xff0c ||
    cp === 0xff0e ||
    cp === 0xff0f ||
    cp === 0xff1a
  ) {
    return 'CS';
  }
  if (HEBREW_POINTS.test(char) || (MARK.test(char) && !isRightToLeftLetter(cp))) return 'NSM';
  if (isRightToLeftLetter(cp)) return MARK.test(char) ? 'NSM' : 'R';
  if (SPACE.test(char) || cp === 0x09) return 'WS';
  if (LETTER.test(char)) return 'L';
  return 'ON';
}

/** Whether a text's first strong character is right-to-left (the paragraph direction rule P2/P3). */
export function isRightToLeft(text: string): boolean {
  for (const char of text) {
    const type = bidiClass(char);
    if (type === 'L') return false;
    if (type === 'R') return true;
  }
  return false;
}

const OPENING: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
const CLOSING = new Set(Object.values(OPENING));

/** L, or R for right-to-left letters and numbers (numbers count as R for neutrals), else undefined. */
function strongDirection(type: BidiClass): 'L' | 'R' | undefined {
  if (type === 'L') return 'L';
  if (type === 'R' || type === 'EN') return 'R';
  return undefined;
}

/**
 * N0: a pair of brackets takes one direction, so "(services agreement)" at the end of a Hebrew title keeps its
 * closing bracket. A pair with text of the paragraph's direction inside takes that direction; a pair with only
 * the other direction inside takes it if the text before the pair has it too; an empty pair is left alone.
 */
function resolveBracketPairs(chars: string[], types: BidiClass[], sos: 'L' | 'R'): void {
  const pairs: Array<[number, number]> = [];
  const stack: Array<{ index: number; closing: string }> = [];
  chars.forEach((char, index) => {
    if (types[index] !== 'ON') return;
    const closing = OPENING[char];
    if (closing !== undefined) {
      if (stack.length < 63) stack.push({ index, closing });
      return;
    }
    if (!CLOSING.has(char)) return;
    const depth = stack.findLastIndex((entry) => entry.closing === char);
    if (depth === -1) return;
    pairs.push([(stack[depth] as { index: number }).index, index]);
    stack.length = depth;
  });
  pairs.sort((a, b) => a[0] - b[0]);
  for (const [open, close] of pairs) {
    let inside: 'L' | 'R' | undefined;
    for (let index = open + 1; index < close; index += 1) {
      const direction = strongDirection(types[index] as BidiClass);
      if (direction === sos) {
        inside = sos;
        break;
      }
      inside ??= direction;
    }
    if (inside === undefined) continue;
    let resolved: 'L' | 'R' = inside;
    if (inside !== sos) {
      let before: 'L' | 'R' = sos;
      for (let index = open - 1; index >= 0; index -= 1) {
        const direction = strongDirection(types[index] as BidiClass);
        if (direction !== undefined) {
          before = direction;
          break;
        }
      }
      resolved = before === inside ? inside : sos;
    }
    types[open] = resolved;
    types[close] = resolved;
  }
}

/** Resolves the embedding level of every character of one paragraph (no line breaks inside). */
export function analyzeParagraph(text: string, direction: Direction = 'auto'): BidiParagraph {
  const chars = Array.from(text.normalize('NFC').replace(/\t/g, ' ')).filter((char) => !DROPPED.test(char));
  const baseLevel: 0 | 1 = direction === 'rtl' ? 1 : direction === 'ltr' ? 0 : isRightToLeft(text) ? 1 : 0;
  const sos: 'L' | 'R' = baseLevel === 1 ? 'R' : 'L';
  const types = chars.map(bidiClass);
  const count = types.length;

  // W1: a combining mark takes the class of the character before it.
  for (let i = 0; i < count; i += 1) {
    if (types[i] === 'NSM') types[i] = i === 0 ? sos : (types[i - 1] as BidiClass);
  }
  // W4: one separator between two digits joins them ('+'/'-' as ES, ',' '.' '/' ':' as CS).
  for (let i = 1; i < count - 1; i += 1) {
    if ((types[i] === 'ES' || types[i] === 'CS') && types[i - 1] === 'EN' && types[i + 1] === 'EN') {
      types[i] = 'EN';
    }
  }
  // W5: terminators ('%', '$', '#', …) next to digits become part of the number.
  for (let i = 0; i < count; i += 1) {
    if (types[i] !== 'ET') continue;
    let end = i;
    while (end < count && types[end] === 'ET') end += 1;
    const touchesNumber = (i > 0 && types[i - 1] === 'EN') || (end < count && types[end] === 'EN');
    for (let k = i; k < end; k += 1) types[k] = touchesNumber ? 'EN' : 'ON';
    i = end - 1;
  }
  // W6: remaining separators and terminators are neutral.
  for (let i = 0; i < count; i += 1) {
    if (types[i] === 'ES' || types[i] === 'ET' || types[i] === 'CS') types[i] = 'ON';
  }
  // W7: digits whose last strong character is left-to-right behave as left-to-right text.
  let lastStrong: BidiClass = sos;
  for (let i = 0; i < count; i += 1) {
    const type = types[i];
    if (type === 'L' || type === 'R') lastStrong = type;
    else if (type === 'EN' && lastStrong === 'L') types[i] = 'L';
  }
  resolveBracketPairs(chars, types, sos);
  // N1/N2: runs of neutrals between two strong sides of one direction take it, else the paragraph's.
  const strongOf = (type: BidiClass | undefined, fallback: BidiClass): BidiClass =>
    type === undefined ? fallback : type === 'L' ? 'L' : 'R';
  for (let i = 0; i < count; i += 1) {
    if (types[i] !== 'WS' && types[i] !== 'ON') continue;
    let end = i;
    while (end < count && (types[end] === 'WS' || types[end] === 'ON')) end += 1;
    const before = strongOf(i > 0 ? types[i - 1] : undefined, sos);
    const after = strongOf(end < count ? types[end] : undefined, sos);
    const resolved: BidiClass = before === after ? before : sos;
    for (let k = i; k < end; k += 1) types[k] = resolved;
    i = end - 1;
  }
  // I1/I2: levels from the resolved classes.
  const levels = types.map((type) => {
    if (baseLevel === 0) return type === 'R' ? 1 : type === 'EN' ? 2 : 0;
    return type === 'R' ? 1 : 2;
  });
  return { chars, levels, baseLevel };
}

const MIRRORED: Record<string, string> = {
  '(': ')',
  ')': '(',
  '[': ']',
  ']': '[',
  '{': '}',
  '}': '{',
  '<': '>',
  '>': '<',
  '«': '»',
  '»': '«',
  '‹': '›',
  '›': '‹',
  '≤': '≥',
  '≥': '≤',
};

/**
 * The characters of `paragraph.chars[start, end)` in visual (left-to-right drawing) order, applying L1
 * (trailing spaces at the paragraph level), L2 (reversal by level) and L4 (mirrored brackets).
 */
export function visualOrder(paragraph: BidiParagraph, start = 0, end = paragraph.chars.length): VisualChar[] {
  const chars = paragraph.chars.slice(start, end);
  const levels = paragraph.levels.slice(start, end);
  for (let i = chars.length - 1; i >= 0 && bidiClass(chars[i] as string) === 'WS'; i -= 1) {
    levels[i] = paragraph.baseLevel;
  }
  const order = chars.map((_, index) => index);
  const highest = Math.max(0, ...levels);
  const lowestOdd = Math.min(...levels.filter((level) => level % 2 === 1), highest + 1);
  for (let level = highest; level >= lowestOdd; level -= 1) {
    for (let i = 0; i < order.length; i += 1) {
      if ((levels[order[i] as number] as number) < level) continue;
      let runEnd = i;
      while (runEnd < order.length && (levels[order[runEnd] as number] as number) >= level) runEnd += 1;
      const reversed = order.slice(i, runEnd).reverse();
      order.splice(i, reversed.length, ...reversed);
      i = runEnd - 1;
    }
  }
  return order.map((index) => {
    const char = chars[index] as string;
    const rtl = (levels[index] as number) % 2 === 1;
    return { char: rtl ? (MIRRORED[char] ?? char) : char, rtl };
  });
}

/** Convenience for a single line: the text as it must be drawn left to right. */
export function toVisual(text: string, direction: Direction = 'auto'): string {
  return visualOrder(analyzeParagraph(text, direction))
    .map((entry) => entry.char)
    .join('');
}

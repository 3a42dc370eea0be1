// Measuring, wrapping, fitting and drawing text with the embedded fonts: each line is put into visual order
// (bidi.ts), split into runs by the face that has each character, and drawn run by run from left to right.
import type { Color, PDFPage } from 'pdf-lib';
import { analyzeParagraph, type BidiParagraph, type Direction, drawnCharacter, visualOrder } from './bidi.ts';
import { type DocumentFonts, type FontFace, type FontWeight, MARK_FEATURES } from './fonts.ts';

/** A line of laid-out text: a range of one analysed paragraph, without trailing spaces. */
export interface TextLine {
  paragraph: BidiParagraph;
  start: number;
  end: number;
}

/** Text fitted into a box: the font size chosen and the lines to draw at it. */
export interface FittedText {
  size: number;
  lines: TextLine[];
  /** Whether the text had to be cut (an ellipsis ends the last line). */
  truncated: boolean;
}

export interface FitOptions {
  weight?: FontWeight;
  maxSize: number;
  minSize: number;
  /** Base direction of every paragraph: `auto` takes it from the first strong character. */
  direction?: Direction;
}

export type Alignment = 'left' | 'right' | 'center' | 'natural';

export interface DrawLineOptions {
  x: number;
  /** The baseline. */
  y: number;
  /** The width available, for right, centre and natural alignment. */
  width: number;
  size: number;
  weight?: FontWeight;
  color: Color;
  /** `natural`: right-aligned when the paragraph is right-to-left, left-aligned otherwise. */
  align?: Alignment;
}

/** Distance between baselines, as a multiple of the font size. */
export const LINE_HEIGHT = 1.2;
/** Height above the baseline taken by the first line of a block, as a multiple of the font size. */
export const FIRST_BASELINE = 0.93;

const ELLIPSIS = '\u2026';
const REPLACEMENT = '\uFFFD';
const WHITESPACE = /^[\s\u00A0]$/u;
const COMBINING_MARK = /\p{M}/u;
const NOT_NEUTRAL_SCRIPT = /[^\p{Script=Common}\p{Script=Inherited}\p{Script=Unknown}]/u;
const RIGHT_TO_LEFT_SCRIPT =
  /[\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Nko}\p{Script=Samaritan}\p{Script=Mandaic}]/u;

/** Whether fontkit will lay this string out right to left: its first non-neutral character decides. */
function laidOutRightToLeft(text: string): boolean {
  const match = NOT_NEUTRAL_SCRIPT.exec(text);
  return match !== null && RIGHT_TO_LEFT_SCRIPT.test(match[0]);
}

interface Run {
  face: FontFace;
  /** The string handed to pdf-lib (for reversing faces: logical order of an RTL run). */
  text: string;
  /** Width in ems. */
  width: number;
  /**
   * The run has combining marks: pdf-lib ignores glyph positions, so it would leave each mark at the edge of
   * its letter; such runs are drawn glyph by glyph at the positions fontkit computes.
   */
  positioned: boolean;
}

export class TextKit {
  readonly fonts: DocumentFonts;
  private readonly widths = new Map<string, number>();
  private readonly faceCache = new Map<string, FontFace | undefined>();

  constructor(fonts: DocumentFonts) {
    this.fonts = fonts;
  }

  private faces(weight: FontWeight): readonly FontFace[] {
    return this.fonts.family[weight];
  }

  /** The face that draws a character: the first of the weight's stack that has a glyph for it. */
  faceFor(char: string, weight: FontWeight): FontFace | undefined {
    const key = `${weight}${char}`;
    if (this.faceCache.has(key)) return this.faceCache.get(key);
    const cp = char.codePointAt(0) ?? 0;
    const face = this.faces(weight).find((candidate) => candidate.font.hasGlyphForCodePoint(cp));
    this.faceCache.set(key, face);
    return face;
  }

  /** The character actually drawn: characters no face has become U+FFFD (or '?'). */
  private drawable(char: string, weight: FontWeight): { char: string; face: FontFace } {
    const face = this.faceFor(char, weight);
    if (face) return { char, face };
    const primary = this.faces(weight)[0] as FontFace;
    return primary.font.hasGlyphForCodePoint(0xfffd)
      ? { char: REPLACEMENT, face: primary }
      : { char: '?', face: primary };
  }

  /**
   * Width in ems of a string drawn with one face: the sum of its characters' advances. pdf-lib draws with
   * fontkit's layout, which may substitute glyphs (ligatures are switched off, see fonts.ts) but applies no
   * kerning, so this matches what is drawn while avoiding a layout per measurement.
   */
  private emWidth(face: FontFace, text: string): number {
    let width = 0;
    for (const char of text) {
      const key = `${face.tag}${char}`;
      let advance = this.widths.get(key);
      if (advance === undefined) {
        advance = face.font.glyphForCodePoint(char.codePointAt(0) ?? 0).advanceWidth / face.unitsPerEm;
        this.widths.set(key, advance);
      }
      width += advance;
    }
    return width;
  }

  /** Splits characters already in drawing order into runs of one face each, without those that draw nothing. */
  private runs(chars: readonly string[], weight: FontWeight): Run[] {
    const groups: Array<{ face: FontFace; chars: string[] }> = [];
    for (const original of chars) {
      const shown = drawnCharacter(original);
      if (shown === '') continue;
      let { char, face } = this.drawable(shown, weight);
      const last = groups.at(-1);
      // A space stays in the current run when that face has it, so words of one script form one run.
      if (last && WHITESPACE.test(char) && last.face.font.hasGlyphForCodePoint(char.codePointAt(0) ?? 0)) {
        face = last.face;
      }
      if (last && last.face === face) last.chars.push(char);
      else groups.push({ face, chars: [char] });
    }
    return groups.map(({ face, chars: groupChars }) => {
      let text = groupChars.join('');
      if (face.reversesRightToLeft && laidOutRightToLeft(text)) text = [...groupChars].reverse().join('');
      const positioned = face.reversesRightToLeft && COMBINING_MARK.test(text);
      return { face, text, width: this.emWidth(face, text), positioned };
    });
  }

  /** Width in points of characters drawn in the given (any) order. */
  private charsWidth(chars: readonly string[], size: number, weight: FontWeight): number {
    let width = 0;
    for (const run of this.runs(chars, weight)) width += run.width;
    return width * size;
  }

  /** Width in points of one line of text. */
  measure(text: string, size: number, weight: FontWeight = 'regular'): number {
    return this.charsWidth(visualOrder(analyzeParagraph(text)), size, weight);
  }

  /** Width in points of a laid-out line, exactly as drawn. */
  lineWidth(line: TextLine, size: number, weight: FontWeight = 'regular'): number {
    return this.charsWidth(visualOrder(line.paragraph, line.start, line.end), size, weight);
  }

  /**
   * Breaks text into lines at most `maxWidth` wide: paragraphs at '\n', lines at spaces, and words longer
   * than a line at any character.
   */
  wrap(
    text: string,
    maxWidth: number,
    size: number,
    weight: FontWeight = 'regular',
    direction: Direction = 'auto',
  ): TextLine[] {
    return this.paragraphs(text, direction).flatMap((paragraph) =>
      this.wrapParagraph(paragraph, maxWidth / size, weight),
    );
  }

  /** Paragraphs end at line breaks and paragraph separators (UAX #9 rule P1). */
  private paragraphs(text: string, direction: Direction): BidiParagraph[] {
    return text
      .split(/\r\n|[\n\r\u0085\u2029]/u)
      .map((paragraphText) => analyzeParagraph(paragraphText, direction));
  }

  /** Greedy line breaking; widths in ems, a line's width taken as the sum of its words and spaces. */
  private wrapParagraph(paragraph: BidiParagraph, maxEm: number, weight: FontWeight): TextLine[] {
    const { chars } = paragraph;
    const lines: TextLine[] = [];
    const width = (from: number, to: number) => this.charsWidth(chars.slice(from, to), 1, weight);
    let lineStart = -1;
    let lineEnd = -1;
    let lineWidth = 0;
    let index = 0;
    while (index < chars.length) {
      const space = WHITESPACE.test(chars[index] as string);
      let tokenEnd = index;
      while (tokenEnd < chars.length && WHITESPACE.test(chars[tokenEnd] as string) === space) tokenEnd += 1;
      const tokenWidth = width(index, tokenEnd);
      if (space) {
        // Spaces join the line only when a word follows them there; a paragraph keeps its indentation.
        if (lineStart === -1 && lines.length === 0) {
          lineStart = index;
          lineEnd = index;
        }
        if (lineStart !== -1) lineWidth += tokenWidth;
        index = tokenEnd;
        continue;
      }
      if (lineStart !== -1 && lineWidth + tokenWidth <= maxEm) {
        lineWidth += tokenWidth;
        lineEnd = tokenEnd;
        index = tokenEnd;
        continue;
      }
      if (lineStart !== -1 && lineEnd > lineStart) lines.push({ paragraph, start: lineStart, end: lineEnd });
      // The word starts a line; a word wider than a line is cut where it stops fitting (one character at least).
      let pieceStart = index;
      let pieceWidth = tokenWidth;
      while (pieceWidth > maxEm && tokenEnd - pieceStart > 1) {
        let cut = pieceStart + 1;
        let cutWidth = width(pieceStart, cut);
        while (cut < tokenEnd - 1) {
          const next = cutWidth + width(cut, cut + 1);
          if (next > maxEm) break;
          cutWidth = next;
          cut += 1;
        }
        lines.push({ paragraph, start: pieceStart, end: cut });
        pieceStart = cut;
        pieceWidth = width(pieceStart, tokenEnd);
      }
      lineStart = pieceStart;
      lineEnd = tokenEnd;
      lineWidth = pieceWidth;
      index = tokenEnd;
    }
    if (lineStart !== -1 && lineEnd > lineStart) lines.push({ paragraph, start: lineStart, end: lineEnd });
    if (lines.length === 0) lines.push({ paragraph, start: 0, end: 0 });
    return lines;
  }

  /** The line cut so that, ended by an ellipsis, it fits `maxWidth` (the ellipsis is always added). */
  ellipsize(line: TextLine, maxWidth: number, size: number, weight: FontWeight = 'regular'): TextLine {
    const { paragraph } = line;
    const direction: Direction = paragraph.baseLevel === 1 ? 'rtl' : 'ltr';
    // The paragraph as shown: its text up to the cut, then the ellipsis; levels are resolved on all of it (the
    // lines before this one are context) and the line's range reordered.
    const candidate = (end: number): TextLine => {
      let cut = end;
      while (cut > line.start && WHITESPACE.test(paragraph.chars[cut - 1] as string)) cut -= 1;
      const shown = analyzeParagraph(paragraph.chars.slice(0, cut).join('') + ELLIPSIS, direction);
      return { paragraph: shown, start: line.start, end: shown.chars.length };
    };
    // Binary search for the longest prefix that fits with the ellipsis.
    let low = line.start;
    let high = line.end;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (this.lineWidth(candidate(middle), size, weight) <= maxWidth) low = middle;
      else high = middle - 1;
    }
    return candidate(low);
  }

  /**
   * One line in a box: the largest size from `maxSize` down to `minSize` (in half points) at which the text
   * fits the width, else `minSize` with the text cut and an ellipsis. Line breaks become spaces.
   */
  fitLine(text: string, maxWidth: number, options: FitOptions): FittedText {
    const weight = options.weight ?? 'regular';
    const single = text.replace(/\s+/gu, ' ').trim();
    const paragraph = analyzeParagraph(single, options.direction ?? 'auto');
    const line: TextLine = { paragraph, start: 0, end: paragraph.chars.length };
    const naturalWidth = this.lineWidth(line, 1, weight);
    for (let size = options.maxSize; size >= options.minSize; size -= 0.5) {
      if (naturalWidth * size <= maxWidth) return { size, lines: [line], truncated: false };
    }
    const size = options.minSize;
    if (naturalWidth * size <= maxWidth) return { size, lines: [line], truncated: false };
    return { size, lines: [this.ellipsize(line, maxWidth, size, weight)], truncated: true };
  }

  /**
   * Several lines in a box (paragraphs kept, lines wrapped): the largest size at which every line fits the
   * box's height, else `minSize` with the lines that fit and an ellipsis ending the last one.
   */
  fitBlock(text: string, maxWidth: number, maxHeight: number, options: FitOptions): FittedText {
    const weight = options.weight ?? 'regular';
    const paragraphs = this.paragraphs(text.replace(/[\r\n]+$/u, ''), options.direction ?? 'auto');
    const wrapAt = (size: number) =>
      paragraphs.flatMap((paragraph) => this.wrapParagraph(paragraph, maxWidth / size, weight));
    for (let size = options.maxSize; size >= options.minSize; size -= 0.5) {
      const lines = wrapAt(size);
      if (lines.length * size * LINE_HEIGHT <= maxHeight) return { size, lines, truncated: false };
    }
    const size = options.minSize;
    const lines = wrapAt(size);
    const room = Math.max(1, Math.floor(maxHeight / (size * LINE_HEIGHT)));
    if (lines.length <= room) return { size, lines, truncated: false };
    const kept = lines.slice(0, room);
    kept[room - 1] = this.ellipsize(kept[room - 1] as TextLine, maxWidth, size, weight);
    return { size, lines: kept, truncated: true };
  }

  /** Draws one line; returns its width in points. */
  async drawLine(page: PDFPage, line: TextLine, options: DrawLineOptions): Promise<number> {
    const weight = options.weight ?? 'regular';
    const runs = this.runs(visualOrder(line.paragraph, line.start, line.end), weight);
    const total = runs.reduce((sum, run) => sum + run.width, 0) * options.size;
    const align =
      options.align === 'natural' || options.align === undefined
        ? line.paragraph.baseLevel === 1
          ? 'right'
          : 'left'
        : options.align;
    let x = options.x;
    if (align === 'right') x = options.x + options.width - total;
    else if (align === 'center') x = options.x + (options.width - total) / 2;
    for (const run of runs) {
      const font = await this.fonts.pdfFont(run.face);
      const style = { size: options.size, font, color: options.color };
      if (run.positioned) {
        const scale = options.size / run.face.unitsPerEm;
        const layout = run.face.font.layout(run.text, MARK_FEATURES);
        let penX = x;
        layout.glyphs.forEach((glyph, index) => {
          const position = layout.positions[index];
          const text = String.fromCodePoint(...glyph.codePoints);
          if (position && text !== '') {
            page.drawText(text, {
              ...style,
              x: penX + position.xOffset * scale,
              y: options.y + position.yOffset * scale,
            });
          }
          penX += (position?.xAdvance ?? glyph.advanceWidth) * scale;
        });
      } else {
        page.drawText(run.text, { ...style, x, y: options.y });
      }
      x += run.width * options.size;
    }
    return total;
  }

  /** Draws a fitted block top-down from `top`, one line every LINE_HEIGHT × size. */
  async drawBlock(
    page: PDFPage,
    fitted: FittedText,
    box: { x: number; top: number; width: number },
    style: { color: Color; weight?: FontWeight; align?: Alignment },
  ): Promise<void> {
    let y = box.top - fitted.size * FIRST_BASELINE;
    for (const line of fitted.lines) {
      await this.drawLine(page, line, { ...style, x: box.x, y, width: box.width, size: fitted.size });
      y -= fitted.size * LINE_HEIGHT;
    }
  }
}

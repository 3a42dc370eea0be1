// The fonts the renderers draw with. pdf-lib's standard fonts only know WinAnsi, so we embed Noto Sans (Latin,
// Greek, Cyrillic and common symbols) with Noto Sans Hebrew as a fallback for Hebrew characters. Both are
// SIL Open Font License 1.1, shipped as TrueType files by the npm packages `@embedpdf/fonts-latin` and
// `@embedpdf/fonts-hebrew`; only the glyphs a document uses are embedded (subsetting).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import fontkit from '@pdf-lib/fontkit';
import type { PDFDocument, PDFFont } from 'pdf-lib';
import { padGlyphsToEvenLength } from './truetype.ts';

export type FontWeight = 'regular' | 'bold';

/** A font file parsed once per process: used to pick fonts per character and to measure text. */
export interface FontFace {
  /** Six capital letters, the PDF subset tag of this face; with `postscriptName` it names the embedded font. */
  tag: string;
  postscriptName: string;
  bytes: Uint8Array;
  font: fontkit.Font;
  unitsPerEm: number;
  /** Ascent and descent as fractions of the font size (descent is negative). */
  ascent: number;
  descent: number;
  /**
   * Whether fontkit lays out right-to-left script runs in reverse (it does for fonts with OpenType layout
   * tables). pdf-lib draws the glyphs in the order fontkit returns, so a run we already put into visual order
   * must be handed back in logical order to such a face.
   */
  reversesRightToLeft: boolean;
}

/** The faces to try, in order, for each weight; a character is drawn with the first face that has it. */
export interface FontFamily {
  regular: readonly FontFace[];
  bold: readonly FontFace[];
}

const FILES = {
  latinRegular: { pkg: '@embedpdf/fonts-latin', file: 'NotoSans-Regular.ttf', tag: 'SGLATR' },
  latinBold: { pkg: '@embedpdf/fonts-latin', file: 'NotoSans-Bold.ttf', tag: 'SGLATB' },
  hebrewRegular: { pkg: '@embedpdf/fonts-hebrew', file: 'NotoSansHebrew-Regular.ttf', tag: 'SGHEBR' },
  hebrewBold: { pkg: '@embedpdf/fonts-hebrew', file: 'NotoSansHebrew-Bold.ttf', tag: 'SGHEBB' },
} as const;

/**
 * OpenType features switched off when pdf-lib lays text out. Ligatures and contextual alternates: one glyph
 * per character, so measured widths (sums of advances) are exactly the drawn ones. Positioning features:
 * pdf-lib ignores glyph positions anyway, and skipping them halves the layout time.
 */
export const LAYOUT_FEATURES = {
  liga: false,
  clig: false,
  dlig: false,
  calt: false,
  kern: false,
  mark: false,
  mkmk: false,
  curs: false,
  dist: false,
};

const require = createRequire(import.meta.url);

function fontPath(pkg: string, file: string): string {
  // The packages export only their (tiny) metadata module; the .ttf files sit in `fonts/` beside `dist/`.
  return path.join(path.dirname(require.resolve(pkg)), '..', 'fonts', file);
}

function loadFace(spec: { pkg: string; file: string; tag: string }): FontFace {
  // Padded so that @pdf-lib/fontkit's subsets come out intact (see truetype.ts).
  const bytes = padGlyphsToEvenLength(new Uint8Array(readFileSync(fontPath(spec.pkg, spec.file))));
  const font = fontkit.create(bytes);
  let reversesRightToLeft = false;
  if (font.hasGlyphForCodePoint(0x05d0) && font.hasGlyphForCodePoint(0x05d1)) {
    const [first] = font.layout('\u05D0\u05D1', LAYOUT_FEATURES).glyphs;
    reversesRightToLeft = first?.id === font.glyphForCodePoint(0x05d1).id;
  }
  return {
    tag: spec.tag,
    postscriptName: font.postscriptName ?? spec.file.replace(/\.ttf$/, ''),
    bytes,
    font,
    unitsPerEm: font.unitsPerEm,
    ascent: font.ascent / font.unitsPerEm,
    descent: font.descent / font.unitsPerEm,
    reversesRightToLeft,
  };
}

/** For runs with combining marks (Hebrew points), laid out by us to place each mark on its letter. */
export const MARK_FEATURES = { ...LAYOUT_FEATURES, mark: true, mkmk: true };

let family: FontFamily | undefined;

/** The Noto family, read from disk on first use and kept for the life of the process. */
export function notoFamily(): FontFamily {
  if (!family) {
    const faces = {
      latinRegular: loadFace(FILES.latinRegular),
      latinBold: loadFace(FILES.latinBold),
      hebrewRegular: loadFace(FILES.hebrewRegular),
      hebrewBold: loadFace(FILES.hebrewBold),
    };
    family = {
      regular: [faces.latinRegular, faces.hebrewRegular],
      bold: [faces.latinBold, faces.hebrewBold],
    };
  }
  return family;
}

/**
 * The faces of one document, embedded (as subsets) the first time a character needs them, so a document
 * without Hebrew carries no Hebrew font. Embedding order follows drawing order, hence is deterministic.
 */
export class DocumentFonts {
  readonly family: FontFamily;
  private readonly doc: PDFDocument;
  private readonly embedded = new Map<string, Promise<PDFFont>>();

  constructor(doc: PDFDocument, fontFamily: FontFamily = notoFamily()) {
    this.doc = doc;
    this.family = fontFamily;
    // pdf-lib parses each face it embeds again, once per document, and that parse must stay its own: fontkit
    // caches a glyph with the code points of its first lookup, and pdf-lib writes the text's ToUnicode map from
    // them. Handing pdf-lib the process's shared parse (tried for issue 19, docs/performance.md) left later
    // documents without extractable text where a glyph had first been looked up without code points.
    doc.registerFontkit(fontkit);
  }

  pdfFont(face: FontFace): Promise<PDFFont> {
    let font = this.embedded.get(face.tag);
    if (!font) {
      font = this.doc.embedFont(face.bytes, {
        subset: true,
        customName: `${face.tag}+${face.postscriptName}`,
        features: LAYOUT_FEATURES,
      });
      this.embedded.set(face.tag, font);
    }
    return font;
  }
}

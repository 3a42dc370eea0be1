// The bidi treatment decides the order in which glyphs are drawn: these pin the visual order (left to right)
// of the names and short mixed texts the renderers meet. The expected orders follow the rules of UAX #9 named
// at each case (cross-checked with an independent implementation); the reordering itself comes from bidi-js
// (pdf/bidi.ts), and the last tests read the order back from the glyphs of a rendered PDF.
import { PDFDocument } from 'pdf-lib';
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { analyzeParagraph, toVisual, visualOrder } from '../../pdf/bidi.ts';
import { DocumentFonts } from '../../pdf/fonts.ts';
import { type FinalPdfField, renderFinalPdf } from '../../pdf/render-final-pdf.ts';
import { TextKit } from '../../pdf/text.ts';

describe('toVisual', () => {
  it('leaves left-to-right text alone', () => {
    expect(toVisual('Dana Levi, 12 Main St. (HQ)')).toBe('Dana Levi, 12 Main St. (HQ)');
  });

  it('reverses a Hebrew name', () => {
    expect(toVisual('דנה לוי-כהן')).toBe('ןהכ-יול הנד');
  });

  it('keeps numbers left to right inside Hebrew text, with their separators', () => {
    expect(toVisual('רחוב הרצל 12, תל אביב')).toBe('ביבא לת ,12 לצרה בוחר');
    expect(toVisual('טלפון: 050-1234567')).toBe('050-1234567 :ןופלט');
    expect(toVisual('סך הכל 1,250.50 ₪')).toBe('₪ 1,250.50 לכה ךס');
  });

  it('puts a Hebrew run inside English text in right-to-left order, punctuation staying outside it', () => {
    expect(toVisual('Order #4521 for שלום עליכם, total')).toBe('Order #4521 for םכילע םולש, total');
  });

  it('places English inside a Hebrew paragraph as one left-to-right unit', () => {
    expect(toVisual('אבי כהן (CEO)')).toBe('(CEO) ןהכ יבא');
    expect(toVisual('שלום world')).toBe('world םולש');
  });

  it('keeps a bracket pair together (rule N0) and mirrors brackets in right-to-left runs', () => {
    expect(toVisual('הסכם שירותים – Acme Ltd. (services agreement)')).toBe(
      'Acme Ltd. (services agreement) – םיתוריש םכסה',
    );
    expect(toVisual('שלום (עולם)')).toBe('(םלוע) םולש');
  });

  it('honours a forced direction', () => {
    expect(toVisual('הסכם-שירותים.pdf', 'ltr')).toBe('םיתוריש-םכסה.pdf');
    expect(toVisual('הסכם-שירותים.pdf', 'rtl')).toBe('pdf.םיתוריש-םכסה');
    expect(toVisual('Invoice 12', 'rtl')).toBe('Invoice 12');
  });

  it('drops embedding controls and keeps marks on the paragraph level', () => {
    expect(toVisual('\u202Bשלום\u202C')).toBe('םולש');
    expect(analyzeParagraph('\u200Fabc').baseLevel).toBe(1);
  });
});

describe('the paragraph direction', () => {
  it('takes the direction of the first strong character', () => {
    expect(analyzeParagraph('123 שלום').baseLevel).toBe(1);
    expect(analyzeParagraph('Dana דנה').baseLevel).toBe(0);
    expect(analyzeParagraph('123 - ...').baseLevel).toBe(0);
  });
});

describe('mixed content in Hebrew documents', () => {
  it('keeps an amount one left-to-right number, with its separators and currency sign', () => {
    // W4: ',' and '.' between two digits join the number; N1: the spaces between Hebrew and a number take
    // the right-to-left direction (numbers count as R); I2: the number is raised to level 2, left to right.
    expect(toVisual('סכום 1,234.50 ש״ח')).toBe('ח״ש 1,234.50 םוכס');
    // W5: a currency sign (ET) touching the digits belongs to the number.
    expect(toVisual('לתשלום ₪1,234.50')).toBe('₪1,234.50 םולשתל');
  });

  it('keeps a percent sign with its number and puts a lone minus sign where the rules put it', () => {
    // W5: '%' (ET) after digits is part of the number.
    expect(toVisual('הנחה של 15% מהמחיר')).toBe('ריחמהמ 15% לש החנה');
    // W6: a '-' or '−' (ES) that is not between two digits is neutral, and N1 makes it right to left (Hebrew
    // before it, a number after it): it is drawn to the right of the digits, where a right-to-left reader
    // meets it first.
    expect(toVisual('יתרה -250 ש״ח')).toBe('ח״ש 250- הרתי');
    expect(toVisual('שינוי −3.5%')).toBe('3.5%− יוניש');
    // After an LRM (L) the number is left-to-right text (W7) and the sign between them too (N1).
    expect(toVisual('יתרה \u200E-250 ש״ח')).toBe('ח״ש -250 הרתי');
    // W4: a '-' between two numbers joins them into one.
    expect(toVisual('בין 10-20 ימים')).toBe('םימי 10-20 ןיב');
  });

  it('keeps phone numbers, dates and times left to right inside Hebrew', () => {
    // W4 joins every '-' between digits; the leading '+' is not between digits (W6, N1 as above).
    expect(toVisual('טלפון +972-3-555-1234 למשרד')).toBe('דרשמל 972-3-555-1234+ ןופלט');
    // An isolate (LRI … PDI, X5a–X6a) makes the whole number, '+' included, one left-to-right unit.
    expect(toVisual('טלפון \u2066+972-3-555-1234\u2069 למשרד')).toBe('דרשמל +972-3-555-1234 ןופלט');
    expect(toVisual('תאריך 2026-03-01 לחתימה')).toBe('המיתחל 2026-03-01 ךיראת');
    // '/' and ':' (CS) between digits join them (W4); the '-' after the Hebrew prefix ב is not between
    // digits, so it stays with the Hebrew (W6, N1).
    expect(toVisual('נחתם ב-01/03/2026')).toBe('01/03/2026-ב םתחנ');
    expect(toVisual('בשעה 10:15')).toBe('10:15 העשב');
  });

  it('resolves bracket pairs as one (N0) and mirrors brackets in right-to-left runs (L4)', () => {
    // N0 b: Hebrew inside, the paragraph's direction: both brackets right to left, so both are mirrored.
    expect(toVisual('(הערה)')).toBe('(הרעה)');
    // N0 c2: only Latin inside, Hebrew before the pair: the pair takes the paragraph's direction.
    expect(toVisual('שם (Name) כאן')).toBe('ןאכ (Name) םש');
    // Nested pairs, each resolved by N0 b.
    expect(toVisual('שם (Dana (דנה)) כאן')).toBe('ןאכ ((הנד) Dana) םש');
    // In a left-to-right line, N0 c1: Hebrew inside and Hebrew before the pair make it right to left.
    expect(toVisual('Client דנה (לוי) signed')).toBe('Client (יול) הנד signed');
    // Pairs and mirrored glyphs come from Unicode's data (BidiBrackets.txt, BidiMirroring.txt), not only ().
    expect(toVisual('הערה ⟨חשוב⟩')).toBe('⟨בושח⟩ הרעה');
  });

  it('keeps e-mail addresses and URLs as left-to-right units, sentence punctuation outside them', () => {
    // '@' (ON) and '.' (CS, not between digits: W6) between Latin letters take their direction (N1).
    expect(toVisual('כתובת dana@example.com לפניה')).toBe('הינפל dana@example.com תבותכ');
    // ':' '/' '?' '=' likewise; the digits after Latin letters are left-to-right text (W7). The full stop
    // between the Hebrew word and the end of the paragraph is right to left (N1 with eos), drawn leftmost.
    expect(toVisual('ראו https://example.com/he/docs?id=12 לפרטים.')).toBe(
      '.םיטרפל https://example.com/he/docs?id=12 ואר',
    );
  });

  it('reverses only the Hebrew words of a Latin line; a number right after them joins them (W7, N1)', () => {
    // The date's last strong character is 'n' (W7: left-to-right text); the space between the two Hebrew
    // words is between two R (N1).
    expect(toVisual('Signed by דנה לוי on 2026-03-01')).toBe('Signed by יול הנד on 2026-03-01');
    // Here the number's last strong character is Hebrew: it stays a number and counts as R for the space
    // before it (N1), so it is drawn on the Hebrew's left.
    expect(toVisual('Invoice for דנה 2026')).toBe('Invoice for 2026 הנד');
  });

  it('takes characters outside the BMP by their class (an emoji is a neutral)', () => {
    // N1: the emoji and the spaces, between Hebrew and a number, are right to left.
    expect(toVisual('שלום 🙂 123')).toBe('123 🙂 םולש');
  });

  it('ends a segment at a tab, drawn as a space (L1)', () => {
    // The tab is reset to the paragraph level, so the two Latin segments are separate runs, right to left.
    expect(toVisual('abc\tdef', 'rtl')).toBe('def abc');
  });
});

describe('lines of one paragraph', () => {
  it('resolves the levels on the paragraph and reorders each line on its own (L1, L2)', () => {
    const paragraph = analyzeParagraph('חשבונית מספר 42 Invoice');
    expect(visualOrder(paragraph, 0, 12).join('')).toBe('רפסמ תינובשח');
    // The paragraph is right to left and the number follows Hebrew (W7 does not apply), so on the second
    // line the number is drawn right of "Invoice"; that line alone would be a left-to-right paragraph.
    expect(visualOrder(paragraph, 13, 23).join('')).toBe('Invoice 42');
    expect(toVisual('42 Invoice')).toBe('42 Invoice');
    // L1: the trailing space of a line goes to the paragraph level, out of the Hebrew run around it.
    const latin = analyzeParagraph('Dana דנה לוי and');
    expect(visualOrder(latin, 0, 9).join('')).toBe('Dana הנד ');
    expect(visualOrder(latin, 9, 16).join('')).toBe('יול and');
    expect(visualOrder(latin).join('')).toBe('Dana יול הנד and');
    // W7 looks back across the line break: the numbers follow "Invoice", so they are left-to-right text and
    // the spaces between them too (N1); a right-to-left paragraph of the second line alone would reverse them.
    const invoice = analyzeParagraph('חשבון Invoice 12 34 56');
    expect(visualOrder(invoice, 14, 22).join('')).toBe('12 34 56');
    expect(toVisual('12 34 56', 'rtl')).toBe('56 34 12');
  });

  it('is how TextKit wraps: lines are ranges of one analysed paragraph', async () => {
    const kit = new TextKit(new DocumentFonts(await PDFDocument.create()));
    const lines = kit.wrap('חשבונית מספר 42 Invoice', kit.measure('חשבונית מספר', 10) + 1, 10);
    expect(lines.map((line) => [line.start, line.end])).toEqual([
      [0, 12],
      [13, 23],
    ]);
    expect(new Set(lines.map((line) => line.paragraph)).size).toBe(1);
    expect(lines.map((line) => visualOrder(line.paragraph, line.start, line.end).join(''))).toEqual([
      'רפסמ תינובשח',
      'Invoice 42',
    ]);
  });

  it('ends a cut line with an ellipsis that keeps the paragraph before it as context', async () => {
    const kit = new TextKit(new DocumentFonts(await PDFDocument.create()));
    const [, second] = kit.wrap('חשבון Invoice 12 34 56', kit.measure('חשבון Invoice', 10) + 1, 10);
    if (!second) throw new Error('expected two lines');
    expect(visualOrder(second.paragraph, second.start, second.end).join('')).toBe('12 34 56');
    const cut = kit.ellipsize(second, kit.measure('12 34…', 10) + 0.5, 10);
    // The numbers stay left-to-right text (W7, as above); the ellipsis, between them and the end of a
    // right-to-left paragraph, is right to left (N1 with eos) and drawn at the line's left end.
    expect(visualOrder(cut.paragraph, cut.start, cut.end).join('')).toBe('…12 34');
  });
});

/** The text drawn on the first page, one string per baseline from the top, glyphs in drawing order. */
async function drawnLines(bytes: Uint8Array): Promise<string[]> {
  const task = getDocument({ data: bytes.slice(), verbosity: 0 });
  const pdf = await task.promise;
  const operators = await (await pdf.getPage(1)).getOperatorList();
  const rows = new Map<number, Array<{ x: number; text: string }>>();
  let origin = { x: 0, y: 0 };
  for (const [index, op] of operators.fnArray.entries()) {
    const args = operators.argsArray[index] as unknown[];
    if (op === OPS.setTextMatrix) {
      const matrix = args[0] as ArrayLike<number>;
      origin = { x: matrix[4] as number, y: matrix[5] as number };
    } else if (op === OPS.showText) {
      // pdf.js gives each glyph of a text-showing operator with the character it stands for.
      const glyphs = args[0] as Array<{ unicode: string } | number>;
      const text = glyphs.map((glyph) => (typeof glyph === 'number' ? '' : glyph.unicode)).join('');
      const baseline = Math.round(origin.y);
      rows.set(baseline, [...(rows.get(baseline) ?? []), { x: origin.x, text }]);
    }
  }
  await task.destroy();
  return [...rows.entries()]
    .sort(([a], [b]) => b - a)
    .map(([, pieces]) =>
      pieces
        .sort((a, b) => a.x - b.x)
        .map((piece) => piece.text)
        .join(''),
    );
}

describe('the final PDF', () => {
  it('draws the glyphs of mixed Hebrew lines in the visual order above', async () => {
    const cases: Array<[string, string]> = [
      ['סכום 1,234.50 ש״ח', 'ח״ש 1,234.50 םוכס'],
      ['יתרה -250 ש״ח', 'ח״ש 250- הרתי'],
      ['הנחה של 15% מהמחיר', 'ריחמהמ 15% לש החנה'],
      ['טלפון \u2066+972-3-555-1234\u2069 למשרד', 'דרשמל +972-3-555-1234 ןופלט'],
      ['תאריך 2026-03-01 לחתימה', 'המיתחל 2026-03-01 ךיראת'],
      ['(הערה)', '(הרעה)'],
      ['שם (Dana (דנה)) כאן', 'ןאכ ((הנד) Dana) םש'],
      ['כתובת dana@example.com לפניה', 'הינפל dana@example.com תבותכ'],
      ['Client דנה (לוי) signed', 'Client (יול) הנד signed'],
      ['Invoice for דנה 2026', 'Invoice for 2026 הנד'],
    ];
    const base = await PDFDocument.create();
    base.addPage([595.28, 841.89]);
    const fields: FinalPdfField[] = cases.map(([value], index) => ({
      type: 'Text',
      page: 1,
      x: 40,
      y: 40 + index * 30,
      width: 500,
      height: 22,
      value,
    }));
    const output = await renderFinalPdf({
      basePdf: await base.save(),
      envelopeId: '0f8e2c1a-5b7d-4e8f-9a1b-2c3d4e5f6a7b',
      completedAt: new Date('2026-03-01T10:15:30Z'),
      fields,
    });
    // The fields from the top, then the footer.
    const lines = await drawnLines(output);
    expect(lines).toHaveLength(cases.length + 1);
    expect(lines.slice(0, cases.length)).toEqual(cases.map(([, visual]) => visual));
  });
});

// The bidi treatment decides the order in which glyphs are drawn: these pin the visual order (left to right)
// of the names and short mixed texts the renderers meet.
import { describe, expect, it } from 'vitest';
import { analyzeParagraph, isRightToLeft, toVisual } from '../../documents/bidi.ts';

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

describe('isRightToLeft', () => {
  it('takes the direction of the first strong character', () => {
    expect(isRightToLeft('123 שלום')).toBe(true);
    expect(isRightToLeft('Dana דנה')).toBe(false);
    expect(isRightToLeft('123 - ...')).toBe(false);
  });
});

// The template builder's pure parts (docs/templates.md): the geometry the page moves, aligns, distributes and
// snaps fields with (web/src/lib/app/templates/geometry.ts), and what the field properties change where values
// are checked (services/fields/field-value.ts) and drawn (pdf/render-final-pdf.ts).
import { describe, expect, it } from 'vitest';
import { formatDate } from '../../pdf/render-final-pdf.ts';
import { checkInitialValue, checkSignerValue, isIsraeliId } from '../../services/fields/field-value.ts';
import {
  alignBoxes,
  boxBetween,
  clampBox,
  distributeBoxes,
  intersects,
  MIN_SIDE,
  moveBox,
  resizeBox,
  snapBox,
} from '../../web/src/lib/app/templates/geometry.ts';
import { encodePng } from '../support/png.ts';

const A4 = { width: 595.28, height: 841.89 };

describe('the builder geometry', () => {
  it('keeps a box on its page, at least the smallest side and at most the page', () => {
    expect(clampBox({ x: -5, y: 830, width: 100, height: 40 }, A4)).toEqual({
      x: 0,
      y: 801.89,
      width: 100,
      height: 40,
    });
    expect(clampBox({ x: 10, y: 10, width: 2, height: 1000 }, A4)).toEqual({
      x: 10,
      y: 0,
      width: MIN_SIDE,
      height: 841.89,
    });
    expect(clampBox({ x: 1.234567, y: 2.345678, width: 50.005, height: 20 }, A4)).toEqual({
      x: 1.23,
      y: 2.35,
      width: 50.01,
      height: 20,
    });
  });

  it('moves and resizes within the page', () => {
    const box = { x: 500, y: 10, width: 80, height: 20 };
    expect(moveBox(box, 30, -20, A4)).toEqual({ x: 515.28, y: 0, width: 80, height: 20 });
    expect(resizeBox(box, 40, 5, A4)).toEqual({ x: 500, y: 10, width: 95.28, height: 25 });
    expect(resizeBox(box, -100, 0, A4).width).toBe(MIN_SIDE);
  });

  it('aligns boxes on the selection’s edges and centres', () => {
    const boxes = [
      { x: 10, y: 100, width: 50, height: 20 },
      { x: 40, y: 150, width: 100, height: 40 },
    ];
    expect(alignBoxes(boxes, 'left').map((box) => box.x)).toEqual([10, 10]);
    expect(alignBoxes(boxes, 'right').map((box) => box.x)).toEqual([90, 40]);
    expect(alignBoxes(boxes, 'center').map((box) => box.x)).toEqual([50, 25]);
    expect(alignBoxes(boxes, 'top').map((box) => box.y)).toEqual([100, 100]);
    expect(alignBoxes(boxes, 'middle').map((box) => box.y)).toEqual([135, 125]);
    expect(alignBoxes(boxes, 'bottom').map((box) => box.y)).toEqual([170, 150]);
  });

  it('distributes three or more with equal gaps, the outer ones staying', () => {
    const boxes = [
      { x: 300, y: 0, width: 20, height: 10 },
      { x: 0, y: 0, width: 20, height: 10 },
      { x: 120, y: 0, width: 40, height: 10 },
    ];
    // Span 0-320, 80 points of boxes: two gaps of 120.
    expect(distributeBoxes(boxes, 'horizontal').map((box) => box.x)).toEqual([300, 0, 140]);
    expect(distributeBoxes(boxes.slice(0, 2), 'horizontal')).toEqual(boxes.slice(0, 2));
  });

  it('snaps a moved box to the nearest edge or centre within the threshold, with its guide', () => {
    const other = { x: 100, y: 400, width: 200, height: 30 };
    const near = snapBox({ x: 103, y: 200, width: 50, height: 20 }, [other], A4, 5);
    expect(near.box.x).toBe(100);
    expect(near.guides).toEqual([{ axis: 'x', at: 100 }]);
    // The page's centre line (297.64) pulls the box's centre.
    const centred = snapBox({ x: 270, y: 600, width: 50, height: 20 }, [], A4, 5);
    expect(centred.box.x).toBe(272.64);
    expect(centred.guides).toEqual([{ axis: 'x', at: 297.64 }]);
    const far = snapBox({ x: 120, y: 200, width: 50, height: 20 }, [other], A4, 5);
    expect(far.guides).toEqual([]);
    expect(far.box.x).toBe(120);
  });

  it('tells which boxes a rubber band touches', () => {
    const band = boxBetween({ x: 200, y: 200 }, { x: 100, y: 100 });
    expect(band).toEqual({ x: 100, y: 100, width: 100, height: 100 });
    expect(intersects(band, { x: 190, y: 190, width: 50, height: 50 })).toBe(true);
    expect(intersects(band, { x: 200, y: 100, width: 50, height: 50 })).toBe(false);
  });
});

describe('field properties where values are checked and drawn', () => {
  it('checks email domains, phone country codes and Israeli ID numbers', () => {
    const email = { type: 'Email' as const, properties: { allowedDomains: ['example.com'] } };
    expect(checkInitialValue(email, 'dana@sales.example.com')).toEqual({
      ok: true,
      value: 'dana@sales.example.com',
    });
    expect(checkInitialValue(email, 'dana@badexample.com').ok).toBe(false);
    const phone = { type: 'Phone' as const, properties: { countryCodes: ['972', '44'] } };
    expect(checkInitialValue(phone, '+447700900123').ok).toBe(true);
    expect(checkInitialValue(phone, '+15551234567')).toEqual({
      ok: false,
      message: 'the number must start with +972, +44',
    });
    expect(isIsraeliId('000000018')).toBe(true);
    expect(isIsraeliId('18')).toBe(true);
    expect(isIsraeliId('123456789')).toBe(false);
    expect(isIsraeliId('12345678901')).toBe(false);
    const id = { type: 'ID number' as const, properties: { idNumberFormat: 'IsraeliId' as const } };
    expect(checkSignerValue(id, 'AB-1234').ok).toBe(false);
    expect(checkSignerValue({ type: 'ID number' }, 'AB-1234').ok).toBe(true);
  });

  it('narrows an upload field’s accepted types and size', () => {
    const png = encodePng(4, 4, () => [0, 0, 0, 255]).toString('base64');
    const upload = (properties: object) =>
      checkSignerValue(
        { type: 'Image upload', properties },
        { fileBase64: png, filename: 'logo.png', contentType: 'image/png' },
      );
    expect(upload({}).ok).toBe(true);
    expect(upload({ contentTypes: ['image/jpeg'] })).toEqual({
      ok: false,
      message: 'contentType must be one of: image/jpeg',
    });
    expect(upload({ maxSizeMb: 0.00001 })).toEqual({
      ok: false,
      message: 'the file must be at most 10 bytes',
    });
    expect(upload({ maxSizeMb: 1 }).ok).toBe(true);
  });

  it('writes a date in the field’s format', () => {
    expect(formatDate('2026-05-01', undefined)).toBe('2026-05-01');
    expect(formatDate('2026-05-01', 'DD/MM/YYYY')).toBe('01/05/2026');
    expect(formatDate('2026-05-01', 'MM/DD/YYYY')).toBe('05/01/2026');
    expect(formatDate('2026-05-01', 'DD.MM.YYYY')).toBe('01.05.2026');
  });
});

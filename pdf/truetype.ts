// A workaround for a subsetting bug in @pdf-lib/fontkit 1.1.1: its TrueType subsetter copies each glyph's
// bytes unchanged and, when the subset is small, writes a short 'loca' table (offsets stored halved) without
// padding glyphs to an even length. A glyph of odd length then shifts every following offset and those glyphs
// come out blank or garbled (Noto Sans has many odd-length glyphs). Rewriting the font once, with every glyph
// padded to an even length, makes every subset's offsets exact. Only 'glyf', 'loca' and 'head' change; the
// padding bytes lie past each glyph's data, so outlines and metrics are untouched.

function readTag(view: DataView, offset: number): string {
  return String.fromCharCode(
    view.getUint8(offset),
    view.getUint8(offset + 1),
    view.getUint8(offset + 2),
    view.getUint8(offset + 3),
  );
}

function checksum(bytes: Uint8Array): number {
  const padded = new Uint8Array(Math.ceil(bytes.length / 4) * 4);
  padded.set(bytes);
  const view = new DataView(padded.buffer);
  let sum = 0;
  for (let offset = 0; offset < padded.length; offset += 4) sum = (sum + view.getUint32(offset)) >>> 0;
  return sum;
}

interface Table {
  tag: string;
  data: Uint8Array;
}

/** Returns the font with every glyph padded to an even length and a long 'loca'; other fonts unchanged. */
export function padGlyphsToEvenLength(font: Uint8Array): Uint8Array {
  const view = new DataView(font.buffer, font.byteOffset, font.byteLength);
  const sfntVersion = view.getUint32(0);
  const numTables = view.getUint16(4);
  const tables: Table[] = [];
  for (let index = 0; index < numTables; index += 1) {
    const record = 12 + index * 16;
    const offset = view.getUint32(record + 8);
    const length = view.getUint32(record + 12);
    tables.push({ tag: readTag(view, record), data: font.slice(offset, offset + length) });
  }
  const find = (tag: string) => tables.find((table) => table.tag === tag);
  const head = find('head');
  const maxp = find('maxp');
  const loca = find('loca');
  const glyf = find('glyf');
  if (!head || !maxp || !loca || !glyf) return font; // not a TrueType-outline font: nothing to fix

  const headView = new DataView(head.data.buffer, head.data.byteOffset, head.data.byteLength);
  const longOffsets = headView.getInt16(50) === 1;
  const glyphCount = new DataView(maxp.data.buffer, maxp.data.byteOffset).getUint16(4);
  const locaView = new DataView(loca.data.buffer, loca.data.byteOffset, loca.data.byteLength);
  const offsetOf = (index: number) =>
    longOffsets ? locaView.getUint32(index * 4) : locaView.getUint16(index * 2) * 2;

  const pieces: Uint8Array[] = [];
  const newLoca = new Uint8Array((glyphCount + 1) * 4);
  const newLocaView = new DataView(newLoca.buffer);
  let position = 0;
  for (let index = 0; index < glyphCount; index += 1) {
    const glyph = glyf.data.subarray(offsetOf(index), offsetOf(index + 1));
    newLocaView.setUint32(index * 4, position);
    pieces.push(glyph);
    position += glyph.length;
    if (glyph.length % 2 === 1) {
      pieces.push(new Uint8Array(1));
      position += 1;
    }
  }
  newLocaView.setUint32(glyphCount * 4, position);
  const newGlyf = new Uint8Array(position);
  let cursor = 0;
  for (const piece of pieces) {
    newGlyf.set(piece, cursor);
    cursor += piece.length;
  }
  glyf.data = newGlyf;
  loca.data = newLoca;
  headView.setInt16(50, 1); // indexToLocFormat: long offsets
  headView.setUint32(8, 0); // checkSumAdjustment, computed below

  const headerLength = 12 + numTables * 16;
  let total = headerLength;
  for (const table of tables) total += Math.ceil(table.data.length / 4) * 4;
  const output = new Uint8Array(total);
  const out = new DataView(output.buffer);
  out.setUint32(0, sfntVersion);
  out.setUint16(4, numTables);
  out.setUint16(6, view.getUint16(6));
  out.setUint16(8, view.getUint16(8));
  out.setUint16(10, view.getUint16(10));
  let dataOffset = headerLength;
  let headOffset = 0;
  tables.forEach((table, index) => {
    const record = 12 + index * 16;
    for (let char = 0; char < 4; char += 1) out.setUint8(record + char, table.tag.charCodeAt(char));
    out.setUint32(record + 4, checksum(table.data));
    out.setUint32(record + 8, dataOffset);
    out.setUint32(record + 12, table.data.length);
    output.set(table.data, dataOffset);
    if (table.tag === 'head') headOffset = dataOffset;
    dataOffset += Math.ceil(table.data.length / 4) * 4;
  });
  out.setUint32(headOffset + 8, (0xb1b0afba - checksum(output)) >>> 0);
  return output;
}

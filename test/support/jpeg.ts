// A tiny baseline JPEG built byte by byte, so tests need no image fixture and no encoder: a grey image of
// whole 8 × 8 blocks whose every coefficient is zero (after the decoder's level shift, each pixel is 128).
//
// Structure (every segment is FF xx, then a two-byte big-endian length that counts itself):
//   FF D8                    SOI, start of image
//   FF DB 00 43 00 01×64     DQT: table 0, 8-bit precision, every quantizer 1
//   FF C0 00 0B 08 HH HH WW WW 01 01 11 00
//                            SOF0 (baseline): 8 bits per sample, height, width, one component (id 1,
//                            sampling 1×1, quantization table 0): a greyscale image
//   FF C4 00 14 00 01 00×15 00
//                            DHT: DC table 0 with a single code, length 1 ("0"), for category 0 (difference 0)
//   FF C4 00 14 10 01 00×15 00
//                            DHT: AC table 0 with a single code, length 1 ("0"), for symbol 00 (end of block)
//   FF DA 00 08 01 01 00 00 3F 00
//                            SOS: one component (id 1, DC table 0, AC table 0), spectral selection 0–63
//   …                        entropy-coded data: per block "0" (DC difference 0) then "0" (end of block),
//                            two bits per block, the last byte padded with 1 bits
//   FF D9                    EOI, end of image

/** A grey baseline JPEG of `blocksWide` × `blocksHigh` blocks of 8 × 8 pixels. */
export function encodeGreyJpeg(blocksWide = 2, blocksHigh = 1): Buffer {
  const width = blocksWide * 8;
  const height = blocksHigh * 8;
  const blocks = blocksWide * blocksHigh;
  const bits = 2 * blocks;
  const scan = Buffer.alloc(Math.ceil(bits / 8));
  // All code bits are 0; only the padding after the last block is 1s.
  const padding = scan.length * 8 - bits;
  scan[scan.length - 1] = (1 << padding) - 1;
  const huffmanTable = (tableClass: number) => [
    0xff,
    0xc4,
    0x00,
    0x14,
    tableClass,
    0x01,
    ...Array(15).fill(0),
    0x00,
  ];
  return Buffer.from([
    ...[0xff, 0xd8],
    ...[0xff, 0xdb, 0x00, 0x43, 0x00, ...Array(64).fill(1)],
    ...[
      0xff,
      0xc0,
      0x00,
      0x0b,
      0x08,
      height >> 8,
      height & 0xff,
      width >> 8,
      width & 0xff,
      0x01,
      0x01,
      0x11,
      0x00,
    ],
    ...huffmanTable(0x00),
    ...huffmanTable(0x10),
    ...[0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00],
    ...scan,
    ...[0xff, 0xd9],
  ]);
}

// The files `npm run abuse` and `npm run bench:abuse` send (docs/performance.md, "Abuse"): a PDF compression
// bomb (a few hundred kilobytes whose one content stream inflates to hundreds of megabytes), a PNG whose header
// announces a huge image that inflates to hundreds of megabytes, and a large drawn signature that is allowed.
// Built here, object by object, because no library writes such files on purpose.
import { crc32, deflateSync } from 'node:zlib';

/** A one-page PDF whose page content is `megabytes` MB of zeros, Flate-compressed (about 1 KB per MB). */
export function bombPdf(megabytes: number): Buffer {
  const data = deflateSync(Buffer.alloc(megabytes * 1024 * 1024), { level: 9 });
  const objects: Buffer[] = [
    Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'),
    Buffer.from('<< /Type /Pages /Kids [3 0 R] /Count 1 >>'),
    Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>'),
    Buffer.concat([
      Buffer.from(`<< /Filter /FlateDecode /Length ${data.length} >>\nstream\n`),
      data,
      Buffer.from('\nendstream'),
    ]),
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n')];
  let length = parts[0]?.length ?? 0;
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(length);
    const part = Buffer.concat([Buffer.from(`${index + 1} 0 obj\n`), object, Buffer.from('\nendobj\n')]);
    parts.push(part);
    length += part.length;
  });
  parts.push(
    Buffer.from(
      `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
        offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('') +
        `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`,
    ),
  );
  return Buffer.concat(parts);
}

function chunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/**
 * A valid PNG of `width` × `height` pixels, RGBA at `depth` bits per sample, whose pixels `pixel(x, y)` gives
 * as [r, g, b, a] from 0 to 255 (omitted: all transparent, which compresses about 1,000 to 1). Rows are filtered
 * with "none".
 */
export function rgbaPng(
  width: number,
  height: number,
  depth: 8 | 16,
  pixel?: (x: number, y: number) => [number, number, number, number] | undefined,
): Buffer {
  const bytesPerSample = depth / 8;
  const stride = 1 + width * 4 * bytesPerSample;
  const raw = Buffer.alloc(stride * height);
  if (pixel) {
    for (let y = 0; y < height; y += 1) {
      for (let x = 0; x < width; x += 1) {
        const rgba = pixel(x, y);
        if (!rgba) continue;
        rgba.forEach((value, channel) => {
          const at = y * stride + 1 + (x * 4 + channel) * bytesPerSample;
          raw[at] = value;
          if (bytesPerSample === 2) raw[at + 1] = value;
        });
      }
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([depth, 6, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The image: 6324 × 6324 pixels, 16-bit RGBA, about 311 KB that inflate to 320 MB. */
export function fortyMegapixelPng(): Buffer {
  return rgbaPng(6324, 6324, 16);
}

/** A drawn signature of `width` × `height` pixels: a dark wavy stroke on transparency. */
export function drawnSignaturePng(width: number, height: number): Buffer {
  const amplitude = height / 5;
  const thickness = Math.max(2, height / 40);
  return rgbaPng(width, height, 8, (x, y) =>
    Math.abs(y - height / 2 - Math.sin((x / width) * 12) * amplitude) < thickness
      ? [15, 25, 110, 255]
      : undefined,
  );
}

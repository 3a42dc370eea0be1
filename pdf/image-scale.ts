// Drawn images (signatures, initials, company stamps) are kept no larger than the PDF needs: a PNG larger than
// its bound is decoded (pngjs: every colour type, bit depth and interlacing, 16-bit samples to 8-bit RGBA),
// scaled down by averaging the source pixels each target pixel covers (alpha-weighted, so transparent pixels
// lend no colour to a stroke's edge), and written again as an 8-bit RGBA PNG. Callers check the PNG first
// (pdf/png.ts) and bound its size from its header, so decoding costs at most what they allow; this runs
// on the inspection pool's worker threads, never on the API's event loop.
import { PNG } from 'pngjs';

export interface ScaledPng {
  png: Uint8Array;
  width: number;
  height: number;
  /** Whether the image was scaled (and written again); false: `png` is the input as it was. */
  scaled: boolean;
}

/** The largest size of `width` × `height` that fits `maxWidth` × `maxHeight`, keeping the aspect ratio. */
export function fittedSize(
  width: number,
  height: number,
  maxWidth: number,
  maxHeight: number,
): { width: number; height: number } {
  const factor = Math.min(1, maxWidth / width, maxHeight / height);
  return {
    width: Math.max(1, Math.round(width * factor)),
    height: Math.max(1, Math.round(height * factor)),
  };
}

/**
 * `png` unchanged when it fits `maxWidth` × `maxHeight` pixels, else scaled down to fit (aspect ratio kept).
 * The PNG must have passed inspectPng.
 */
export function scalePngToFit(png: Uint8Array, maxWidth: number, maxHeight: number): ScaledPng {
  const decoded = PNG.sync.read(Buffer.from(png.buffer, png.byteOffset, png.byteLength));
  const target = fittedSize(decoded.width, decoded.height, maxWidth, maxHeight);
  if (target.width === decoded.width && target.height === decoded.height) {
    return { png, width: decoded.width, height: decoded.height, scaled: false };
  }
  const out = new PNG({ width: target.width, height: target.height });
  scaleRgba(decoded.data, decoded.width, decoded.height, out.data, target.width, target.height);
  const written = PNG.sync.write(out, { colorType: 6, inputColorType: 6, bitDepth: 8 });
  return { png: new Uint8Array(written), width: target.width, height: target.height, scaled: true };
}

/**
 * Area-averaging downscale of 8-bit RGBA: each target pixel is the mean of the source area it covers, partial
 * source pixels weighted by how much of them it covers; colour weighted by alpha.
 */
export function scaleRgba(
  source: Uint8Array,
  sourceWidth: number,
  sourceHeight: number,
  target: Uint8Array,
  targetWidth: number,
  targetHeight: number,
): void {
  const xRatio = sourceWidth / targetWidth;
  const yRatio = sourceHeight / targetHeight;
  // Per target column: the source columns it covers and how much of each.
  const columns = Array.from({ length: targetWidth }, (_, tx) => spans(tx * xRatio, (tx + 1) * xRatio));
  for (let ty = 0; ty < targetHeight; ty += 1) {
    const rows = spans(ty * yRatio, (ty + 1) * yRatio);
    for (let tx = 0; tx < targetWidth; tx += 1) {
      let red = 0;
      let green = 0;
      let blue = 0;
      let alpha = 0;
      let area = 0;
      for (const [sy, wy] of rows) {
        for (const [sx, wx] of columns[tx] as [number, number][]) {
          const weight = wx * wy;
          const at = (sy * sourceWidth + sx) * 4;
          const a = (source[at + 3] as number) * weight;
          red += (source[at] as number) * a;
          green += (source[at + 1] as number) * a;
          blue += (source[at + 2] as number) * a;
          alpha += a;
          area += weight;
        }
      }
      const out = (ty * targetWidth + tx) * 4;
      if (alpha > 0) {
        target[out] = Math.round(red / alpha);
        target[out + 1] = Math.round(green / alpha);
        target[out + 2] = Math.round(blue / alpha);
      }
      target[out + 3] = Math.round(alpha / area);
    }
  }
}

/** The source indices in [from, to) with the share of each that the interval covers. */
function spans(from: number, to: number): [number, number][] {
  const result: [number, number][] = [];
  for (let index = Math.floor(from); index < to; index += 1) {
    const covered = Math.min(to, index + 1) - Math.max(from, index);
    if (covered > 0) result.push([index, covered]);
  }
  return result;
}

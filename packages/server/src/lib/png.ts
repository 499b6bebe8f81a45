import { deflateSync, inflateSync } from 'node:zlib';
import type { PdfImage } from './pdf';

/**
 * A PNG image decoded into 8-bit samples for a PDF page (lib/pdf.ts imagePdf): gray or RGB, with any
 * transparency laid over white, since a printed document has no alpha. Non-interlaced PNGs of every
 * colour type and bit depth (16-bit samples keep their high byte); an interlaced one, or one larger
 * than MAX_PNG_PIXELS, is refused with PngError. Decoding is bounded by the declared size, so a small
 * file cannot inflate into more memory than its header announced.
 */

/** The most pixels decoded: 25 megapixels (a 5000 × 5000 screenshot). */
export const MAX_PNG_PIXELS = 25_000_000;

export class PngError extends Error {
  override name = 'PngError';
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** Samples per pixel of each PNG colour type: gray, RGB, palette index, gray+alpha, RGBA. */
const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** Undoes PNG's per-row filters in place; answers the rows without their filter bytes. */
function unfilter(raw: Buffer, height: number, stride: number, bpp: number): Buffer {
  const out = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y += 1) {
    const type = raw[y * (stride + 1)]!;
    const row = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const at = y * stride;
    for (let x = 0; x < stride; x += 1) {
      const left = x >= bpp ? out[at + x - bpp]! : 0;
      const up = y > 0 ? out[at - stride + x]! : 0;
      const upLeft = y > 0 && x >= bpp ? out[at - stride + x - bpp]! : 0;
      const value = row[x]!;
      let predicted: number;
      if (type === 0) predicted = 0;
      else if (type === 1) predicted = left;
      else if (type === 2) predicted = up;
      else if (type === 3) predicted = (left + up) >> 1;
      else if (type === 4) predicted = paeth(left, up, upLeft);
      else throw new PngError(`unknown row filter ${type}`);
      out[at + x] = (value + predicted) & 0xff;
    }
  }
  return out;
}

/**
 * Decodes a PNG file into a PDF image (deflated 8-bit gray or RGB samples).
 * @example imagePdf(pngToPdfImage(readFileSync('screenshot.png')))
 */
export function pngToPdfImage(file: Buffer): PdfImage {
  if (file.length < 8 || !file.subarray(0, 8).equals(SIGNATURE)) throw new PngError('not a PNG file');
  let header: { width: number; height: number; depth: number; colorType: number; interlace: number } | undefined;
  let palette: Buffer | undefined;
  let transparency: Buffer | undefined;
  const data: Buffer[] = [];
  for (let at = 8; at + 8 <= file.length; ) {
    const length = file.readUInt32BE(at);
    const type = file.toString('latin1', at + 4, at + 8);
    const body = file.subarray(at + 8, at + 8 + length);
    if (body.length !== length) throw new PngError('truncated chunk');
    if (type === 'IHDR') header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8]!, colorType: body[9]!, interlace: body[12]! };
    else if (type === 'PLTE') palette = body;
    else if (type === 'tRNS') transparency = body;
    else if (type === 'IDAT') data.push(body);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  if (!header) throw new PngError('no IHDR chunk');
  const { width, height, depth, colorType } = header;
  const channels = CHANNELS[colorType];
  if (!channels || ![1, 2, 4, 8, 16].includes(depth)) throw new PngError(`colour type ${colorType} at ${depth} bits is not a PNG format`);
  if (header.interlace !== 0) throw new PngError('interlaced PNGs are not supported; save it without interlacing');
  if (width === 0 || height === 0 || width * height > MAX_PNG_PIXELS) throw new PngError(`${width} × ${height} pixels is outside what can be converted (at most ${MAX_PNG_PIXELS})`);
  if (colorType === 3 && !palette) throw new PngError('a palette image without its palette');
  const stride = Math.ceil((width * channels * depth) / 8);
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(data), { maxOutputLength: (stride + 1) * height });
  } catch (error) {
    throw new PngError(`its image data does not decompress: ${(error as Error).message}`);
  }
  if (raw.length < (stride + 1) * height) throw new PngError('its image data is shorter than its size');
  const rows = unfilter(raw, height, stride, Math.max(1, (channels * depth) >> 3));

  const maxSample = (1 << Math.min(depth, 8)) - 1;
  /** The n-th sample of a row, scaled to 8 bits (16-bit samples keep their high byte). */
  const sample = (rowAt: number, n: number): number => {
    if (depth === 8) return rows[rowAt + n]!;
    if (depth === 16) return rows[rowAt + 2 * n]!;
    const bit = n * depth;
    const value = (rows[rowAt + (bit >> 3)]! >> (8 - depth - (bit & 7))) & maxSample;
    return colorType === 3 ? value : Math.round((value * 255) / maxSample);
  };
  const gray = colorType === 0 || colorType === 4;
  const out = Buffer.alloc(width * height * (gray ? 1 : 3));
  const over = (value: number, alpha: number) => Math.round((value * alpha + 255 * (255 - alpha)) / 255);
  let o = 0;
  for (let y = 0; y < height; y += 1) {
    const rowAt = y * stride;
    for (let x = 0; x < width; x += 1) {
      const first = x * channels;
      if (colorType === 3) {
        const index = sample(rowAt, first);
        const alpha = transparency && index < transparency.length ? transparency[index]! : 255;
        for (let c = 0; c < 3; c += 1) out[o++] = over(palette![index * 3 + c] ?? 0, alpha);
      } else if (gray) {
        out[o++] = over(sample(rowAt, first), colorType === 4 ? sample(rowAt, first + 1) : 255);
      } else {
        const alpha = colorType === 6 ? sample(rowAt, first + 3) : 255;
        for (let c = 0; c < 3; c += 1) out[o++] = over(sample(rowAt, first + c), alpha);
      }
    }
  }
  return { width, height, colorSpace: gray ? 'DeviceGray' : 'DeviceRGB', deflated: deflateSync(out) };
}

import { crc32, deflateSync } from 'node:zlib';

/**
 * A PNG file made for tests, written from the PNG specification: 8-bit RGBA (colour type 6) or gray
 * (colour type 0) pixels, each row with the filter given (cycling 0–4 by default, so a decoder's five
 * filters are all exercised).
 * @example pngFile(2, 1, [255, 0, 0, 255, 0, 0, 255, 128]) // a red and a half-transparent blue pixel
 */
export function pngFile(width: number, height: number, samples: readonly number[], options: { gray?: boolean; filters?: readonly number[] } = {}): Buffer {
  const channels = options.gray ? 1 : 4;
  const stride = width * channels;
  const pixels = Buffer.from(samples);
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y += 1) {
    const filter = options.filters?.[y % options.filters.length] ?? y % 5;
    const row = Buffer.alloc(stride + 1);
    row[0] = filter;
    for (let x = 0; x < stride; x += 1) {
      const value = pixels[y * stride + x]!;
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const upLeft = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels]! : 0;
      const p = left + up - upLeft;
      const paeth = Math.abs(p - left) <= Math.abs(p - up) && Math.abs(p - left) <= Math.abs(p - upLeft) ? left : Math.abs(p - up) <= Math.abs(p - upLeft) ? up : upLeft;
      const predicted = [0, left, up, (left + up) >> 1, paeth][filter]!;
      row[x + 1] = (value - predicted) & 0xff;
    }
    rows.push(row);
  }
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8;
  header[9] = options.gray ? 0 : 6;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

import { describe, it, expect } from 'vitest';
import { BrCodeError, generateBrCode } from './br-code';
import { renderBrCodeSvg } from './qr';

const BCB_STATIC =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR' +
  '5913Fulano de Tal6008BRASILIA62070503***63041D3D';

/**
 * Rebuilds the module matrix from the SVG: the dark path is a list of horizontal runs written with the
 * commands M (absolute move), m (relative move) and h (horizontal run), each row drawn at y + 0.5.
 */
function readMatrix(svg: string, margin: number): boolean[][] {
  const viewBox = /viewBox="0 0 (\d+) (\d+)"/.exec(svg);
  const dark = /<path stroke="#000000" d="([^"]+)"/.exec(svg);
  if (!viewBox || !dark?.[1]) throw new Error('unexpected SVG shape');
  const total = Number(viewBox[1]);
  const size = total - 2 * margin;
  const matrix = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  let x = 0;
  let y = 0;
  for (const [, command, args] of dark[1].matchAll(/([Mmh])([^Mmh]+)/g)) {
    const numbers = (args ?? '').trim().split(/[\s,]+/).map(Number);
    if (command === 'M') [x, y] = [numbers[0] ?? 0, numbers[1] ?? 0];
    else if (command === 'm') [x, y] = [x + (numbers[0] ?? 0), y + (numbers[1] ?? 0)];
    else {
      const run = numbers[0] ?? 0;
      const row = matrix[Math.floor(y) - margin];
      for (let i = 0; i < run; i += 1) if (row) row[x + i - margin] = true;
      x += run;
    }
  }
  return matrix;
}

/** Reads both copies of the 15-bit format information as placed by ISO/IEC 18004 (bit 14 first). */
function formatInfo(m: boolean[][]): [number, number] {
  const size = m.length;
  const at = (row: number, col: number) => (m[row]?.[col] ? 1 : 0);
  const first = [
    ...[0, 1, 2, 3, 4, 5].map((col) => at(8, col)), // bits 14..9
    at(8, 7), // bit 8
    at(8, 8), // bit 7
    at(7, 8), // bit 6
    ...[5, 4, 3, 2, 1, 0].map((row) => at(row, 8)), // bits 5..0
  ];
  const second = [
    ...[1, 2, 3, 4, 5, 6, 7].map((k) => at(size - k, 8)), // bits 14..8, bottom-left column
    ...[8, 7, 6, 5, 4, 3, 2, 1].map((k) => at(8, size - k)), // bits 7..0, top-right row
  ];
  const toNumber = (bits: number[]) => bits.reduce((n, b) => n * 2 + b, 0);
  return [toNumber(first), toNumber(second)];
}

/** Remainder of the BCH(15,5) code with generator x^10 + x^8 + x^5 + x^4 + x^2 + x + 1. */
function bchRemainder(value: number): number {
  let v = value;
  for (let bit = 14; bit >= 10; bit -= 1) if (v & (1 << bit)) v ^= 0x537 << (bit - 10);
  return v;
}

describe('renderBrCodeSvg', () => {
  it("renders the Central Bank's example as an SVG symbol with error correction level M", async () => {
    const svg = await renderBrCodeSvg(BCB_STATIC);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);

    const matrix = readMatrix(svg, 4);
    const size = matrix.length;
    expect((size - 17) % 4).toBe(0);
    const version = (size - 17) / 4;
    expect(version).toBeGreaterThanOrEqual(1);

    // Finder pattern corners are dark; the "dark module" the standard fixes at (4v + 9, 8) is dark.
    expect(matrix[0]?.[0]).toBe(true);
    expect(matrix[0]?.[size - 1]).toBe(true);
    expect(matrix[size - 1]?.[0]).toBe(true);
    expect(matrix[4 * version + 9]?.[8]).toBe(true);

    const [first, second] = formatInfo(matrix);
    expect(first).toBe(second);
    const unmasked = first ^ 0b101010000010010;
    expect(bchRemainder(unmasked)).toBe(0); // a real format word, so the positions above were read right
    expect(unmasked >> 13).toBe(0b00); // error correction level M
  });

  it('scales to a requested width and margin', async () => {
    const svg = await renderBrCodeSvg(BCB_STATIC, { width: 300, margin: 2 });
    expect(svg).toContain('width="300"');
    const matrix = readMatrix(svg, 2);
    expect(matrix[0]?.[0]).toBe(true);
    expect(matrix[0]?.slice(0, 7).every(Boolean)).toBe(true); // top edge of the finder pattern
  });

  it('renders generated codes too', async () => {
    const payload = generateBrCode({
      location: 'pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca25',
      merchantName: 'Colibri',
      merchantCity: 'Curitiba',
      amount: '1500.00',
    });
    const matrix = readMatrix(await renderBrCodeSvg(payload), 4);
    const [first] = formatInfo(matrix);
    expect((first ^ 0b101010000010010) >> 13).toBe(0b00);
  });

  it('refuses to draw an invalid BR Code', async () => {
    await expect(renderBrCodeSvg(`${BCB_STATIC.slice(0, -1)}E`)).rejects.toBeInstanceOf(BrCodeError);
    await expect(renderBrCodeSvg('hello')).rejects.toBeInstanceOf(BrCodeError);
  });

  it('refuses silly options', async () => {
    await expect(renderBrCodeSvg(BCB_STATIC, { margin: -1 })).rejects.toBeInstanceOf(RangeError);
    await expect(renderBrCodeSvg(BCB_STATIC, { width: 0 })).rejects.toBeInstanceOf(RangeError);
  });
});

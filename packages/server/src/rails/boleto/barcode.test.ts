import { describe, it, expect } from 'vitest';
import { renderBoletoBarcodeSvg } from './barcode';
import { BoletoError, buildSandboxBoleto } from './boleto';

// Banco do Brasil's published example barcode (R$ 1,00 due 2007-12-31).
const BB_BARCODE = '00193373700000001000500940144816060680935031';

// Interleaved 2 of 5 digit patterns (N = narrow, W = wide), from the symbology's definition: each digit is
// five elements, two of them wide. Written out here so the decoder below does not depend on bwip-js.
const PATTERNS: Record<string, string> = {
  NNWWN: '0',
  WNNNW: '1',
  NWNNW: '2',
  WWNNN: '3',
  NNWNW: '4',
  WNWNN: '5',
  NWWNN: '6',
  NNNWW: '7',
  WNNWN: '8',
  NWNWN: '9',
};

interface Bar {
  start: number;
  end: number;
}

/** Reads the bars from bwip-js's SVG: vertical strokes, each path with one stroke width. */
function readBars(svg: string): Bar[] {
  const bars: Bar[] = [];
  for (const [, width, d] of svg.matchAll(/<path stroke="#000000" stroke-width="([\d.]+)" d="([^"]+)"/g)) {
    for (const [, x] of (d ?? '').matchAll(/M([\d.]+) [\d.]+L[\d.]+ [\d.]+/g)) {
      const w = Number(width);
      bars.push({ start: Number(x) - w / 2, end: Number(x) + w / 2 });
    }
  }
  return bars.sort((a, b) => a.start - b.start);
}

/** Decodes Interleaved 2 of 5 from the bars: start NNNN, digit pairs interleaving bars and spaces, stop WNN. */
function decodeInterleaved2of5(bars: Bar[]): { digits: string; narrow: number; wide: number } {
  const widths: number[] = [];
  bars.forEach((bar, i) => {
    widths.push(bar.end - bar.start);
    const following = bars[i + 1];
    if (following) widths.push(following.start - bar.end);
  });
  const narrow = Math.min(...widths);
  const wide = Math.max(...widths);
  const kinds = widths.map((w) => (w > (narrow + wide) / 2 ? 'W' : 'N')).join('');
  if (!kinds.startsWith('NNNN') || !kinds.endsWith('WNN')) throw new Error(`bad start or stop: ${kinds}`);
  const body = kinds.slice(4, -3);
  if (body.length % 10 !== 0) throw new Error('body is not made of digit pairs');
  let digits = '';
  for (let i = 0; i < body.length; i += 10) {
    const pair = body.slice(i, i + 10);
    const first = [0, 2, 4, 6, 8].map((k) => pair[k]).join(''); // bars
    const second = [1, 3, 5, 7, 9].map((k) => pair[k]).join(''); // spaces
    const a = PATTERNS[first];
    const b = PATTERNS[second];
    if (a === undefined || b === undefined) throw new Error(`unknown pattern ${first}/${second}`);
    digits += a + b;
  }
  return { digits, narrow, wide };
}

describe('renderBoletoBarcodeSvg', () => {
  it('draws bars that decode, independently of bwip-js, to the 44 digits', () => {
    const svg = renderBoletoBarcodeSvg(BB_BARCODE);
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    const { digits, narrow, wide } = decodeInterleaved2of5(readBars(svg));
    expect(digits).toBe(BB_BARCODE);
    expect(wide / narrow).toBe(3);
  });

  it('sets the printed size: 0.25 mm narrow bars, 13 mm high, 10-module margins by default', () => {
    const svg = renderBoletoBarcodeSvg(BB_BARCODE);
    // 405 modules (4 start + 44 x 9 + 5 stop) plus 2 x 10 of margin, at 0.25 mm each.
    expect(svg).toContain('width="106.25mm"');
    expect(svg).toContain('height="13mm"');
    const custom = renderBoletoBarcodeSvg(BB_BARCODE, { narrowBarMm: 0.33, heightMm: 15, quietZoneModules: 0 });
    expect(custom).toContain('width="133.65mm"');
    expect(custom).toContain('height="15mm"');
    expect(decodeInterleaved2of5(readBars(custom)).digits).toBe(BB_BARCODE);
  });

  it('renders sandbox boletos too', () => {
    const { barcode } = buildSandboxBoleto({ agreement: '1234567', sequence: 7, dueDate: '2026-08-31', amountCents: 1 });
    expect(decodeInterleaved2of5(readBars(renderBoletoBarcodeSvg(barcode))).digits).toBe(barcode);
  });

  it('refuses anything but a valid barcode', () => {
    expect(() => renderBoletoBarcodeSvg('00193373700000001000500940144816060680935032')).toThrow(BoletoError);
    expect(() => renderBoletoBarcodeSvg('123')).toThrow(BoletoError);
    expect(() => renderBoletoBarcodeSvg(`${BB_BARCODE.slice(0, 43)}a`)).toThrow(BoletoError);
  });

  it('refuses silly sizes', () => {
    expect(() => renderBoletoBarcodeSvg(BB_BARCODE, { narrowBarMm: 0 })).toThrow(RangeError);
    expect(() => renderBoletoBarcodeSvg(BB_BARCODE, { heightMm: -1 })).toThrow(RangeError);
    expect(() => renderBoletoBarcodeSvg(BB_BARCODE, { quietZoneModules: 1.5 })).toThrow(RangeError);
  });
});

// Renders a boleto's 44-digit barcode as an Interleaved 2 of 5 SVG for a printable page.

// The 'bwip-js/node' entry is imported explicitly: the package's root export offers types only under
// environment conditions ('node', 'browser', ...) that TypeScript's bundler resolution does not apply.
import bwipjs from 'bwip-js/node';
import { BoletoError, isValidBarcode } from './boleto';

/** Physical size of the printed barcode. */
export interface BoletoBarcodeSvgOptions {
  /** Width of a narrow bar in millimetres; wide bars are three times as wide. Defaults to 0.25 mm. */
  readonly narrowBarMm?: number;
  /** Bar height in millimetres. Defaults to 13 mm. */
  readonly heightMm?: number;
  /** Blank margin left and right, in narrow-bar widths, so scanners find the edges. Defaults to 10. */
  readonly quietZoneModules?: number;
}

// bwip-js draws one narrow bar as `SCALE` SVG units; any integer works, since the width and height attributes
// added below fix the printed size.
const SCALE = 2;

/**
 * Renders a valid 44-digit boleto barcode as an Interleaved 2 of 5 SVG with physical width and height
 * attributes in millimetres. bwip-js's Interleaved 2 of 5 already uses wide bars three times the narrow ones,
 * the ratio boleto specifications ask for, and adds no check character of its own. The defaults (0.25 mm
 * narrow bar, 13 mm high) are the dimensions bank boleto manuals give, about 101 mm long plus margins.
 *
 * @example
 * const svg = renderBoletoBarcodeSvg('00193373700000001000500940144816060680935031');
 * svg.startsWith('<svg'); // true
 */
export function renderBoletoBarcodeSvg(barcode: string, options: BoletoBarcodeSvgOptions = {}): string {
  if (!isValidBarcode(barcode)) throw new BoletoError('Not a valid 44-digit boleto barcode');
  const narrowBarMm = options.narrowBarMm ?? 0.25;
  const heightMm = options.heightMm ?? 13;
  const quietZone = options.quietZoneModules ?? 10;
  if (!(narrowBarMm > 0 && narrowBarMm <= 2)) throw new RangeError('narrowBarMm must be in (0, 2]');
  if (!(heightMm > 0 && heightMm <= 100)) throw new RangeError('heightMm must be in (0, 100]');
  if (!Number.isInteger(quietZone) || quietZone < 0 || quietZone > 50) {
    throw new RangeError('quietZoneModules must be an integer from 0 to 50');
  }

  const svg = bwipjs.toSVG({
    bcid: 'interleaved2of5',
    text: barcode,
    includecheck: false,
    includetext: false,
    height: heightMm,
    scale: SCALE,
    paddingleft: quietZone,
    paddingright: quietZone,
  });

  const viewBox = /viewBox="0 0 (\d+(?:\.\d+)?) (\d+(?:\.\d+)?)"/.exec(svg);
  if (!viewBox) throw new Error('bwip-js returned an SVG without the expected viewBox');
  const widthMm = (Number(viewBox[1]) / SCALE) * narrowBarMm;
  // preserveAspectRatio="none" lets the bar width and the bar height be set independently, which is what
  // a print specification gives.
  return svg.replace(
    '<svg ',
    `<svg width="${round(widthMm)}mm" height="${round(heightMm)}mm" preserveAspectRatio="none" `,
  );
}

function round(n: number): string {
  return String(Math.round(n * 1000) / 1000);
}

// Renders a PIX BR Code as an SVG QR code for a server-rendered page.

import QRCode from 'qrcode';
import { parseBrCode } from './br-code';

/** Options for `renderBrCodeSvg`. */
export interface BrCodeSvgOptions {
  /** Quiet zone around the symbol, in modules; the QR standard asks for 4, the default. */
  readonly margin?: number;
  /** Rendered width in pixels; when omitted the SVG has only a viewBox and scales with its container. */
  readonly width?: number;
}

/**
 * Renders a BR Code to an SVG string, with error correction level M (about 15% of the symbol may be damaged
 * and still read), the usual trade-off for codes shown on screens and printed receipts. The payload is
 * checked with `parseBrCode` first (throwing `BrCodeError`), so a broken code is never drawn for a payer
 * to scan.
 *
 * @example
 * const svg = await renderBrCodeSvg(generateBrCode({ key: 'k@example.com', merchantName: 'X', merchantCity: 'Y' }));
 * svg.startsWith('<svg'); // true
 */
export async function renderBrCodeSvg(payload: string, options: BrCodeSvgOptions = {}): Promise<string> {
  parseBrCode(payload);
  const margin = options.margin ?? 4;
  if (!Number.isInteger(margin) || margin < 0 || margin > 16) {
    throw new RangeError(`margin must be an integer from 0 to 16, got ${margin}`);
  }
  if (options.width !== undefined && (!Number.isInteger(options.width) || options.width < 1)) {
    throw new RangeError(`width must be a positive integer, got ${options.width}`);
  }
  return QRCode.toString(payload, {
    type: 'svg',
    errorCorrectionLevel: 'M',
    margin,
    ...(options.width !== undefined ? { width: options.width } : {}),
    color: { dark: '#000000', light: '#ffffff' },
  });
}

/**
 * Cash vouchers for OXXO and PAYNET: the reference a cashier types or scans, and the Code 128 barcode that
 * carries it. Pure functions, no I/O (the SVG is drawn by bwip-js).
 *
 * A sandbox reference is 14 digits: a 2-digit network prefix (`93` OXXO, `94` PAYNET), an 11-digit sequence
 * and a Luhn check digit, so a mistyped digit is caught before a voucher is looked up. Real networks issue
 * their own references through the acquirer; these are well formed but no store knows them.
 */
// The 'bwip-js/node' entry is imported explicitly, as in rails/boleto/barcode.ts.
import bwipjs from 'bwip-js/node';

export type CashNetwork = 'OXXO' | 'PAYNET';

const PREFIX: Readonly<Record<CashNetwork, string>> = { OXXO: '93', PAYNET: '94' };
const SEQUENCE_DIGITS = 11;

/**
 * The Luhn check digit of a string of digits (the digit to append).
 * @example luhnCheckDigit('9300000000001') // 6
 */
export function luhnCheckDigit(digits: string): number {
  if (!/^\d+$/.test(digits)) throw new RangeError('A Luhn check digit is computed from digits only');
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let n = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 0) n *= 2;
    sum += n > 9 ? n - 9 : n;
  }
  return (10 - (sum % 10)) % 10;
}

/**
 * The 14-digit voucher reference of the `sequence`th voucher of a network.
 * @throws {RangeError} when the sequence is not a positive integer of at most 11 digits.
 * @example cashVoucherReference('OXXO', 1n) // '93000000000016'
 */
export function cashVoucherReference(network: CashNetwork, sequence: bigint): string {
  if (sequence < 1n || sequence >= 10n ** BigInt(SEQUENCE_DIGITS)) throw new RangeError('The voucher sequence must be 1 to 11 digits');
  const body = PREFIX[network] + sequence.toString().padStart(SEQUENCE_DIGITS, '0');
  return body + String(luhnCheckDigit(body));
}

/**
 * Checks a voucher reference: 14 digits, a known prefix and a matching check digit.
 * @example isValidCashVoucherReference('93000000000016') // true
 */
export function isValidCashVoucherReference(reference: string): boolean {
  if (!/^\d{14}$/.test(reference)) return false;
  if (!Object.values(PREFIX).includes(reference.slice(0, 2))) return false;
  return luhnCheckDigit(reference.slice(0, 13)) === Number(reference[13]);
}

/**
 * The voucher's Code 128 barcode as SVG: the reference itself, the way store scanners read it.
 * @example renderCashVoucherBarcodeSvg('93000000000016').startsWith('<svg') // true
 */
export function renderCashVoucherBarcodeSvg(reference: string): string {
  if (!isValidCashVoucherReference(reference)) throw new RangeError('Not a valid voucher reference');
  return bwipjs.toSVG({ bcid: 'code128', text: reference, scale: 2, height: 12, includetext: false, paddingwidth: 10 });
}

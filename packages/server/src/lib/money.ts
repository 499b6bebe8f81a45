/**
 * Money inside Colibri is an integer number of minor units (`bigint`); the API speaks decimal strings
 * (or JSON numbers, read through their shortest decimal form). This module is the one place that converts
 * between the two, so no float ever enters a sum: payments, checkout, subscriptions, capture, refunds
 * (through pricing/) and payouts read amounts with `readDecimal` and `toMinorUnits`. Which currencies
 * exist, their exponents and the API's amount rules are pricing/'s.
 */

/** A plain decimal read exactly from its text. */
export interface DecimalParts {
  readonly negative: boolean;
  /** The digits before the point, as written (leading zeros kept). */
  readonly whole: string;
  /** The digits after the point without their trailing zeros, so `1.50` has one decimal and `1.00` none. */
  readonly fraction: string;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * Reads `[-]digits[.digits]`; anything else (exponent notation, a `+`, spaces, grouping separators, a
 * bare point) is not a decimal and gives `undefined`.
 * @example readDecimal('-1500.50') // { negative: true, whole: '1500', fraction: '5' }
 * @example readDecimal('1e3')      // undefined
 */
export function readDecimal(text: string): DecimalParts | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  return { negative: match[1] === '-', whole: match[2] ?? '0', fraction: (match[3] ?? '').replace(/0+$/, '') };
}

/** Amounts above this many minor units are refused: far beyond any real payment, safe in a JS number. */
export const MAX_AMOUNT_MINOR = 10n ** 15n;

/** The most digits before the point an amount may be written with, leading zeros included. */
export const MAX_WHOLE_DIGITS = 16;

/**
 * The decimal in minor units of `exponent` decimals, or `undefined` when it is larger than
 * MAX_AMOUNT_MINOR or written with more than MAX_WHOLE_DIGITS whole digits. The caller has checked
 * that it has at most `exponent` decimals.
 * @example toMinorUnits({ negative: false, whole: '10', fraction: '5' }, 2) // 1050n
 */
export function toMinorUnits(parts: DecimalParts, exponent: number): bigint | undefined {
  if (parts.fraction.length > exponent) throw new RangeError(`${parts.whole}.${parts.fraction} has more than ${exponent} decimals`);
  if (parts.whole.length > MAX_WHOLE_DIGITS) return undefined;
  const minor = BigInt(parts.whole) * 10n ** BigInt(exponent) + BigInt(parts.fraction.padEnd(exponent, '0') || '0');
  if (minor > MAX_AMOUNT_MINOR) return undefined;
  return parts.negative ? -minor : minor;
}

export type ParseAmountResult =
  | { ok: true; minor: bigint }
  | { ok: false; reason: 'NOT_A_DECIMAL' | 'TOO_MANY_DECIMALS' | 'TOO_LARGE' };

/**
 * Parses a non-negative decimal amount given as a string or a JSON number into minor units of
 * `exponent` decimals. Numbers are read through `String(n)`, which is their shortest exact decimal form;
 * strings are trimmed. Exponent notation, signs, more than MAX_WHOLE_DIGITS whole digits, and more
 * decimals than `maxDecimals` (or the exponent) are refused.
 * @example parseAmount('10.5', 2) // { ok: true, minor: 1050n }
 * @example parseAmount(0.1, 2)    // { ok: true, minor: 10n }
 */
export function parseAmount(input: string | number, exponent: number, maxDecimals = exponent): ParseAmountResult {
  const text = typeof input === 'number' ? (Number.isFinite(input) ? String(input) : '') : input.trim();
  const parts = readDecimal(text);
  if (!parts || parts.negative || parts.whole.length > MAX_WHOLE_DIGITS) return { ok: false, reason: 'NOT_A_DECIMAL' };
  if (parts.fraction.length > maxDecimals || parts.fraction.length > exponent) return { ok: false, reason: 'TOO_MANY_DECIMALS' };
  const minor = toMinorUnits(parts, exponent);
  if (minor === undefined) return { ok: false, reason: 'TOO_LARGE' };
  return { ok: true, minor };
}

/**
 * Formats minor units as a decimal string with exactly `exponent` decimals.
 * @example formatAmount(1050n, 2) // '10.50'
 */
export function formatAmount(minor: bigint, exponent: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(exponent + 1, '0');
  const whole = exponent === 0 ? digits : digits.slice(0, -exponent);
  const fraction = exponent === 0 ? '' : `.${digits.slice(-exponent)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/**
 * Minor units as a JSON number for the spec's fields typed `float`. The value is produced from the exact
 * decimal string, so it is the closest double to the exact amount and prints back as that decimal.
 * @example toJsonNumber(1050n, 2) // 10.5
 */
export function toJsonNumber(minor: bigint, exponent: number): number {
  return Number(formatAmount(minor, exponent));
}

/**
 * Applies a rate given in parts per million (1/1,000,000) with half-up rounding,
 * using integers only.
 * @example applyPpm(1000n, 25_000n) // 25n (2.5% of 10.00 is 0.25)
 */
export function applyPpm(minor: bigint, ppm: bigint): bigint {
  return (minor * ppm + 500_000n) / 1_000_000n;
}

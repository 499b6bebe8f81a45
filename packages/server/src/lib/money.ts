/**
 * Money inside Colibri is an integer number of minor units (`bigint`), tagged with its ISO 4217
 * currency. The API speaks decimal strings (or JSON numbers, read through their shortest decimal
 * form); this module is the only place that converts between the two, so no float ever enters a sum.
 */

/** ISO 4217 minor-unit exponents of the currencies Colibri handles. */
export const CURRENCY_EXPONENTS = {
  BRL: 2,
  USD: 2,
  EUR: 2,
  MXN: 2,
  ARS: 2,
  COP: 2,
  PEN: 2,
  CLP: 0,
} as const satisfies Record<string, number>;

export type Currency = keyof typeof CURRENCY_EXPONENTS;

export function isCurrency(code: string): code is Currency {
  return Object.prototype.hasOwnProperty.call(CURRENCY_EXPONENTS, code);
}

export type ParseAmountResult =
  | { ok: true; minor: bigint }
  | { ok: false; reason: 'NOT_A_DECIMAL' | 'TOO_MANY_DECIMALS' | 'TOO_LARGE' };

/** Amounts above this many minor units are refused: far beyond any real payment, safe in a JS number. */
export const MAX_AMOUNT_MINOR = 10n ** 15n;

/**
 * Parses a decimal amount given as a string or a JSON number into minor units of `exponent` decimals.
 * Numbers are read through `String(n)`, which is their shortest exact decimal form; exponent
 * notation, signs, and more decimals than `maxDecimals` are refused.
 * @example parseAmount('10.5', 2) // { ok: true, minor: 1050n }
 * @example parseAmount(0.1, 2)    // { ok: true, minor: 10n }
 */
export function parseAmount(input: string | number, exponent: number, maxDecimals = exponent): ParseAmountResult {
  const text = typeof input === 'number' ? (Number.isFinite(input) ? String(input) : '') : input.trim();
  const match = /^(\d{1,16})(?:\.(\d+))?$/.exec(text);
  if (!match) return { ok: false, reason: 'NOT_A_DECIMAL' };
  const whole = match[1] ?? '0';
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > maxDecimals || fraction.length > exponent) return { ok: false, reason: 'TOO_MANY_DECIMALS' };
  const minor = BigInt(whole) * 10n ** BigInt(exponent) + BigInt(fraction.padEnd(exponent, '0') || '0');
  if (minor > MAX_AMOUNT_MINOR) return { ok: false, reason: 'TOO_LARGE' };
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

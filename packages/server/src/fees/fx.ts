import type { Db } from '../db/database';
import { CURRENCY_EXPONENTS, type Currency } from '../lib/currencies';
import { formatDate } from '../lib/time-format';

/**
 * Currency conversion at stored rates. Rates are kept as decimal strings of BRL per unit and applied
 * with integer arithmetic: the rate is scaled to an integer with RATE_SCALE digits, the product is
 * rounded half-up once, at the end.
 */
const RATE_DIGITS = 10;

export interface FxQuote {
  readonly originalCurrency: string;
  readonly counterCurrency: string;
  /** The rate applied, as a decimal string (counter units per original unit). */
  readonly rate: string;
  /** yyyy-MM-dd of the rate. */
  readonly rateDate: string;
  readonly convertedMinor: bigint;
}

export class MissingRateError extends Error {}

function scaled(decimal: string): bigint {
  const [whole = '0', fraction = ''] = decimal.split('.');
  return BigInt(whole) * 10n ** BigInt(RATE_DIGITS) + BigInt((fraction + '0'.repeat(RATE_DIGITS)).slice(0, RATE_DIGITS) || '0');
}

function unscaled(value: bigint): string {
  const digits = value.toString().padStart(RATE_DIGITS + 1, '0');
  const text = `${digits.slice(0, -RATE_DIGITS)}.${digits.slice(-RATE_DIGITS)}`.replace(/0+$/, '').replace(/\.$/, '');
  return text;
}

/** Rounds numerator/denominator half-up for non-negative integers. */
function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator * 2n + denominator) / (denominator * 2n);
}

async function brlPerUnit(db: Db, currency: string): Promise<{ rate: bigint; asOf: Date }> {
  if (currency === 'BRL') return { rate: 10n ** BigInt(RATE_DIGITS), asOf: new Date() };
  const row = await db.selectFrom('fx_rates').selectAll().where('currency', '=', currency).executeTakeFirst();
  if (!row) throw new MissingRateError(`no FX rate for ${currency}`);
  return { rate: scaled(row.brl_per_unit), asOf: new Date(row.as_of) };
}

/**
 * Converts an amount between two currencies through their BRL rates.
 * @example await convert(db, 1000n, 'USD', 'BRL') // { rate: '5.3412', convertedMinor: 5341n, … }
 */
export async function convert(db: Db, amountMinor: bigint, from: Currency, to: Currency): Promise<FxQuote> {
  const source = await brlPerUnit(db, from);
  const target = await brlPerUnit(db, to);
  const scale = 10n ** BigInt(RATE_DIGITS);
  // rate (to per from) = source / target, kept at RATE_DIGITS digits for display.
  const rate = divideHalfUp(source.rate * scale, target.rate);
  const exponentShift = CURRENCY_EXPONENTS[to] - CURRENCY_EXPONENTS[from];
  const numerator = amountMinor * source.rate * (exponentShift >= 0 ? 10n ** BigInt(exponentShift) : 1n);
  const denominator = target.rate * (exponentShift < 0 ? 10n ** BigInt(-exponentShift) : 1n);
  const asOf = from === 'BRL' ? target.asOf : source.asOf;
  return {
    originalCurrency: from,
    counterCurrency: to,
    rate: unscaled(rate),
    rateDate: formatDate(asOf),
    convertedMinor: divideHalfUp(numerator, denominator),
  };
}

import type { Db } from '../db/database';
import { convert, type FxQuote } from '../fees/fx';
import type { ErrorKey } from '../http/errors';
import { formatAmount, parseAmount, type ParseAmountResult } from '../lib/money';
import { CURRENCIES, exponentOf, isCurrency, type Currency } from '../lib/currencies';

/**
 * The API's rules for a price: the `amount` and `asset` of a card payment (`sendPayment`), a checkout
 * session, a subscription or a charge, and the amount of a capture or a refund. Each caller reports the
 * failures in its own field order and under its own field names; the rules and their codes are these:
 * - the asset is one of Colibri's currencies (00.04.0003), case-insensitive;
 * - the amount is a plain decimal (00.01.0003) with at most two decimals whatever the currency
 *   (00.01.0044; fewer where the currency has fewer, so a CLP amount has none), below the bound of
 *   lib/money.ts (00.01.0006);
 * - converted into the currency it is charged in, it is at least 1.00 of that currency (00.04.0002).
 */

/** An amount in the API has at most this many decimals, whatever its currency. */
export const API_MAX_DECIMALS = 2;

/** One refused field, as ApiError.fields takes it. */
export interface PriceFailure {
  readonly key: ErrorKey;
  readonly description: string;
}

/** How a caller names its fields and words the failures of the amount's form. */
export interface PriceWording {
  /** The amount's field, as descriptions start: `amount`, `payment.amount`. */
  readonly amountField: string;
  /** The asset's field: `asset`, `payment.asset`. */
  readonly assetField?: string;
  /** What a well-formed amount is, ending the format failure: `a decimal number such as "10.50"`. */
  readonly format: string;
  /**
   * The bound's name, ending the too-large failure (00.01.0006): `the maximum payment`. Without it a
   * too-large amount is reported as a malformed one, as capture and refunds do (their amounts are then
   * checked against the payment's).
   */
  readonly largest?: string;
}

/** A price read by the API's rules; the failures are the caller's to report in its field order. */
export interface PriceReading {
  /** The asset as one of Colibri's currencies, if it is one. */
  readonly currency: Currency | undefined;
  /** The amount in minor units of `currency` (of two decimals while the currency is unknown). */
  readonly amount: ParseAmountResult;
  readonly assetFailure: PriceFailure | undefined;
  readonly amountFailure: PriceFailure | undefined;
}

/**
 * Reads an `amount` and `asset` pair.
 * @example const price = readPrice('10.50', 'usd', { amountField: 'amount', assetField: 'asset', format: 'a decimal number', largest: 'the maximum payment' });
 * // price.currency === 'USD', price.amount = { ok: true, minor: 1050n }
 */
export function readPrice(amount: string | number, asset: string, wording: PriceWording): PriceReading {
  const code = asset.toUpperCase();
  const currency = isCurrency(code) ? code : undefined;
  const parsed = readAmount(amount, currency);
  return {
    currency,
    amount: parsed,
    assetFailure: currency
      ? undefined
      : { key: 'CURRENCY_UNSUPPORTED', description: `${wording.assetField ?? 'asset'}: ${asset} is not supported; use BRL or one of ${CURRENCIES.join(', ')}.` },
    amountFailure: parsed.ok ? undefined : amountFailure(parsed.reason, wording),
  };
}

/**
 * Reads an amount by the API's rules in minor units of `currency`. Capture and refunds read it first
 * without a currency, before the payment is loaded: its form and its two decimals are checked then (in
 * minor units of two decimals), and it is read again in the payment's currency once that is known.
 * @example readAmount('12.5', 'BRL') // { ok: true, minor: 1250n }
 * @example readAmount('12.5', 'CLP') // { ok: false, reason: 'TOO_MANY_DECIMALS' }
 */
export function readAmount(amount: string | number, currency?: string): ParseAmountResult {
  return parseAmount(amount, currency === undefined ? API_MAX_DECIMALS : exponentOf(currency), API_MAX_DECIMALS);
}

/**
 * The failure of an amount that `readAmount` refused, worded for its caller.
 * @example amountFailure('TOO_MANY_DECIMALS', { amountField: 'amount', format: 'a positive decimal number' })
 * // { key: 'AMOUNT_DECIMALS', description: 'amount: Value must have a maximum of two decimal places.' }
 */
export function amountFailure(reason: Extract<ParseAmountResult, { ok: false }>['reason'], wording: PriceWording): PriceFailure {
  if (reason === 'TOO_MANY_DECIMALS') return { key: 'AMOUNT_DECIMALS', description: `${wording.amountField}: Value must have a maximum of two decimal places.` };
  if (reason === 'TOO_LARGE' && wording.largest !== undefined) return { key: 'FIELD_OUT_OF_RANGE', description: `${wording.amountField}: is larger than ${wording.largest}.` };
  return { key: 'FIELD_FORMAT', description: `${wording.amountField}: must be ${wording.format}.` };
}

/**
 * The smallest amount charged in a currency: one unit of it (1.00 BRL, the spec's "not less than 1.00
 * in BRL"; 1.00 MXN for the Mexican methods).
 * @example minimumMinor('BRL') // 100n
 */
export function minimumMinor(currency: Currency): bigint {
  return 10n ** BigInt(exponentOf(currency));
}

/**
 * Converts a price into the currency it is charged in, at the stored rate, and applies the minimum.
 * @example const { quote, failure } = await chargedPrice(db, 1050n, 'USD', 'BRL', 'payment.amount');
 */
export async function chargedPrice(
  db: Db,
  minor: bigint,
  currency: Currency,
  chargedIn: Currency,
  amountField: string,
): Promise<{ quote: FxQuote; failure: PriceFailure | undefined }> {
  const quote = await convert(db, minor, currency, chargedIn);
  const minimum = minimumMinor(chargedIn);
  const failure = quote.convertedMinor < minimum
    ? { key: 'AMOUNT_BELOW_MINIMUM' as const, description: `${amountField}: must be at least ${formatAmount(minimum, exponentOf(chargedIn))} ${chargedIn}.` }
    : undefined;
  return { quote, failure };
}

import type { Db } from '../db/database';
import { convert } from '../fees/fx';
import type { ErrorKey } from '../http/errors';
import { CURRENCY_EXPONENTS, isCurrency, parseAmount, type Currency } from '../lib/money';
import { MINIMUM_BRL_MINOR } from '../payments/send-payment';

/**
 * Checks an `amount` and `asset` pair as a card payment's (docs/payments.md): a currency Colibri
 * converts, at most two decimals, at least 1.00 BRL after conversion. Failures go to `fail` with the
 * card payment's own codes; the parsed amount comes back only when every rule passed.
 * @example const money = await checkAmount(db, body.amount, body.asset, fail);
 */
export async function checkAmount(
  db: Db,
  amount: string | number,
  asset: string,
  fail: (key: ErrorKey, description: string) => void,
): Promise<{ minor: bigint; currency: Currency } | undefined> {
  const code = asset.toUpperCase();
  const currency = isCurrency(code) ? code : undefined;
  if (!currency) fail('CURRENCY_UNSUPPORTED', `asset: ${asset} is not supported; use BRL or one of ${Object.keys(CURRENCY_EXPONENTS).join(', ')}.`);
  const parsed = parseAmount(amount, currency ? CURRENCY_EXPONENTS[currency] : 2, 2);
  if (!parsed.ok) {
    if (parsed.reason === 'TOO_MANY_DECIMALS') fail('AMOUNT_DECIMALS', 'amount: Value must have a maximum of two decimal places.');
    else if (parsed.reason === 'TOO_LARGE') fail('FIELD_OUT_OF_RANGE', 'amount: is larger than the maximum payment.');
    else fail('FIELD_FORMAT', 'amount: must be a decimal number such as 10.50 or "10.50".');
    return undefined;
  }
  if (!currency) return undefined;
  const quote = await convert(db, parsed.minor, currency, 'BRL');
  if (quote.convertedMinor < MINIMUM_BRL_MINOR) {
    fail('AMOUNT_BELOW_MINIMUM', 'amount: must be at least 1.00 BRL.');
    return undefined;
  }
  return { minor: parsed.minor, currency };
}

import type { Db } from '../db/database';
import type { ErrorKey } from '../http/errors';
import type { Currency } from '../lib/currencies';
import { chargedPrice, readPrice, type PriceWording } from '../pricing/price';

/** How subscriptions name their price's fields and word their failures (pricing/price.ts has the rules). */
const PRICE_WORDING: PriceWording = {
  amountField: 'amount',
  assetField: 'asset',
  format: 'a decimal number such as 10.50 or "10.50"',
  largest: 'the maximum payment',
};

/**
 * Checks an `amount` and `asset` pair as a card payment's (docs/payments.md, pricing/price.ts): a
 * currency Colibri converts, at most two decimals, at least 1.00 BRL after conversion. Failures go to
 * `fail` with the card payment's own codes; the parsed amount comes back only when every rule passed.
 * @example const money = await checkAmount(db, body.amount, body.asset, fail);
 */
export async function checkAmount(
  db: Db,
  amount: string | number,
  asset: string,
  fail: (key: ErrorKey, description: string) => void,
): Promise<{ minor: bigint; currency: Currency } | undefined> {
  const price = readPrice(amount, asset, PRICE_WORDING);
  if (price.assetFailure) fail(price.assetFailure.key, price.assetFailure.description);
  if (price.amountFailure) fail(price.amountFailure.key, price.amountFailure.description);
  if (!price.amount.ok || !price.currency) return undefined;
  const { failure } = await chargedPrice(db, price.amount.minor, price.currency, 'BRL', PRICE_WORDING.amountField);
  if (failure) {
    fail(failure.key, failure.description);
    return undefined;
  }
  return { minor: price.amount.minor, currency: price.currency };
}

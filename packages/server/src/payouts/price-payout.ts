import type { Db } from '../db/database';
import { computeFees, type AppliedFee, type FeeRule } from '../fees/fee-plan';
import { convert, MissingRateError } from '../fees/fx';
import { formatAmount } from '../lib/money';
import { CURRENCY_EXPONENTS, type Currency } from '../lib/currencies';
import type { ErrorKey } from '../http/errors';

/** What is priced: the merchant's amount, in its currency, and the currency it is paid out in. */
export interface PayoutPriceInput {
  readonly originalMinor: bigint;
  readonly originalCurrency: Currency;
  readonly paymentCurrency: Currency;
}

/** Every figure of a payout, in minor units (docs/payouts.md, "Amounts and fees"). */
export interface PayoutPrice {
  readonly originalMinor: bigint;
  readonly originalCurrency: Currency;
  /** The amount in the payment currency: the original amount, converted when the currencies differ. */
  readonly amountMinor: bigint;
  readonly currency: Currency;
  /** Payment-currency units per original unit, as a decimal string, and the rate's date; null without FX. */
  readonly fxRate: string | null;
  readonly fxRateDate: string | null;
  readonly fees: readonly AppliedFee[];
  readonly merchantFeesMinor: bigint;
  /** amount + merchant fees: what the merchant's balance is charged. */
  readonly merchantAmountMinor: bigint;
  readonly customerFeesMinor: bigint;
  /** amount − customer fees: what reaches the recipient's account. */
  readonly customerAmountMinor: bigint;
}

export type PricePayoutResult =
  | { readonly ok: true; readonly price: PayoutPrice }
  | { readonly ok: false; readonly key: ErrorKey; readonly field: string; readonly sentence: string };

/**
 * Prices one payout: FX at the stored rate when the original and payment currencies differ, then the
 * merchant's payout fee rules on the converted amount. Customer fees are the recipient's: they are
 * withheld from the transfer, so a payout whose customer fees would take all of it is refused.
 * @example
 * const result = await pricePayout(db, { originalMinor: 150075n, originalCurrency: 'PEN', paymentCurrency: 'PEN' }, plan.payouts);
 * // result.price.merchantAmountMinor === 150075n + result.price.merchantFeesMinor
 */
export async function pricePayout(db: Db, input: PayoutPriceInput, rules: readonly FeeRule[]): Promise<PricePayoutResult> {
  let amountMinor = input.originalMinor;
  let fxRate: string | null = null;
  let fxRateDate: string | null = null;
  if (input.originalCurrency !== input.paymentCurrency) {
    try {
      const quote = await convert(db, input.originalMinor, input.originalCurrency, input.paymentCurrency);
      amountMinor = quote.convertedMinor;
      fxRate = quote.rate;
      fxRateDate = quote.rateDate;
    } catch (error) {
      if (!(error instanceof MissingRateError)) throw error;
      return {
        ok: false,
        key: 'PAYOUT_FX_RATE_MISSING',
        field: 'original_currency',
        sentence: `there is no stored FX rate to convert ${input.originalCurrency} into ${input.paymentCurrency}.`,
      };
    }
  }
  const exponent = CURRENCY_EXPONENTS[input.paymentCurrency];
  if (amountMinor <= 0n) {
    // Only a conversion can get here (validation refuses amounts that are not positive): a tiny amount
    // in a currency worth far less than the payment currency rounds to nothing.
    return {
      ok: false,
      key: 'PAYOUT_AMOUNT_NOT_POSITIVE',
      field: 'original_amount',
      sentence: `must be worth at least ${formatAmount(1n, exponent)} ${input.paymentCurrency} once converted.`,
    };
  }
  const breakdown = computeFees(rules, amountMinor);
  const customerAmountMinor = amountMinor - breakdown.customerFeesMinor;
  if (customerAmountMinor <= 0n) {
    return {
      ok: false,
      key: 'PAYOUT_AMOUNT_BELOW_FEES',
      field: 'original_amount',
      sentence: `must be more than the customer fees of ${formatAmount(breakdown.customerFeesMinor, exponent)} ${input.paymentCurrency}, which are withheld from what the recipient receives.`,
    };
  }
  return {
    ok: true,
    price: {
      originalMinor: input.originalMinor,
      originalCurrency: input.originalCurrency,
      amountMinor,
      currency: input.paymentCurrency,
      fxRate,
      fxRateDate,
      fees: breakdown.fees,
      merchantFeesMinor: breakdown.merchantFeesMinor,
      merchantAmountMinor: amountMinor + breakdown.merchantFeesMinor,
      customerFeesMinor: breakdown.customerFeesMinor,
      customerAmountMinor,
    },
  };
}

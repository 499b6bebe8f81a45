/**
 * The three Andean payout countries and the one currency each of them pays in. Currency exponents
 * are not repeated here: they come from `lib/currencies.ts`, the single place that knows ISO 4217
 * minor units.
 */
import type { Currency } from '../../lib/currencies';

/** Payout countries served by the Andean rail, as ISO 3166-1 alpha-2 codes. */
export const ANDEAN_COUNTRIES = ['CO', 'PE', 'CL'] as const;

export type AndeanCountry = (typeof ANDEAN_COUNTRIES)[number];

/** The currency a payout to each country is funded and paid in (COP and PEN have 2 decimals, CLP none). */
export const ANDEAN_COUNTRY_CURRENCY = {
  CO: 'COP',
  PE: 'PEN',
  CL: 'CLP',
} as const satisfies Record<AndeanCountry, Currency>;

export type AndeanCurrency = (typeof ANDEAN_COUNTRY_CURRENCY)[AndeanCountry];

/** The Andean currencies in the same order as {@link ANDEAN_COUNTRIES}. */
export const ANDEAN_CURRENCIES: readonly AndeanCurrency[] = ANDEAN_COUNTRIES.map((country) => ANDEAN_COUNTRY_CURRENCY[country]);

/**
 * Whether a string is one of the Andean payout country codes. Codes are matched exactly, so `pe` is not `PE`.
 * @example isAndeanCountry('PE') // true
 * @example isAndeanCountry('BR') // false
 */
export function isAndeanCountry(code: string): code is AndeanCountry {
  return (ANDEAN_COUNTRIES as readonly string[]).includes(code);
}

/**
 * Whether a string is one of the Andean payout currencies (COP, PEN, CLP), matched exactly.
 * @example isAndeanCurrency('CLP') // true
 * @example isAndeanCurrency('USD') // false
 */
export function isAndeanCurrency(code: string): code is AndeanCurrency {
  return (ANDEAN_CURRENCIES as readonly string[]).includes(code);
}

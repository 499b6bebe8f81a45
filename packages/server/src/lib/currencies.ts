import { code as iso4217 } from 'currency-codes';

/**
 * The currencies Colibri prices in and converts between (`fees/fx.ts` converts each through its rate
 * to BRL), in the order error descriptions list them.
 */
export const CURRENCIES = ['BRL', 'USD', 'EUR', 'MXN', 'ARS', 'COP', 'PEN', 'CLP'] as const;

export type Currency = (typeof CURRENCIES)[number];

/**
 * How many decimals each currency's minor unit has (ISO 4217: 2 for BRL and COP, 0 for CLP), read from
 * the ISO 4217 list that the `currency-codes` package ships, so Colibri keeps no copy of its own.
 */
export const CURRENCY_EXPONENTS: Readonly<Record<Currency, number>> = Object.fromEntries(
  CURRENCIES.map((currency) => {
    const digits = iso4217(currency)?.digits;
    if (digits === undefined || !Number.isInteger(digits)) throw new Error(`ISO 4217 gives no minor unit for ${currency}`);
    return [currency, digits];
  }),
) as Record<Currency, number>;

/**
 * Whether a code (already upper case) is one of Colibri's currencies.
 * @example isCurrency('CLP') // true
 * @example isCurrency('clp') // false
 */
export function isCurrency(code: string): code is Currency {
  return (CURRENCIES as readonly string[]).includes(code);
}

/**
 * The exponent of a stored currency code. Every currency Colibri stores is one of CURRENCIES; any
 * other code is read with two decimals, the exponent of nearly every currency.
 * @example exponentOf('CLP') // 0
 * @example exponentOf('BRL') // 2
 */
export function exponentOf(currency: string): number {
  return isCurrency(currency) ? CURRENCY_EXPONENTS[currency] : 2;
}

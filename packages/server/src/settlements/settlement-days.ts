import { addDays, isBusinessDay, nextBusinessDay } from '../rails/calendar';

/** The currencies settlements go out in, and the country whose banks pay them. */
export const SETTLEMENT_COUNTRIES = { BRL: 'BR', MXN: 'MX' } as const;
export type SettlementCurrency = keyof typeof SETTLEMENT_COUNTRIES;

export function isSettlementCurrency(currency: string): currency is SettlementCurrency {
  return Object.hasOwn(SETTLEMENT_COUNTRIES, currency);
}

/*
 * The bank calendar of a settlement's currency. rails/calendar knows only Brazil's for now, so MXN settlements
 * follow the Brazilian calendar: weekends are right, but Brazilian holidays are skipped and Mexican ones are
 * not. When the calendar takes its country parameter (the Mexican calendar, branch `schedule`), pass
 * SETTLEMENT_COUNTRIES[currency] to isBusinessDay and nextBusinessDay below (the `_currency` parameters are
 * there for it); nothing else changes.
 */

/**
 * Whether settlements of `currency` go out on `day` (YYYY-MM-DD, the local day where it is settled):
 * business days of its country only.
 * @example isSettlementDay('2026-11-21', 'BRL') // false: a Saturday
 */
export function isSettlementDay(day: string, _currency: SettlementCurrency): boolean {
  return isBusinessDay(day);
}

/**
 * When money sent on `sentDay` is in the merchant's account: the next business day after it (a transfer
 * sent on Friday arrives on Monday, one sent before a holiday the day after it).
 * @example arrivalDate('2026-11-20', 'BRL') // '2026-11-23': Friday the 20th is a holiday, so is the weekend
 */
export function arrivalDate(sentDay: string, _currency: SettlementCurrency): string {
  return nextBusinessDay(addDays(sentDay, 1));
}

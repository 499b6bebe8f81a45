import { addDays, isBusinessDay, nextBusinessDay } from '../rails/calendar';

/** The currencies settlements go out in, and the country whose banks pay them. */
export const SETTLEMENT_COUNTRIES = { BRL: 'BR', MXN: 'MX' } as const;
export type SettlementCurrency = keyof typeof SETTLEMENT_COUNTRIES;

export function isSettlementCurrency(currency: string): currency is SettlementCurrency {
  return Object.hasOwn(SETTLEMENT_COUNTRIES, currency);
}

/**
 * Whether settlements of `currency` go out on `day` (YYYY-MM-DD, the local day where it is settled):
 * business days of its country only (rails/calendar: Brazil's for BRL, Mexico's for MXN).
 * @example isSettlementDay('2026-11-21', 'BRL') // false: a Saturday
 */
export function isSettlementDay(day: string, currency: SettlementCurrency): boolean {
  return isBusinessDay(day, SETTLEMENT_COUNTRIES[currency]);
}

/**
 * When money sent on `sentDay` is in the merchant's account: the next business day after it (a transfer
 * sent on Friday arrives on Monday, one sent before a holiday the day after it).
 * @example arrivalDate('2026-11-20', 'BRL') // '2026-11-23': Friday the 20th is a holiday, so is the weekend
 */
export function arrivalDate(sentDay: string, currency: SettlementCurrency): string {
  return nextBusinessDay(addDays(sentDay, 1), SETTLEMENT_COUNTRIES[currency]);
}

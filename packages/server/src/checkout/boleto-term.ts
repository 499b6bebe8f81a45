import { addBusinessDays, addDays, localDate, startOfLocalDay, type IsoDate } from '../rails/calendar';

// Every boleto rule (the due date, "payable until the end of the day", compensation) is read on Brasília time,
// UTC−3 all year (rails/calendar/local-time.ts explains the clock).

/** The default term of a boleto, in business days after its generation (per merchant; migration 0015). */
export const DEFAULT_BOLETO_DUE_BUSINESS_DAYS = 3;

/**
 * The calendar date in Brasília at an instant.
 * @example brasiliaDate(new Date('2026-11-25T02:00:00Z')) // '2026-11-24'
 */
export function brasiliaDate(at: Date): IsoDate {
  return localDate(at, 'BR');
}

/**
 * The instant a Brasília calendar day begins.
 * @example startOfBrasiliaDay('2026-11-25') // 2026-11-25T03:00:00.000Z
 */
export function startOfBrasiliaDay(date: IsoDate): Date {
  return startOfLocalDay(date, 'BR');
}

/**
 * A boleto's due date and the instant it stops being payable: `businessDays` bank business days after the
 * generation date in Brasília (at least one, so the payer always has a whole business day), payable through
 * the end of that day in Brasília, whatever the checkout session's own expiry.
 * @example boletoTerm(new Date('2026-11-27T15:00:00Z'), 3) // { dueDate: '2026-12-02', payableUntil: 2026-12-03T03:00:00Z }
 */
export function boletoTerm(generatedAt: Date, businessDays: number): { dueDate: IsoDate; payableUntil: Date } {
  const dueDate = addBusinessDays(brasiliaDate(generatedAt), Math.max(1, businessDays));
  return { dueDate, payableUntil: startOfBrasiliaDay(addDays(dueDate, 1)) };
}

/**
 * When a paid boleto compensates: the same time of day, one bank business day after the payment date in
 * Brasília (a boleto paid on Saturday compensates on Monday, or later after a holiday).
 * @example boletoCompensation(new Date('2026-11-27T15:00:00Z')) // 2026-11-30T15:00:00.000Z (Friday → Monday)
 */
export function boletoCompensation(paidAt: Date): Date {
  const paidDate = brasiliaDate(paidAt);
  const compensationDate = addBusinessDays(paidDate, 1);
  return new Date(paidAt.getTime() + (Date.parse(`${compensationDate}T00:00:00Z`) - Date.parse(`${paidDate}T00:00:00Z`)));
}

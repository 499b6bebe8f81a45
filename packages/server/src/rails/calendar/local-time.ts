// The local calendar day of an instant in each country's banking clock.
//
// A settlement date, a boleto's due date or the day money becomes available is a calendar day where the money
// is, not in UTC nor in the server's time zone. Both countries keep one fixed offset for banking all year:
// - Brazil: Brasília time, UTC−3. Brazil has kept no daylight-saving time since 2019 (Decree 9.772/2019), and
//   its payment systems (Pix, boleto compensation) run on Brasília time whatever the payer's own zone.
// - Mexico: central time (Mexico City), UTC−6. The Ley de los Husos Horarios ended daylight-saving time in
//   October 2022; Banxico's SPEI and the banks run on Mexico City time. An instant in a summer before
//   30 October 2022 (UTC−5 then) is read an hour early here, which only matters for history.

import { assertCalendarCountry, type CalendarCountry } from './business-days';
import { toEpochDay, type IsoDate } from './iso-date';

const UTC_OFFSET_MS: Readonly<Record<CalendarCountry, number>> = {
  BR: -3 * 3_600_000,
  MX: -6 * 3_600_000,
};

/**
 * The calendar date in a country's banking clock at an instant.
 *
 * @example
 * localDate(new Date('2026-11-25T02:00:00Z'), 'BR'); // '2026-11-24' (23:00 in Brasília)
 * localDate(new Date('2026-11-25T05:59:59Z'), 'MX'); // '2026-11-24' (23:59:59 in Mexico City)
 */
export function localDate(at: Date, country: CalendarCountry): IsoDate {
  return new Date(localClockMs(at, country)).toISOString().slice(0, 10);
}

/**
 * localDate as whole days since 1970-01-01: a key for the calendar day that needs no text.
 *
 * @example
 * localEpochDay(new Date('1970-01-02T02:59:59Z'), 'BR'); // 0 (still 1 January in Brasília)
 */
export function localEpochDay(at: Date, country: CalendarCountry): number {
  return Math.floor(localClockMs(at, country) / 86_400_000);
}

/** An instant as milliseconds on a country's banking clock (its UTC offset applied), for localDate and localEpochDay. */
function localClockMs(at: Date, country: CalendarCountry): number {
  assertCalendarCountry(country);
  const ms = at.getTime();
  if (!Number.isFinite(ms)) throw new RangeError('Expected a valid instant, got an Invalid Date');
  return ms + UTC_OFFSET_MS[country];
}

/**
 * The instant a calendar day begins in a country's banking clock.
 *
 * @example
 * startOfLocalDay('2026-11-25', 'BR'); // 2026-11-25T03:00:00.000Z
 * startOfLocalDay('2026-11-25', 'MX'); // 2026-11-25T06:00:00.000Z
 */
export function startOfLocalDay(date: IsoDate, country: CalendarCountry): Date {
  assertCalendarCountry(country);
  return new Date(toEpochDay(date) * 86_400_000 - UTC_OFFSET_MS[country]);
}

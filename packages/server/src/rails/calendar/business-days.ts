// Bank calendars of the countries Colibri takes payments in: Brazil (the default) and Mexico.
//
// Dates are plain 'YYYY-MM-DD' strings (iso-date.ts does the arithmetic, on whole days since 1970-01-01 in
// UTC, so that no server time zone can move a date). A business day is a weekday that is not a bank holiday
// of the country; where each country's holidays come from is explained in holidays-br.ts and holidays-mx.ts.
// Every function takes the country last, defaulting to Brazil, the calendar this module began with.

import { brazilianBankHolidays } from './holidays-br';
import { mexicanBankHolidays } from './holidays-mx';
import { dayOfWeek, fromEpochDay, toEpochDay, yearOf, type IsoDate } from './iso-date';

export type { IsoDate } from './iso-date';
export {
  addDays,
  addMonthsClamped,
  addWeeks,
  addYears,
  dayOfWeek,
  daysBetween,
  easterSunday,
  fromEpochDay,
  isIsoDate,
  toEpochDay,
} from './iso-date';

/** The countries with a bank calendar here. */
export const CALENDAR_COUNTRIES = ['BR', 'MX'] as const;
export type CalendarCountry = (typeof CALENDAR_COUNTRIES)[number];

/** A non-business day that is not a weekend: its date and its name in the country's language. */
export interface BankHoliday {
  readonly date: IsoDate;
  readonly name: string;
}

const HOLIDAY_SOURCES: Readonly<Record<CalendarCountry, (year: number) => Map<IsoDate, string>>> = {
  BR: brazilianBankHolidays,
  MX: mexicanBankHolidays,
};

const holidaysByYear = new Map<string, ReadonlyMap<IsoDate, string>>();

/**
 * Refuses a country with no calendar here (a caller in plain JavaScript, or a value read from a database).
 *
 * @example
 * assertCalendarCountry('MX'); // passes
 * assertCalendarCountry('AR'); // throws RangeError
 */
export function assertCalendarCountry(country: string): asserts country is CalendarCountry {
  if (!(CALENDAR_COUNTRIES as readonly string[]).includes(country)) {
    throw new RangeError(`No bank calendar for country ${JSON.stringify(country)} (have ${CALENDAR_COUNTRIES.join(', ')})`);
  }
}

function holidayMap(year: number, country: CalendarCountry): ReadonlyMap<IsoDate, string> {
  const key = `${country}:${year}`;
  const cached = holidaysByYear.get(key);
  if (cached) return cached;
  assertCalendarCountry(country);
  if (!Number.isInteger(year) || year < 1900 || year > 2999) {
    // The library's data and this module's rules are about the present-day calendar; refuse years where a
    // silent answer would most likely be a caller's bug (such as a two-digit year).
    throw new RangeError(`Bank holidays are available for years 1900-2999, got ${year}`);
  }
  const map = HOLIDAY_SOURCES[country](year);
  const sorted = new Map([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  holidaysByYear.set(key, sorted);
  return sorted;
}

/**
 * The bank holidays of a year in a country (weekdays or not), sorted by date.
 *
 * @example
 * bankHolidays(2025).map((h) => h.date).includes('2025-03-04'); // true (Carnival Tuesday)
 * bankHolidays(2024, 'MX').map((h) => h.date).includes('2024-10-01'); // true (inauguration)
 */
export function bankHolidays(year: number, country: CalendarCountry = 'BR'): BankHoliday[] {
  return [...holidayMap(year, country)].map(([date, name]) => ({ date, name }));
}

/**
 * Tells whether a date is a bank holiday in a country (whatever its day of the week).
 *
 * @example
 * isBankHoliday('2024-11-20'); // true
 * isBankHoliday('2023-11-20'); // false (national only from 2024)
 * isBankHoliday('2025-12-12', 'MX'); // true (Virgen de Guadalupe)
 */
export function isBankHoliday(date: IsoDate, country: CalendarCountry = 'BR'): boolean {
  return holidayMap(yearOf(date), country).has(date);
}

/**
 * Tells whether banks settle on a date in a country: not a Saturday, a Sunday or a bank holiday there.
 *
 * @example
 * isBusinessDay('2025-03-04'); // false (Carnival Tuesday)
 * isBusinessDay('2025-03-05'); // true (Ash Wednesday)
 * isBusinessDay('2025-03-04', 'MX'); // true (no Carnival in Mexico)
 */
export function isBusinessDay(date: IsoDate, country: CalendarCountry = 'BR'): boolean {
  const weekday = dayOfWeek(date);
  if (weekday === 0 || weekday === 6) return false;
  return !isBankHoliday(date, country);
}

/**
 * The date itself when it is a business day, otherwise the next one.
 *
 * @example
 * nextBusinessDay('2025-04-18'); // '2025-04-22' (Good Friday, weekend, Tiradentes on Monday)
 * nextBusinessDay('2025-04-17', 'MX'); // '2025-04-21' (Holy Thursday, Good Friday, weekend)
 */
export function nextBusinessDay(date: IsoDate, country: CalendarCountry = 'BR'): IsoDate {
  let day = toEpochDay(date);
  // A run of non-business days is at most a few days long (Carnival with its weekend is four, Holy Thursday
  // to Easter Sunday too), so this loop is short; the bound only guards against a data error turning it into an endless loop.
  for (let guard = 0; guard < 31; guard += 1) {
    const candidate = fromEpochDay(day);
    if (isBusinessDay(candidate, country)) return candidate;
    day += 1;
  }
  throw new Error(`No business day within 31 days after ${date}`);
}

/**
 * The date itself when it is a business day, otherwise the previous one.
 *
 * @example
 * previousBusinessDay('2025-03-04'); // '2025-02-28' (before the Carnival weekend)
 */
export function previousBusinessDay(date: IsoDate, country: CalendarCountry = 'BR'): IsoDate {
  let day = toEpochDay(date);
  for (let guard = 0; guard < 31; guard += 1) {
    const candidate = fromEpochDay(day);
    if (isBusinessDay(candidate, country)) return candidate;
    day -= 1;
  }
  throw new Error(`No business day within 31 days before ${date}`);
}

/**
 * Moves by a number of business days (negative to go back); from a non-business day, the first step lands on
 * the nearest business day in that direction, and zero steps return the date unchanged.
 *
 * @example
 * addBusinessDays('2025-02-28', 1); // '2025-03-05' (skips the Carnival weekend, Monday and Tuesday)
 * addBusinessDays('2025-09-12', 2, 'MX'); // '2025-09-17' (Friday → Monday → Wednesday after 16 September)
 */
export function addBusinessDays(date: IsoDate, businessDays: number, country: CalendarCountry = 'BR'): IsoDate {
  if (!Number.isSafeInteger(businessDays)) throw new RangeError(`businessDays must be an integer, got ${businessDays}`);
  const step = businessDays < 0 ? -1 : 1;
  let day = toEpochDay(date);
  for (let remaining = Math.abs(businessDays); remaining > 0; ) {
    day += step;
    if (isBusinessDay(fromEpochDay(day), country)) remaining -= 1;
  }
  return fromEpochDay(day);
}

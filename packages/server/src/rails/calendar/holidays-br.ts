// Brazilian national bank holidays.
//
// Where they come from:
// - The fixed-date national holidays (1 Jan, 21 Apr, 1 May, 7 Sep, 12 Oct, 2 Nov, 15 Nov, 20 Nov from 2024,
//   25 Dec) come from `date-holidays` (country BR), taking only its entries of type 'public' whose rule is a
//   plain month-day. That keeps the law-driven data (such as Law 14.759/2023, which made 20 November a national
//   holiday from 2024 on) in the library that tracks it, and leaves out the election days it also types as
//   'public': those are always Sundays and are not bank holidays in their own right.
// - The movable days (Carnival Monday and Tuesday, Good Friday, Corpus Christi) are computed here from Easter.
//   `date-holidays` does report them, but Carnival Monday/Tuesday and Corpus Christi are not public holidays by
//   federal law: the library types them 'bank', next to entries with the same name "Carnaval" typed 'optional'
//   (the Saturday and the Ash Wednesday half-day). Picking the right ones out of the library would mean
//   matching its rule strings ("easter -48"), which is more fragile than computing Easter, and banks close on
//   these days whatever a future data release decides to call them. The tests cross-check this Easter against
//   the library's over three centuries, and the full list against the library's 'public' and 'bank' entries.

import Holidays from 'date-holidays';
import { easterSunday, fromEpochDay, toEpochDay, type IsoDate } from './iso-date';

// Offsets from Easter Sunday of the movable days on which Brazilian banks are closed.
const EASTER_OFFSETS: ReadonlyArray<readonly [number, string]> = [
  [-48, 'Carnaval (segunda-feira)'],
  [-47, 'Carnaval (terça-feira)'],
  [-2, 'Sexta-feira Santa'],
  [60, 'Corpus Christi'],
];

// date-holidays rules for fixed dates look like '11-20'; anything else (weekday or Easter relative, or with a
// time of day) is not one of the national fixed-date holidays we take from it.
const FIXED_DATE_RULE = /^\d{2}-\d{2}$/;

let library: Holidays | undefined;

/**
 * The Brazilian national bank holidays of a year, by date, in no particular order (business-days.ts checks
 * the year, sorts and caches).
 *
 * @example
 * brazilianBankHolidays(2025).get('2025-03-04'); // 'Carnaval (terça-feira)'
 */
export function brazilianBankHolidays(year: number): Map<IsoDate, string> {
  library ??= new Holidays('BR');
  const map = new Map<IsoDate, string>();
  for (const holiday of library.getHolidays(year, 'pt')) {
    if (holiday.type === 'public' && FIXED_DATE_RULE.test(holiday.rule)) {
      // The library's `date` is 'YYYY-MM-DD hh:mm:ss' in Brazilian local time, independent of the process
      // time zone; its `start`/`end` Date objects are instants and must not be used for the calendar day.
      map.set(holiday.date.slice(0, 10), holiday.name);
    }
  }
  const easter = toEpochDay(easterSunday(year));
  for (const [offset, name] of EASTER_OFFSETS) {
    map.set(fromEpochDay(easter + offset), name);
  }
  return map;
}

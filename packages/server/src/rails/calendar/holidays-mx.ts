// Mexican bank holidays: the days the CNBV (Comisión Nacional Bancaria y de Valores) has banks close.
//
// Banks in Mexico close on the days the CNBV publishes each December in the Diario Oficial ("disposiciones de
// carácter general que señalan los días del año en que las entidades ... deberán cerrar sus puertas y suspender
// operaciones"). Year after year those are the statutory rest days of the Ley Federal del Trabajo (article 74)
// plus four days of the CNBV's own. Where each one comes from here:
// - The statutory days come from `date-holidays` (country MX), taking its entries of type 'public': 1 January,
//   the first Monday of February (Constitution), the third Monday of March (Benito Juárez), 1 May, 16 September,
//   the third Monday of November (Revolution) and 25 December. The library also tracks the 2006 reform that moved
//   three of them to Mondays (5 February, 21 March and 20 November until then, the March one from 2007).
// - The inauguration of a President (transmisión del Poder Ejecutivo Federal) is computed here, and the library's
//   entry for it left out: the library keeps the old rule, 1 December every six years since 1934, while the 2014
//   constitutional reform of article 83 moved the inauguration to 1 October from 2024 on (1 October 2024 was a
//   bank holiday in the CNBV's 2024 calendar; the library says 1 December 2024, a Sunday). Here: 1 December
//   every six years from 1934 to 2018, then 1 October every six years from 2024.
// - Holy Thursday and Good Friday (from Easter), 2 November (Día de Muertos) and 12 December (Virgen de
//   Guadalupe) are the CNBV's own closures, not statutory holidays. The library reports them typed 'bank'; they
//   are computed here all the same, as the Brazilian Carnival is (holidays-br.ts), because banks close on them
//   whatever a future data release decides to call them. The tests cross-check them against the library's
//   'bank' entries and the whole list against the CNBV calendars of 2024 to 2026.
// Election days (article 74, IX) are Sundays and not bank holidays in their own right, so any Sunday rule the
// library may carry is left out.

import Holidays from 'date-holidays';
import { easterSunday, fromEpochDay, toEpochDay, type IsoDate } from './iso-date';

// Offsets from Easter Sunday of the Holy Week days on which Mexican banks close.
const EASTER_OFFSETS: ReadonlyArray<readonly [number, string]> = [
  [-3, 'Jueves Santo'],
  [-2, 'Viernes Santo'],
];

// The CNBV's fixed-date closures that are not statutory holidays.
const CNBV_FIXED_DAYS: ReadonlyArray<readonly [string, string]> = [
  ['11-02', 'Día de los Difuntos'],
  ['12-12', 'Día de la Virgen de Guadalupe'],
];

const INAUGURATION = 'Transmisión del Poder Ejecutivo Federal';

// A date-holidays rule that repeats over years ("12-01 every 6 years since 1934") is the inauguration, computed
// here instead; a Sunday rule would be an election day.
const LEFT_OUT_RULE = /\bevery\b|\bsunday\b/i;

let library: Holidays | undefined;

/**
 * The day a President takes office in a year, if one does: 1 December every six years from 1934 to 2018, then
 * 1 October every six years from 2024 (article 83 of the Constitution as reformed in 2014).
 *
 * @example
 * inaugurationDay(2024); // '2024-10-01'
 * inaugurationDay(2018); // '2018-12-01'
 * inaugurationDay(2025); // undefined
 */
export function inaugurationDay(year: number): IsoDate | undefined {
  if (year >= 2024) return (year - 2024) % 6 === 0 ? `${year}-10-01` : undefined;
  if (year >= 1934) return (year - 1934) % 6 === 0 ? `${year}-12-01` : undefined;
  return undefined;
}

/**
 * The Mexican bank holidays of a year, by date, in no particular order (business-days.ts checks the year,
 * sorts and caches).
 *
 * @example
 * mexicanBankHolidays(2025).get('2025-12-12'); // 'Día de la Virgen de Guadalupe'
 */
export function mexicanBankHolidays(year: number): Map<IsoDate, string> {
  library ??= new Holidays('MX');
  const map = new Map<IsoDate, string>();
  for (const holiday of library.getHolidays(year, 'es')) {
    if (holiday.type === 'public' && !LEFT_OUT_RULE.test(holiday.rule)) {
      // As for Brazil, the library's `date` string is the local calendar day; its Date objects are instants.
      map.set(holiday.date.slice(0, 10), holiday.name);
    }
  }
  const inauguration = inaugurationDay(year);
  if (inauguration) map.set(inauguration, INAUGURATION);
  const easter = toEpochDay(easterSunday(year));
  for (const [offset, name] of EASTER_OFFSETS) {
    map.set(fromEpochDay(easter + offset), name);
  }
  for (const [monthDay, name] of CNBV_FIXED_DAYS) {
    map.set(`${year}-${monthDay}`, name);
  }
  return map;
}

// Brazilian banking calendar on plain 'YYYY-MM-DD' strings.
//
// Every function here takes and returns calendar dates as 'YYYY-MM-DD' strings and does its arithmetic on
// whole days since 1970-01-01 in UTC. A due date or a settlement date is a calendar day, not an instant, so
// going through a local-time Date would let the server's time zone (or a daylight-saving change) move a date
// by one day.
//
// Where the holidays come from:
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

/** A calendar date written 'YYYY-MM-DD'. */
export type IsoDate = string;

/** A non-business day that is not a weekend: its date and its Portuguese name. */
export interface BankHoliday {
  readonly date: IsoDate;
  readonly name: string;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;

/**
 * Parses a 'YYYY-MM-DD' string into whole days since 1970-01-01 (UTC), rejecting impossible dates.
 *
 * @example
 * toEpochDay('1970-01-02'); // 1
 */
export function toEpochDay(date: IsoDate): number {
  const match = ISO_DATE.exec(date);
  if (!match) throw new RangeError(`Expected a date as YYYY-MM-DD, got ${JSON.stringify(date)}`);
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  const ms = Date.UTC(year, month - 1, day);
  // Date.UTC silently rolls 2025-02-30 over to 2025-03-02 and maps years 0-99 to 1900-1999, so compare the
  // parts back to catch both.
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    throw new RangeError(`Not a valid calendar date: ${date}`);
  }
  return Math.round(ms / MS_PER_DAY);
}

/**
 * Formats whole days since 1970-01-01 (UTC) as 'YYYY-MM-DD'.
 *
 * @example
 * fromEpochDay(0); // '1970-01-01'
 */
export function fromEpochDay(epochDay: number): IsoDate {
  if (!Number.isSafeInteger(epochDay)) throw new RangeError(`Expected an integer day count, got ${epochDay}`);
  const d = new Date(epochDay * MS_PER_DAY);
  const year = d.getUTCFullYear();
  if (year < 1000 || year > 9999) throw new RangeError(`Date out of the supported range (years 1000-9999)`);
  return `${year}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}`;
}

/**
 * Tells whether a string is a real calendar date written 'YYYY-MM-DD'.
 *
 * @example
 * isIsoDate('2024-02-29'); // true
 * isIsoDate('2025-02-29'); // false
 */
export function isIsoDate(value: string): boolean {
  try {
    toEpochDay(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Days from `from` to `to` (negative when `to` is earlier).
 *
 * @example
 * daysBetween('2024-02-28', '2024-03-01'); // 2
 */
export function daysBetween(from: IsoDate, to: IsoDate): number {
  return toEpochDay(to) - toEpochDay(from);
}

/**
 * Adds calendar days (negative to go back).
 *
 * @example
 * addDays('2024-12-31', 1); // '2025-01-01'
 */
export function addDays(date: IsoDate, days: number): IsoDate {
  assertInteger(days, 'days');
  return fromEpochDay(toEpochDay(date) + days);
}

/**
 * Adds whole weeks (negative to go back).
 *
 * @example
 * addWeeks('2025-01-01', 2); // '2025-01-15'
 */
export function addWeeks(date: IsoDate, weeks: number): IsoDate {
  assertInteger(weeks, 'weeks');
  return addDays(date, weeks * 7);
}

/**
 * Adds calendar months, clamping the day to the last day of the target month, as billing cycles do:
 * 31 January + 1 month is 28 February (29 in a leap year), 31 March + 1 month is 30 April.
 *
 * @example
 * addMonthsClamped('2024-01-31', 1); // '2024-02-29'
 * addMonthsClamped('2025-03-31', 1); // '2025-04-30'
 */
export function addMonthsClamped(date: IsoDate, months: number): IsoDate {
  assertInteger(months, 'months');
  const { year, month, day } = parts(date);
  const monthIndex = year * 12 + (month - 1) + months;
  const targetYear = Math.floor(monthIndex / 12);
  const targetMonth = monthIndex - targetYear * 12 + 1;
  if (targetYear < 1000 || targetYear > 9999) outOfRange(targetYear);
  const clampedDay = Math.min(day, daysInMonth(targetYear, targetMonth));
  return `${targetYear}-${pad2(targetMonth)}-${pad2(clampedDay)}`;
}

/**
 * Adds whole years, clamping 29 February to 28 February in a common year.
 *
 * @example
 * addYears('2024-02-29', 1); // '2025-02-28'
 */
export function addYears(date: IsoDate, years: number): IsoDate {
  assertInteger(years, 'years');
  return addMonthsClamped(date, years * 12);
}

/**
 * Day of the week, 0 for Sunday to 6 for Saturday.
 *
 * @example
 * dayOfWeek('2025-04-20'); // 0 (Easter Sunday)
 */
export function dayOfWeek(date: IsoDate): number {
  // 1970-01-01 was a Thursday (4).
  return (((toEpochDay(date) + 4) % 7) + 7) % 7;
}

/**
 * Easter Sunday of a Gregorian year.
 *
 * Computed with the anonymous Gregorian algorithm (Meeus/Jones/Butcher) because Carnival, Good Friday and
 * Corpus Christi are fixed offsets from it, and a closed formula is exact for every Gregorian year with no
 * table to keep up to date.
 *
 * @example
 * easterSunday(2025); // '2025-04-20'
 */
export function easterSunday(year: number): IsoDate {
  if (!Number.isInteger(year) || year < 1583 || year > 9999) {
    throw new RangeError(`Easter is computed for Gregorian years 1583-9999, got ${year}`);
  }
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${pad2(month)}-${pad2(day)}`;
}

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
const holidaysByYear = new Map<number, ReadonlyMap<IsoDate, string>>();

function holidayMap(year: number): ReadonlyMap<IsoDate, string> {
  const cached = holidaysByYear.get(year);
  if (cached) return cached;
  if (!Number.isInteger(year) || year < 1900 || year > 2999) {
    // The library's data and this module's rules are about the present-day calendar; refuse years where a
    // silent answer would most likely be a caller's bug (such as a two-digit year).
    throw new RangeError(`Bank holidays are available for years 1900-2999, got ${year}`);
  }
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
  const sorted = new Map([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  holidaysByYear.set(year, sorted);
  return sorted;
}

/**
 * The national bank holidays of a year (weekdays or not), sorted by date.
 *
 * @example
 * bankHolidays(2025).map((h) => h.date).includes('2025-03-04'); // true (Carnival Tuesday)
 */
export function bankHolidays(year: number): BankHoliday[] {
  return [...holidayMap(year)].map(([date, name]) => ({ date, name }));
}

/**
 * Tells whether a date is a national bank holiday (whatever its day of the week).
 *
 * @example
 * isBankHoliday('2024-11-20'); // true
 * isBankHoliday('2023-11-20'); // false (national only from 2024)
 */
export function isBankHoliday(date: IsoDate): boolean {
  return holidayMap(parts(date).year).has(date);
}

/**
 * Tells whether banks settle on a date: not a Saturday, a Sunday or a national bank holiday.
 *
 * @example
 * isBusinessDay('2025-03-04'); // false (Carnival Tuesday)
 * isBusinessDay('2025-03-05'); // true (Ash Wednesday)
 */
export function isBusinessDay(date: IsoDate): boolean {
  const weekday = dayOfWeek(date);
  if (weekday === 0 || weekday === 6) return false;
  return !isBankHoliday(date);
}

/**
 * The date itself when it is a business day, otherwise the next one.
 *
 * @example
 * nextBusinessDay('2025-04-18'); // '2025-04-22' (Good Friday, weekend, Tiradentes on Monday)
 */
export function nextBusinessDay(date: IsoDate): IsoDate {
  let day = toEpochDay(date);
  // A run of non-business days is at most a few days long (Carnival with its weekend is four), so this loop
  // is short; the bound only guards against a data error turning it into an endless loop.
  for (let guard = 0; guard < 31; guard += 1) {
    const candidate = fromEpochDay(day);
    if (isBusinessDay(candidate)) return candidate;
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
export function previousBusinessDay(date: IsoDate): IsoDate {
  let day = toEpochDay(date);
  for (let guard = 0; guard < 31; guard += 1) {
    const candidate = fromEpochDay(day);
    if (isBusinessDay(candidate)) return candidate;
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
 */
export function addBusinessDays(date: IsoDate, businessDays: number): IsoDate {
  assertInteger(businessDays, 'businessDays');
  const step = businessDays < 0 ? -1 : 1;
  let day = toEpochDay(date);
  for (let remaining = Math.abs(businessDays); remaining > 0; ) {
    day += step;
    if (isBusinessDay(fromEpochDay(day))) remaining -= 1;
  }
  return fromEpochDay(day);
}

function parts(date: IsoDate): { year: number; month: number; day: number } {
  toEpochDay(date); // validates
  return { year: Number(date.slice(0, 4)), month: Number(date.slice(5, 7)), day: Number(date.slice(8, 10)) };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}

function assertInteger(value: number, name: string): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be an integer, got ${value}`);
}

function outOfRange(year: number): never {
  throw new RangeError(`Date out of the supported range (years 1000-9999), got year ${year}`);
}

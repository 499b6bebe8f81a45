// Date arithmetic on plain 'YYYY-MM-DD' strings, shared by the bank calendars of every country.
//
// Every function here takes and returns calendar dates as 'YYYY-MM-DD' strings and does its arithmetic on
// whole days since 1970-01-01 in UTC. A due date or a settlement date is a calendar day, not an instant, so
// going through a local-time Date would let the server's time zone (or a daylight-saving change) move a date
// by one day.

/** A calendar date written 'YYYY-MM-DD'. */
export type IsoDate = string;

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

/**
 * The year of a date, after checking the date is real.
 *
 * @example
 * yearOf('2025-04-20'); // 2025
 */
export function yearOf(date: IsoDate): number {
  return parts(date).year;
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

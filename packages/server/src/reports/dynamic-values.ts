import type { DynamicValue } from './report-definition';

/**
 * Date filter values as half-open time ranges `[start, end)` in UTC. A filter compares a date field
 * with a range, so `created_at = 2026-03-01` means "during that day" and `created_at < CURRENT_MONTH`
 * means "before this month began" (compile-report.ts turns each operator into bounds of the range).
 *
 * Dynamic values are evaluated on the merchant clock at the moment the report runs, so a report
 * saved once keeps answering "the last seven days" as time passes, sandbox clock advances included.
 */
export interface TimeRange {
  readonly start: Date;
  readonly end: Date;
}

const DAY_MS = 86_400_000;

function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/**
 * - `NOW`: the current instant (a range one millisecond wide);
 * - `CURRENT_DAY`: today, from 00:00 UTC;
 * - `CURRENT_MONTH`: this calendar month, from its first day;
 * - `LAST_7_DAYS`: today and the six days before it.
 * @example dynamicRange('CURRENT_DAY', new Date('2026-03-05T10:00:00Z')) // 2026-03-05T00:00Z to 2026-03-06T00:00Z
 */
export function dynamicRange(value: DynamicValue, now: Date): TimeRange {
  const today = startOfUtcDay(now);
  const tomorrow = new Date(today.getTime() + DAY_MS);
  switch (value) {
    case 'NOW':
      return { start: now, end: new Date(now.getTime() + 1) };
    case 'CURRENT_DAY':
      return { start: today, end: tomorrow };
    case 'CURRENT_MONTH':
      return {
        start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)),
        end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)),
      };
    case 'LAST_7_DAYS':
      return { start: new Date(today.getTime() - 6 * DAY_MS), end: tomorrow };
  }
}

const DATE_VALUE = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/;

/**
 * A literal date value: `yyyy-MM-dd` is that whole day, `yyyy-MM-dd HH:mm:ss` that second (UTC, the
 * format of transaction details). Returns null for anything else, including impossible dates.
 * @example literalRange('2026-02-30') // null
 * @example literalRange('2026-03-01')?.end.toISOString() // '2026-03-02T00:00:00.000Z'
 */
export function literalRange(value: string): TimeRange | null {
  const match = DATE_VALUE.exec(value);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => (part === undefined ? undefined : Number(part)));
  if (year === undefined || month === undefined || day === undefined || year < 1970 || year > 9999) return null;
  const withTime = hour !== undefined;
  const start = new Date(Date.UTC(year, month - 1, day, hour ?? 0, minute ?? 0, second ?? 0));
  // Date.UTC rolls impossible values over (February 30 becomes March 2); such a value is refused.
  const roundTrips =
    start.getUTCFullYear() === year &&
    start.getUTCMonth() === month - 1 &&
    start.getUTCDate() === day &&
    (!withTime || (start.getUTCHours() === hour && start.getUTCMinutes() === minute && start.getUTCSeconds() === second));
  if (!roundTrips) return null;
  return { start, end: new Date(start.getTime() + (withTime ? 1000 : DAY_MS)) };
}

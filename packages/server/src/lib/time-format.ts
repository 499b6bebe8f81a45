import { BoundedMap } from './bounded-map';

/**
 * The spec's timestamp formats. All are rendered in UTC: the error body carries an explicit `+0000`
 * offset, and the resource formats (which carry none) are documented as UTC in docs/conventions.md.
 */

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/**
 * `yyyy-MM-dd'T'HH:mm:ss.SSS+0000`, the error body's timestamp.
 * @example formatErrorTimestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6))) // '2026-01-02T03:04:05.006+0000'
 */
export function formatErrorTimestamp(date: Date): string {
  return `${formatDateTime(date).replace(' ', 'T')}.${pad(date.getUTCMilliseconds(), 3)}+0000`;
}

/**
 * `yyyy-MM-dd HH:mm:ss`, used in transaction details.
 * @example formatDateTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5))) // '2026-01-02 03:04:05'
 */
export function formatDateTime(date: Date): string {
  return (
    `${formatDate(date)} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  );
}

/**
 * `yyyy-MM-dd HH:mm:ss.SSS`, used by refunds' `created_at`.
 * @example formatDateTimeMillis(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6))) // '2026-01-02 03:04:05.006'
 */
export function formatDateTimeMillis(date: Date): string {
  return `${formatDateTime(date)}.${pad(date.getUTCMilliseconds(), 3)}`;
}

/**
 * `yyyy-MM-dd` in UTC.
 * @example formatDate(new Date(Date.UTC(2026, 10, 22))) // '2026-11-22'
 */
export function formatDate(date: Date): string {
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}

/**
 * `date.toISOString()` (what JSON.stringify writes for a date), remembered by instant: the rows one
 * statement writes share a few instants (a payment's history lines, journals and balance lines are stamped
 * with one), and toISOString took most of a ledger line's time in its JSON parameter (3.7 against 1.4 µs
 * per line with its date already text, measured 2026-11-29; docs/performance.md, "eighth session"). Throws
 * a RangeError for an invalid date, as toISOString does.
 * @example isoTime(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6))) // '2026-01-02T03:04:05.006Z'
 */
export function isoTime(date: Date): string {
  const ms = date.getTime();
  let text = ISO_TIMES.get(ms);
  if (text === undefined) {
    text = date.toISOString();
    ISO_TIMES.set(ms, text);
  }
  return text;
}

const ISO_TIMES = new BoundedMap<number, string>(1024);

import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatDateTimeMillis, formatErrorTimestamp, isoTime } from './time-format';

it('renders the spec formats in UTC with zero padding', () => {
  const date = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6));
  expect(formatErrorTimestamp(date)).toBe('2026-01-02T03:04:05.006+0000');
  expect(formatDateTime(date)).toBe('2026-01-02 03:04:05');
  expect(formatDateTimeMillis(date)).toBe('2026-01-02 03:04:05.006');
  expect(formatDate(date)).toBe('2026-01-02');
});

describe('isoTime', () => {
  it('is toISOString for every instant, however many pass, and refuses an invalid date as it does', () => {
    const base = Date.UTC(1999, 11, 31, 23, 59, 59, 995);
    const instants = Array.from({ length: 3000 }, (_, i) => base + i * 3);
    for (const ms of [...instants, ...instants.reverse(), -1, 0, 253402300799999]) expect(isoTime(new Date(ms))).toBe(new Date(ms).toISOString());
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
  });
});

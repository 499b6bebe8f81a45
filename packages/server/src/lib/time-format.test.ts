import { expect, it } from 'vitest';
import { formatDate, formatDateTime, formatDateTimeMillis, formatErrorTimestamp } from './time-format';

it('renders the spec formats in UTC with zero padding', () => {
  const date = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6));
  expect(formatErrorTimestamp(date)).toBe('2026-01-02T03:04:05.006+0000');
  expect(formatDateTime(date)).toBe('2026-01-02 03:04:05');
  expect(formatDateTimeMillis(date)).toBe('2026-01-02 03:04:05.006');
  expect(formatDate(date)).toBe('2026-01-02');
});

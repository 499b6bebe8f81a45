import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE, nominalSchedule, retryDelayMs } from './backoff';

describe('retry schedule', () => {
  it('doubles from the base to the one-hour cap, with jitter within ±20 %', () => {
    expect([1, 2, 3, 4, 10, 11, 30].map((n) => retryDelayMs(DEFAULT_RETRY_SCHEDULE, n, () => 0.5))).toEqual([
      5_000, 10_000, 20_000, 40_000, 2_560_000, 3_600_000, 3_600_000,
    ]);
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 1, () => 0)).toBe(4_000);
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 1, () => 1)).toBe(6_000);
  });

  it('keeps retrying for at least 72 hours', () => {
    const rows = nominalSchedule(DEFAULT_RETRY_SCHEDULE);
    const last = rows.at(-1);
    const beforeLast = rows.at(-2);
    expect(last?.atMs).toBeGreaterThanOrEqual(72 * 3_600_000);
    expect(beforeLast?.atMs).toBeLessThan(72 * 3_600_000);
    expect(rows.length).toBe(82);
  });

  it('matches the table in docs/callbacks.md', () => {
    const seconds = nominalSchedule(DEFAULT_RETRY_SCHEDULE).map((r) => r.atMs / 1000);
    // at once, 5 s, 15 s, 35 s, 1 min 15 s, 2 min 35 s, 5 min 15 s, 10 min 35 s, 21 min 15 s, 42 min 35 s, 1 h 25 min (1 h 25 min 15 s), 2 h 25 min
    expect(seconds.slice(0, 12)).toEqual([0, 5, 15, 35, 75, 155, 315, 635, 1275, 2555, 5115, 8715]);
    expect(seconds.at(-1)).toBe(8715 + 70 * 3600);
  });
});

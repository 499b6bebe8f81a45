import { describe, expect, it } from 'vitest';
import { fromEpochDay } from './iso-date';
import { localDate, localEpochDay, startOfLocalDay } from './local-time';

describe('local banking dates', () => {
  it('reads Brazilian dates on Brasília time (UTC−3)', () => {
    expect(localDate(new Date('2026-11-25T02:59:59.999Z'), 'BR')).toBe('2026-11-24');
    expect(localDate(new Date('2026-11-25T03:00:00Z'), 'BR')).toBe('2026-11-25');
    expect(startOfLocalDay('2026-11-25', 'BR').toISOString()).toBe('2026-11-25T03:00:00.000Z');
  });

  it('reads Mexican dates on Mexico City time (UTC−6), summer included', () => {
    expect(localDate(new Date('2026-11-25T05:59:59.999Z'), 'MX')).toBe('2026-11-24');
    expect(localDate(new Date('2026-11-25T06:00:00Z'), 'MX')).toBe('2026-11-25');
    // No daylight-saving time since October 2022: July reads the same offset.
    expect(localDate(new Date('2026-07-10T05:30:00Z'), 'MX')).toBe('2026-07-09');
    expect(startOfLocalDay('2026-07-10', 'MX').toISOString()).toBe('2026-07-10T06:00:00.000Z');
  });

  it('gives the same instant the two countries different dates', () => {
    const at = new Date('2026-01-01T04:00:00Z'); // 01:00 in Brasília, 22:00 on New Year's Eve in Mexico City
    expect(localDate(at, 'BR')).toBe('2026-01-01');
    expect(localDate(at, 'MX')).toBe('2025-12-31');
  });

  it('round-trips: a day starts at the first instant whose local date is that day', () => {
    for (const country of ['BR', 'MX'] as const) {
      for (const date of ['2024-02-29', '2025-12-31', '2026-01-01']) {
        const start = startOfLocalDay(date, country);
        expect(localDate(start, country)).toBe(date);
        expect(localDate(new Date(start.getTime() - 1), country)).not.toBe(date);
      }
    }
  });

  it('refuses an invalid instant, a malformed date and an unknown country', () => {
    expect(() => localDate(new Date('nope'), 'BR')).toThrow(RangeError);
    expect(() => startOfLocalDay('2025-02-30', 'MX')).toThrow(RangeError);
    expect(() => localDate(new Date(), 'US' as never)).toThrow(RangeError);
  });
});

it('numbers the local calendar day as localDate names it, across midnight in each country', () => {
  for (const country of ['BR', 'MX'] as const) {
    for (let ms = Date.UTC(2026, 11, 31, 0, 0, 0); ms < Date.UTC(2027, 0, 1, 12, 0, 0); ms += 15 * 60_000) {
      const at = new Date(ms);
      expect(fromEpochDay(localEpochDay(at, country)), `${at.toISOString()} ${country}`).toBe(localDate(at, country));
    }
  }
  expect(() => localEpochDay(new Date(Number.NaN), 'BR')).toThrow(RangeError);
});

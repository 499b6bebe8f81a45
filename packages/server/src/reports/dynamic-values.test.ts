import { describe, expect, it } from 'vitest';
import { dynamicRange, literalRange } from './dynamic-values';

const iso = (range: { start: Date; end: Date } | null) => (range ? [range.start.toISOString(), range.end.toISOString()] : null);
const now = new Date('2026-03-05T10:20:30.400Z');

describe('dynamicRange', () => {
  it('evaluates each dynamic value as a UTC range around the given clock', () => {
    expect(iso(dynamicRange('NOW', now))).toEqual(['2026-03-05T10:20:30.400Z', '2026-03-05T10:20:30.401Z']);
    expect(iso(dynamicRange('CURRENT_DAY', now))).toEqual(['2026-03-05T00:00:00.000Z', '2026-03-06T00:00:00.000Z']);
    expect(iso(dynamicRange('CURRENT_MONTH', now))).toEqual(['2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z']);
    expect(iso(dynamicRange('LAST_7_DAYS', now))).toEqual(['2026-02-27T00:00:00.000Z', '2026-03-06T00:00:00.000Z']);
  });

  it('rolls over months and years', () => {
    expect(iso(dynamicRange('CURRENT_MONTH', new Date('2026-12-31T23:59:59Z')))).toEqual(['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z']);
    expect(iso(dynamicRange('LAST_7_DAYS', new Date('2027-01-02T00:00:00Z')))).toEqual(['2026-12-27T00:00:00.000Z', '2027-01-03T00:00:00.000Z']);
  });
});

describe('literalRange', () => {
  it('reads a day as the whole day and a date-time as its second', () => {
    expect(iso(literalRange('2026-02-28'))).toEqual(['2026-02-28T00:00:00.000Z', '2026-03-01T00:00:00.000Z']);
    expect(iso(literalRange('2026-02-28 23:59:59'))).toEqual(['2026-02-28T23:59:59.000Z', '2026-03-01T00:00:00.000Z']);
  });

  it('refuses impossible dates and other shapes', () => {
    for (const value of ['2026-02-29', '2026-13-01', '2026-01-01 24:00:00', '2026-01-01T00:00:00', '01/02/2026', 'NOW', '', '1969-12-31']) {
      expect(literalRange(value), value).toBeNull();
    }
    expect(literalRange('2028-02-29')).not.toBeNull();
  });
});

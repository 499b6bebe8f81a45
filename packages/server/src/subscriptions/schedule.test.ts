import { describe, expect, it } from 'vitest';
import { attemptDate, isWithinWindow, merchantToday, nominalDueDate, retryDate, scheduledDueDate } from './schedule';

describe('nominalDueDate', () => {
  it('keeps a month-end anchor: 31 Jan, 28 Feb, 31 Mar, 30 Apr', () => {
    expect([0, 1, 2, 3].map((n) => nominalDueDate('2026-01-31', 'MONTHLY', n))).toEqual(['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30']);
  });
  it('rolls 31 January to 29 February in a leap year', () => {
    expect(nominalDueDate('2028-01-31', 'MONTHLY', 1)).toBe('2028-02-29');
  });
  it('counts weeks, quarters and years from the anchor', () => {
    expect(nominalDueDate('2026-12-25', 'WEEKLY', 1)).toBe('2027-01-01');
    expect(nominalDueDate('2026-11-30', 'QUARTERLY', 1)).toBe('2027-02-28');
    expect(nominalDueDate('2028-02-29', 'YEARLY', 1)).toBe('2029-02-28');
    expect(nominalDueDate('2028-02-29', 'YEARLY', 4)).toBe('2032-02-29');
  });
});

describe('attemptDate and scheduledDueDate', () => {
  it('moves weekends and banking holidays only with force_work_day', () => {
    expect(attemptDate('2026-12-25', true)).toBe('2026-12-28'); // Christmas on a Friday
    expect(attemptDate('2026-12-25', false)).toBe('2026-12-25');
    expect(attemptDate('2027-02-08', true)).toBe('2027-02-10'); // Carnival Monday and Tuesday
    expect(attemptDate('2026-11-21', true)).toBe('2026-11-23'); // a Saturday
    expect(attemptDate('2026-11-23', true)).toBe('2026-11-23'); // a plain Monday
  });
  it('applies the move after the month-end clamp', () => {
    // 28 February 2026 is a Saturday.
    expect(scheduledDueDate({ first_due_date: '2026-01-30', billing_interval: 'MONTHLY', force_work_day: true }, 1)).toBe('2026-03-02');
    expect(scheduledDueDate({ first_due_date: '2026-01-30', billing_interval: 'MONTHLY', force_work_day: false }, 1)).toBe('2026-02-28');
  });
});

describe('retryDate', () => {
  it('retries 1, 3 and 5 days after the first attempt, then gives up', () => {
    expect([1, 2, 3, 4].map((n) => retryDate('2026-03-02', n, false))).toEqual(['2026-03-03', '2026-03-05', '2026-03-07', null]);
  });
  it('moves a retry off a weekend with force_work_day', () => {
    expect(retryDate('2026-03-02', 3, true)).toBe('2026-03-09');
  });
});

describe('merchantToday and isWithinWindow', () => {
  it('is the UTC calendar day', () => {
    expect(merchantToday(new Date('2026-11-22T23:59:59.999Z'))).toBe('2026-11-22');
  });
  it('bounds dates and refuses impossible ones', () => {
    expect(isWithinWindow('2026-11-22', '2026-11-22', 0, 10)).toBe(true);
    expect(isWithinWindow('2026-11-21', '2026-11-22', 0, 10)).toBe(false);
    expect(isWithinWindow('2026-12-03', '2026-11-22', 0, 10)).toBe(false);
    expect(isWithinWindow('2026-02-30', '2026-01-22', 0, 100)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { isBusinessDay } from '../rails/calendar';
import { boletoCompensation, boletoTerm, brasiliaDate, startOfBrasiliaDay } from './boleto-term';

describe('boleto term in Brasília time', () => {
  it('reads dates on the Brasília clock (UTC−3)', () => {
    expect(brasiliaDate(new Date('2026-11-25T02:59:59Z'))).toBe('2026-11-24');
    expect(brasiliaDate(new Date('2026-11-25T03:00:00Z'))).toBe('2026-11-25');
    expect(startOfBrasiliaDay('2026-11-25').toISOString()).toBe('2026-11-25T03:00:00.000Z');
  });

  it('is due business days after generation and payable through the end of that day', () => {
    // Friday 27 November 2026 → Mon 30, Tue 1, Wed 2 December.
    const term = boletoTerm(new Date('2026-11-27T15:00:00Z'), 3);
    expect(term).toEqual({ dueDate: '2026-12-02', payableUntil: new Date('2026-12-03T03:00:00Z') });
    // Late on Friday evening in Brasília is still Friday there, though Saturday in UTC.
    expect(boletoTerm(new Date('2026-11-28T02:30:00Z'), 1).dueDate).toBe('2026-11-30');
    // Christmas and the weekend are skipped.
    expect(boletoTerm(new Date('2026-12-24T12:00:00Z'), 1).dueDate).toBe('2026-12-28');
    // Zero or fewer days still give at least one business day.
    expect(boletoTerm(new Date('2026-11-25T12:00:00Z'), 0).dueDate).toBe('2026-11-26');
    for (let day = 1; day <= 28; day += 1) {
      const at = new Date(Date.UTC(2027, 1, day, 12));
      const { dueDate } = boletoTerm(at, 3);
      expect(isBusinessDay(dueDate), dueDate).toBe(true);
      expect(dueDate > brasiliaDate(at)).toBe(true);
    }
  });

  it('compensates one business day after payment, at the same time of day', () => {
    expect(boletoCompensation(new Date('2026-11-25T15:00:00Z')).toISOString()).toBe('2026-11-26T15:00:00.000Z');
    expect(boletoCompensation(new Date('2026-11-27T15:00:00Z')).toISOString()).toBe('2026-11-30T15:00:00.000Z');
    expect(boletoCompensation(new Date('2026-11-28T15:00:00Z')).toISOString()).toBe('2026-11-30T15:00:00.000Z');
  });
});

import { describe, expect, it } from 'vitest';
import { ApiError } from '../http/errors';
import { assertPayoutMove, canMovePayout, PAYOUT_STATUSES, PAYOUT_STATUS_TIMESTAMPS, PAYOUT_TRANSITIONS, statusesBefore } from './states';

describe('payout state machine', () => {
  it('allows exactly the documented moves', () => {
    const allowed = PAYOUT_STATUSES.flatMap((from) => PAYOUT_STATUSES.filter((to) => canMovePayout(from, to)).map((to) => `${from}→${to}`));
    expect(allowed).toEqual(['CREATED→PROCESSING', 'PROCESSING→PAID', 'PROCESSING→REJECTED', 'PROCESSING→CANCELED']);
  });

  it('has no way out of a terminal status and reaches every status from CREATED', () => {
    for (const terminal of ['PAID', 'REJECTED', 'CANCELED'] as const) expect(PAYOUT_TRANSITIONS[terminal]).toEqual([]);
    const reached = new Set<string>(['CREATED']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const from of [...reached]) {
        for (const to of PAYOUT_TRANSITIONS[from as keyof typeof PAYOUT_TRANSITIONS]) {
          if (!reached.has(to)) {
            reached.add(to);
            grew = true;
          }
        }
      }
    }
    expect([...reached].sort()).toEqual([...PAYOUT_STATUSES].sort());
  });

  it('refuses an illegal move naming the current and the expected statuses', () => {
    expect(() => assertPayoutMove('PROCESSING', 'PAID')).not.toThrow();
    const cases = [
      ['PAID', 'REJECTED', 'status: the payout is PAID; it can become REJECTED only from PROCESSING.'],
      ['CREATED', 'PAID', 'status: the payout is CREATED; it can become PAID only from PROCESSING.'],
      ['PROCESSING', 'PROCESSING', 'status: the payout is PROCESSING; it can become PROCESSING only from CREATED.'],
      ['PROCESSING', 'CREATED', 'status: the payout is PROCESSING; no payout becomes CREATED by a move.'],
      ['UNKNOWN', 'PAID', 'status: the payout is UNKNOWN; it can become PAID only from PROCESSING.'],
    ] as const;
    for (const [from, to, description] of cases) {
      let thrown: unknown;
      try {
        assertPayoutMove(from, to);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ApiError);
      expect((thrown as ApiError).status).toBe(409);
      expect((thrown as ApiError).items).toEqual([{ code: '02.03.0001', description }]);
    }
    expect(statusesBefore('CANCELED')).toEqual(['PROCESSING']);
  });

  it('gives every status its own timestamp column', () => {
    const columns = Object.values(PAYOUT_STATUS_TIMESTAMPS);
    expect(new Set(columns).size).toBe(PAYOUT_STATUSES.length);
  });
});

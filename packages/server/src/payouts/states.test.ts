import { describe, expect, it } from 'vitest';
import { PAYOUT_STATES, PAYOUT_STATUSES } from './states';

// Every move is checked with the other tables in lib/state-machine.test.ts; this is what payouts add.
describe('payout state machine', () => {
  it('has no way out of a terminal status, PAID only to a return, and reaches every status from CREATED', () => {
    for (const terminal of ['REJECTED', 'CANCELED'] as const) expect(PAYOUT_STATES.moves[terminal]).toEqual([]);
    // Money that reached an account is only taken back by the bank's return, which rejects the payout.
    expect(PAYOUT_STATES.moves.PAID).toEqual(['REJECTED']);
    const reached = new Set<string>(['CREATED']);
    for (let grew = true; grew; ) {
      grew = false;
      for (const from of [...reached]) {
        for (const to of PAYOUT_STATES.moves[from as keyof typeof PAYOUT_STATES.moves]) {
          if (!reached.has(to)) {
            reached.add(to);
            grew = true;
          }
        }
      }
    }
    expect([...reached].sort()).toEqual([...PAYOUT_STATUSES].sort());
  });

  it('gives every status a timestamp column of its own (CREATED: created_at, written with the batch)', () => {
    const columns = ['created_at', ...Object.values(PAYOUT_STATES.timestamps)];
    expect(new Set(columns).size).toBe(PAYOUT_STATUSES.length);
  });
});
